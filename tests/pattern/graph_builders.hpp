#pragma once
// What the pattern tests build small graphs with: an op declared with op<"..."> as an OpId,
// a use of a node, an int list.
#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <vector>

#include <ctmatch/graph.hpp>

namespace pattest {
using namespace ctmatch;

template <class O>
OpId id_of(const O&) {
  return std::remove_const_t<O>::id();
}
inline Value ref(NodeId n) { return Value(NodeRef{n}); }
inline Value ints(std::initializer_list<std::int64_t> v) {
  std::vector<Value> items;
  for (auto i : v) items.emplace_back(i);
  return Value::list(std::move(items));
}
}  // namespace pattest
