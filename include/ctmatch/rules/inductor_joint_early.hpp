#pragma once
// `inductor_joint_early`: the joint-graph pass's `early_patterns` (torch 2.11,
// torch/_inductor/fx_passes/joint_graph.py), which Inductor runs just before
// `joint_graph.patterns` (inductor_joint.hpp), in its order:
//
//   pointless_view          view(x, size) where size is x's shape  ->  x
//   pointless_view_pair     view(view(x, s1) [one user], s2) where s2 is x's shape  ->  x
//   pointless_permute_pair  permute(permute(x, p1) [one user], p2) where p1[p2[i]] == i  ->  x
//
// "Is x's shape" is Inductor's definitely_equal: as many entries, each equal where both are
// known (ints, or the same symbol), and at most one -1 in the size standing for the rest. A size
// entry that is a node (a symbolic size computed in the graph) is not known equal here: ctmatch
// does not hold the value a node computes (Inductor would compare its symbol, and may find it
// equal). Inductor's trees fail a node with other positional arguments or any kwarg, as here;
// its handlers look at every view (and view pair, permute pair) and may change nothing, which
// counts as a handler call (RuleStats::unchanged). Where Inductor's handler would raise (a
// permutation pair of different ranks, or an index out of range; a view of a node without
// metadata), the port changes nothing.
// tests/rewrite/test_inductor_joint_passes.cpp checks the counts and graphs against Inductor's
// on the oracle graphs (tests/data/inductor: joint.json's "early" records).
#include <cstdint>
#include <vector>

#include "../pattern.hpp"
#include "../rewrite/pattern_rule.hpp"
#include "../rewrite/rule_set.hpp"
#include "inductor_ops.hpp"

namespace ctmatch::rules {

namespace inductor_joint_early_detail {
using namespace ctmatch::dsl;
namespace ops = inductor_ops;

/// Inductor's definitely_equal(shape, size): `size` (a view's size argument) is `shape`, up to
/// one -1.
inline bool definitely_equal(const std::vector<Value>& shape, const Value& size) {
  if (!size.is_list() || size.items()->size() != shape.size()) return false;
  int minus_one = 0;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const Value& want = (*size.items())[i];
    if (!want.is_node() && want == shape[i]) continue;
    const std::int64_t* k = want.get_if<std::int64_t>();
    if (!k || *k != -1 || ++minus_one > 1) return false;
  }
  return true;
}

/// Whether `size` is the shape of the node `x` (false where its shape is unknown).
inline bool is_shape_of(const Graph& g, NodeId x, const Value& size) {
  const auto& shape = g[x].meta().shape;
  return shape && definitely_equal(*shape, size);
}

inline constexpr auto pointless_view = rewrite<"pointless_view">(
    ops::exactly<2>(aten::view("arg"_x, slot<"size", Value>)), [](const auto& m, RewriteBuilder& b) -> NodeId {
      return is_shape_of(b.graph(), get<"arg">(m), get<"size">(m)) ? get<"arg">(m) : m.root();
    });

inline constexpr auto pointless_view_pair = rewrite<"pointless_view_pair">(
    ops::exactly<2>(aten::view(ops::exactly<2>(aten::view("arg"_x, _).users<1>()), slot<"size2", Value>)),
    [](const auto& m, RewriteBuilder& b) -> NodeId {
      return is_shape_of(b.graph(), get<"arg">(m), get<"size2">(m)) ? get<"arg">(m) : m.root();
    });

/// perm1[perm2[i]] == i for every i, indexing as Python does (a negative index from the end).
inline bool undoes(const Value& perm1, const Value& perm2) {
  if (!perm1.is_list() || !perm2.is_list()) return false;
  const std::vector<Value>& p1 = *perm1.items();
  const std::vector<Value>& p2 = *perm2.items();
  const auto rank = static_cast<std::int64_t>(p1.size());
  if (p2.size() != p1.size()) return false;  // Inductor asserts the ranks agree
  for (std::int64_t i = 0; i < rank; ++i) {
    const std::int64_t* j = p2[static_cast<std::size_t>(i)].get_if<std::int64_t>();
    if (!j || *j >= rank || *j < -rank) return false;
    const std::int64_t* d = p1[static_cast<std::size_t>(*j < 0 ? *j + rank : *j)].get_if<std::int64_t>();
    if (!d || *d != i) return false;
  }
  return true;
}

inline constexpr auto pointless_permute_pair = rewrite<"pointless_permute_pair">(
    ops::exactly<2>(
        aten::permute(ops::exactly<2>(aten::permute("arg"_x, slot<"perm1", Value>).users<1>()), slot<"perm2", Value>)),
    [](const auto& m, RewriteBuilder&) -> NodeId {
      return undoes(get<"perm1">(m), get<"perm2">(m)) ? get<"arg">(m) : m.root();
    });
}  // namespace inductor_joint_early_detail

/// The joint pass's early_patterns, in Inductor's order: one sweep of it is Inductor's
/// early_patterns.apply.
inline auto inductor_joint_early() {
  using namespace inductor_joint_early_detail;
  return rule_set(pointless_view, pointless_view_pair, pointless_permute_pair);
}

}  // namespace ctmatch::rules
