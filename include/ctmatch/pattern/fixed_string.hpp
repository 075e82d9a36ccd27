#pragma once
// fixed_string and name<>: string literals as template arguments. A pattern's names
// ("a"_x, slot<"dtype", DType>, get<"dtype">()) and its op schemas (op<"aten::mm(...)">) are
// template arguments, so a name is part of a type: the matcher resolves it to a storage index
// at compile time and never compares strings at run time.
#include <cstddef>
#include <string_view>

namespace ctmatch::pattern {

/// A string literal usable as a template argument (`template <fixed_string S>`).
template <std::size_t N>
struct fixed_string {
  char data[N]{};  // N counts the terminating '\0'
  constexpr fixed_string(const char (&s)[N]) {
    for (std::size_t i = 0; i < N; ++i) data[i] = s[i];
  }
  constexpr std::string_view view() const { return {data, N - 1}; }
  constexpr std::size_t size() const { return N - 1; }
};
template <std::size_t N>
fixed_string(const char (&)[N]) -> fixed_string<N>;

/// A name as a type: bindings are Mp11 lists of `binding<name<"a">, NodeId>`, and two uses of
/// one name are the same type.
template <fixed_string S>
struct name {
  static constexpr std::string_view value = S.view();
};

}  // namespace ctmatch::pattern
