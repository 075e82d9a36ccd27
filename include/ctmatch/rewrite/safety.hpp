#pragma once
// The safety checks every rewrite passes, derived from the rule's matched nodes:
//   1. No match spans a mutation. Nodes are numbered by mutation region: the region increases
//      at each node that writes one of its arguments (its schema has `Tensor(a!)`, or it carries
//      a non-None `out=` kwarg, or it is an in-place method such as `add_`). A match whose
//      nodes are not all in one region would move a read across a write. This is Inductor's
//      `prevent_match_across_mutations` (torch/_inductor/pattern_matcher.py). Which nodes
//      write is is_mutating (graph/node.hpp); the graph counts them.
//   2. Interior matched nodes have no users outside the match (unless the rule opts out with
//      `allows_shared_interior`): otherwise the rewrite would keep them alive for those users
//      and compute them twice.
#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "../graph/graph.hpp"
#include "rule.hpp"

namespace ctmatch {

/// Mutation region of every node, computed once per pass. Nodes created during the pass take
/// the region of the root they were inserted before (they sit right before it).
class MutationRegions {
 public:
  MutationRegions() = default;
  explicit MutationRegions(const Graph& g) {
    if (g.num_mutating() == 0) return;  // one region: no walk, no table
    for (const Node& n : g.nodes()) note(n, g.id_bound());
  }
  /// Whether the graph has any mutating node at all (else the check is skipped).
  bool any() const { return any_; }
  std::uint32_t operator[](NodeId id) const { return id < region_.size() ? region_[id] : 0; }
  void inherit(NodeId created, NodeId root) {
    if (!any_) return;
    if (created >= region_.size()) region_.resize(created + 1, 0);
    region_[created] = (*this)[root];
  }
  bool same_region(std::span<const NodeId> nodes) const {
    if (!any_ || nodes.empty()) return true;
    std::uint32_t r = (*this)[nodes[0]];
    for (NodeId n : nodes)
      if ((*this)[n] != r) return false;
    return true;
  }

 private:
  // Adds the next node in graph order.
  void note(const Node& n, std::size_t id_bound) {
    if (is_mutating(n)) {
      if (!any_) region_.assign(id_bound, 0);
      ++current_;
      any_ = true;
    }
    if (any_) region_[n.id()] = current_;
  }

  std::vector<std::uint32_t> region_;
  std::uint32_t current_ = 0;
  bool any_ = false;
};

/// The first interior node (not one of the `roots`) of the match that has a user outside the
/// match, or no_node. Matches are a handful of nodes: the membership tests are linear scans.
inline NodeId shared_interior_node(const Graph& g, std::span<const NodeId> matched, std::span<const NodeId> roots,
                                   NodeId* outside_user = nullptr) {
  for (NodeId n : matched) {
    if (std::find(roots.begin(), roots.end(), n) != roots.end()) continue;
    for (NodeId u : g[n].users()) {
      if (std::find(matched.begin(), matched.end(), u) == matched.end()) {
        if (outside_user) *outside_user = u;
        return n;
      }
    }
  }
  return no_node;
}

}  // namespace ctmatch
