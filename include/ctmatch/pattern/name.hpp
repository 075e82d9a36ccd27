#pragma once
// name<>: a string literal as a type. A pattern's names
// ("a"_x, slot<"dtype", DType>, get<"dtype">()) and its op schemas (op<"aten::mm(...)">) are
// template arguments, so a name is part of a type: the matcher resolves it to a storage index
// at compile time and never compares strings at run time.
#include <string_view>

#include "../fixed_string.hpp"

namespace ctmatch::pattern {

using ::ctmatch::fixed_string;

/// A name as a type: bindings are Mp11 lists of `binding<name<"a">, NodeId>`, and two uses of
/// one name are the same type.
template <fixed_string S>
struct name {
  static constexpr std::string_view value = S.view();
};

}  // namespace ctmatch::pattern
