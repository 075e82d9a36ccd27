#pragma once
// Sizes and strides for tests: a list of ints as the Values TensorMeta holds.
#include <cstdint>
#include <initializer_list>
#include <vector>

#include <ctmatch/graph/value.hpp>

inline std::vector<ctmatch::Value> int_values(std::initializer_list<std::int64_t> v) {
  std::vector<ctmatch::Value> out;
  for (std::int64_t x : v) out.emplace_back(x);
  return out;
}
