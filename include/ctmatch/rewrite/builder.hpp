#pragma once
// RewriteBuilder: how a replacement creates nodes. Every node goes just before the root of the
// match (as Inductor's `graph.inserting_before(root)` does), in creation order, and gets a
// fresh FX-style name (`addmm`, `addmm_1`, ...). The builder remembers what it created, so the
// driver can count nodes added, carry metadata over and check the new nodes.
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../graph/graph.hpp"

namespace ctmatch {

/// Fresh node names for one pass: `base` when it is free, else `base_K` with K counting up from
/// the graph's id bound at the start of the pass. Graph::unique_name probes `base_1`, `base_2`,
/// ... from 1 each time, which costs a probe per existing node of that op (gpt2 has 200 views)
/// and is quadratic when a pass creates many; numbers above the id bound are almost never
/// taken, so a name costs one or two lookups.
class NameCounter {
 public:
  std::string fresh(const Graph& g, std::string_view base) {
    std::string b(base);
    if (g.find(b) == no_node) return b;
    std::size_t& next = next_[b];
    if (next == 0) next = g.id_bound();
    for (;; ++next) {
      std::string c = b + "_" + std::to_string(next);
      if (g.find(c) == no_node) {
        ++next;
        return c;
      }
    }
  }
  /// `aten.mm.default` -> `mm`, `operator.getitem` -> `getitem`, `bench.sdpa.default` -> `sdpa`.
  static std::string_view base_of(OpId op) {
    std::string_view full = op_name(op);
    std::string_view rest = full.substr(full.find('.') + 1);
    return rest.substr(0, rest.find('.'));
  }

 private:
  std::unordered_map<std::string, std::size_t> next_;
};

class RewriteBuilder {
 public:
  RewriteBuilder(Graph& g, NodeId root, NameCounter& names) : g_(g), root_(root), names_(names) {}

  const Graph& graph() const { return g_; }
  const Node& operator[](NodeId id) const { return g_[id]; }
  /// The root of the match: new nodes go just before it.
  NodeId root() const { return root_; }

  /// A new call_function node before the root. Throws GraphError when the arguments do not fit
  /// the op's signature (the driver then rolls the rewrite back).
  NodeId call(OpId op, std::vector<Value> args, std::vector<Kwarg> kwargs = {}) {
    std::string name = names_.fresh(g_, NameCounter::base_of(op));
    NodeId id = g_.call(op, std::move(args), std::move(kwargs), root_, std::move(name));
    created_.push_back(id);
    return id;
  }
  /// Metadata of a node this builder created (e.g. a dtype the replacement knows better).
  TensorMeta& meta(NodeId created) { return g_[created].meta; }

  std::span<const NodeId> created() const { return created_; }

 private:
  Graph& g_;
  NodeId root_;
  NameCounter& names_;
  std::vector<NodeId> created_;
};

}  // namespace ctmatch
