#pragma once
// FirstTest: the first level of a pattern's prefilter (prefilter.hpp) as data: the root's
// argument `index` must be a node of op `op`. Rules of one root op often share it (the SDPA
// forms: view(bmm(...))), so a driver tests it once per candidate for all of them (sweep.hpp)
// instead of once per rule.
#include <cstddef>

#include "../graph/op.hpp"

namespace ctmatch::pattern {

struct FirstTest {
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  std::size_t index = npos;  // npos: the pattern has no such test
  OpId op = no_op;
};

}  // namespace ctmatch::pattern
