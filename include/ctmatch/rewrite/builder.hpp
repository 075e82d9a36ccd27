#pragma once
// RewriteBuilder: how a replacement creates nodes. Every node goes just before the root of the
// match (as Inductor's `graph.inserting_before(root)` does), in creation order, and gets a
// fresh FX-style name (`addmm`, `addmm_1`, ...). The builder remembers what it created, so the
// driver can count nodes added, carry metadata over and check the new nodes.
#include <charconv>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../graph/graph.hpp"

namespace ctmatch {

/// Fresh node names for one pass, as torch.fx names nodes: `base` when it is free, else
/// `base_K` for the first free K (`mm_scale_cast`, `mm_scale_cast_1`, ...; `view_201` in a graph
/// with `view_1` to `view_200`). The first free K of a base is found once per pass by galloping
/// and bisecting over K (`base_1`, `base_2`, `base_4`, ... then halving the gap): a dozen probes
/// of the name index where walking from 1 would take one per existing node of that base (gpt2
/// has 200 views), and it is exact when the taken suffixes run from 1 without a gap, as they do
/// in graphs FX named. Later names count up from there, each checked free. The counters and the
/// bases (`mm` for `aten.mm.default`) are kept per op id, and each counter keeps its next name
/// written out, counted up digit by digit in place: naming a node formats no number and
/// allocates nothing beyond the name it returns.
class NameCounter {
 public:
  std::string fresh(const Graph& g, std::string_view base) {
    if (g.find(base) == no_node) return std::string(base);
    return numbered(g, counter(base));
  }
  /// A fresh name for a node of op `op`: fresh(g, base_of(op)) without the string work.
  std::string fresh_for(const Graph& g, OpId op) {
    PerOp& p = per_op(op);
    if (!holds_base(g, p)) {
      p.holder = g.find(p.base);
      if (p.holder == no_node) return std::string(p.base);
    }
    return numbered(g, counters_[p.counter]);
  }
  /// Creates `spec`, a call_function node of spec.op, before `before`, with the name
  /// fresh_for(g, spec.op) would give it, and returns it. Each candidate name is hashed and
  /// looked up once: Graph::try_create checks and claims it in one probe (fresh_for, then
  /// create, would look it up twice). When the node cannot be made (its arguments do not fit),
  /// the counter moves on exactly as fresh_for would have moved it, then the error goes on.
  NodeId create_for(Graph& g, NodeSpec& spec, NodeId before) {
    PerOp& p = per_op(spec.op);
    spec.name_is_node_name = p.base_is_node_name;  // and so is every `base_K`
    if (!holds_base(g, p)) {
      spec.name = p.base;
      if (NodeId id = g.try_create(spec, before); id != no_node) {
        p.holder = id;
        return id;
      }
      p.holder = g.find(p.base);  // taken by a node not known yet
    }
    Counter& c = counters_[p.counter];
    for (;;) {
      spec.name = c.current(g);
      NodeId id;
      try {
        id = g.try_create(spec, before);
      } catch (...) {
        numbered(g, c);
        throw;
      }
      c.advance();
      if (id != no_node) {
        if (g.outgrows_cache()) g.prefetch_name(c.current(g));  // the name this op's next node takes
        return id;
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
  /// The names `base_K` for K counting up. Ops of one base (add.Tensor, add.Scalar) share one.
  class Counter {
   public:
    explicit Counter(std::string_view base) : base_(base) {}
    const std::string& base() const { return base_; }
    /// `base_K` for the next K (on first use: the first free K, see the class comment).
    const std::string& current(const Graph& g) {
      if (text_.empty()) {
        text_.assign(base_).push_back('_');
        text_ += std::to_string(first_free(g));
      }
      return text_;
    }
    /// K + 1: the last digit goes up, nines roll over (`view_199` -> `view_200`, `view_99` ->
    /// `view_100`).
    void advance() {
      std::size_t i = text_.size();
      while (text_[--i] == '9') text_[i] = '0';
      if (text_[i] == '_') text_.insert(i + 1, 1, '1');
      else ++text_[i];
    }

   private:
    /// Whether `base_K` is taken; the name is formatted on the stack (bases are short).
    bool taken(const Graph& g, std::size_t k) const {
      char buf[96];
      if (base_.size() + 22 > sizeof buf) return g.find(base_ + "_" + std::to_string(k)) != no_node;
      std::memcpy(buf, base_.data(), base_.size());
      buf[base_.size()] = '_';
      auto [end, ec] = std::to_chars(buf + base_.size() + 1, buf + sizeof buf, k);
      (void)ec;
      return g.find(std::string_view(buf, static_cast<std::size_t>(end - buf))) != no_node;
    }
    std::size_t first_free(const Graph& g) const {
      if (!taken(g, 1)) return 1;
      std::size_t lo = 1, hi = 2;  // lo taken; hi to be seen
      while (taken(g, hi)) {
        lo = hi;
        hi *= 2;
      }
      while (hi - lo > 1) {  // lo taken, hi free
        std::size_t mid = lo + (hi - lo) / 2;
        (taken(g, mid) ? lo : hi) = mid;
      }
      return hi;
    }

    std::string base_;
    std::string text_;  // `base_K`, K the next number; empty until first used
  };
  struct PerOp {
    OpId op;
    std::string_view base;    // base_of(op): a view of the op registry's name
    std::size_t counter;
    NodeId holder = no_node;  // the live node last found named `base`
    bool base_is_node_name = false;
  };
  /// A pass creates nodes of a handful of ops and bases: short lists searched linearly beat
  /// tables (an op-indexed one would be allocated and cleared for every pass; a hash map
  /// allocates per entry).
  Counter& counter(std::string_view base) {
    for (Counter& c : counters_)
      if (c.base() == base) return c;
    return counters_.emplace_back(base);
  }
  /// The entry of `op`, made on first use.
  PerOp& per_op(OpId op) {
    for (PerOp& q : per_op_)
      if (q.op == op) return q;
    std::string_view base = base_of(op);
    std::size_t index = static_cast<std::size_t>(&counter(base) - counters_.data());
    return per_op_.emplace_back(PerOp{op, base, index, no_node, is_node_name(base)});
  }
  /// Whether the base name is known to be taken. The node found holding it holds it while it
  /// is live (names do not change and live names are unique): checking that it is live, and
  /// still that node (a rollback frees the ids of the nodes it undoes, and a later node may get
  /// the id), spares hashing and probing the name.
  static bool holds_base(const Graph& g, const PerOp& p) {
    return p.holder != no_node && p.holder < g.id_bound() && g[p.holder].alive() && g[p.holder].name() == p.base;
  }
  /// The counter's first free name; the counter moves past it.
  static std::string numbered(const Graph& g, Counter& c) {
    for (;;) {
      std::string name = c.current(g);
      c.advance();
      if (g.find(name) == no_node) return name;
    }
  }

  std::vector<PerOp> per_op_;
  std::vector<Counter> counters_;
};

class RewriteBuilder {
 public:
  /// `created` is where the builder lists the nodes it creates (cleared first): a buffer the
  /// driver reuses from one rewrite to the next.
  RewriteBuilder(Graph& g, NodeId root, NameCounter& names, std::vector<NodeId>& created)
      : g_(g), root_(root), names_(names), created_(created) {
    created_.clear();
  }

  const Graph& graph() const { return g_; }
  const Node& operator[](NodeId id) const { return g_[id]; }
  /// The root of the match: new nodes go just before it.
  NodeId root() const { return root_; }

  /// A new call_function node before the root. Throws GraphError when the arguments do not fit
  /// the op's signature (the driver then rolls the rewrite back). `layout`, when given, says
  /// where each schema parameter is written, and `layout_fits` what Graph::layout_fits found
  /// for it (see NodeSpec).
  NodeId call(OpId op, NodeArgs args, std::vector<Kwarg> kwargs = {},
              std::span<const std::int16_t> layout = {}, const OpSignature* layout_fits = nullptr) {
    NodeSpec spec{NodeKind::CallFunction, op, {}, {}, std::move(args), std::move(kwargs), layout, layout_fits};
    return create(spec);
  }
  /// call() for a caller that has built the node's spec itself (a declarative replacement
  /// writes the arguments straight into it): a call_function node of spec.op. Its name is
  /// chosen here (spec.name is overwritten), and so is its place; the spec is moved from.
  NodeId create(NodeSpec& spec) {
    created_.reserve(created_.size() + 1);  // the node, once made, is listed for discard()
    NodeId id = names_.create_for(g_, spec, root_);
    created_.push_back(id);
    return id;
  }
  /// Metadata of a node this builder created (e.g. a dtype the replacement knows better).
  TensorMeta& meta(NodeId created) { return g_[created].edit_meta(); }

  std::span<const NodeId> created() const { return created_; }

  /// A kwarg of a matched node that the new op's schema has no parameter for, so the
  /// replacement leaves it out (forward_kwargs where the source op is not known at compile
  /// time, or an argument written by keyword): counted in RuleStats::kwargs_dropped, the first
  /// one described in RuleStats::first_drop, once the rewrite commits.
  void note_dropped_kwarg(const Node& from, std::string_view kwarg, std::string_view new_op) {
    if (dropped_kwargs_++ == 0)
      first_drop_ = std::string(from.name()) + ": kwarg '" + std::string(kwarg) + "' dropped: " + std::string(new_op) + " has no such argument";
  }
  std::size_t dropped_kwargs() const { return dropped_kwargs_; }
  const std::string& first_drop() const { return first_drop_; }

  /// Removes every node this builder created, newest first (Graph::remove_newest): the graph
  /// is as before the replacement ran. Valid while the nodes are still the newest and unused
  /// outside what the builder made, i.e. before the root's uses are redirected.
  void discard() {
    for (auto it = created_.rbegin(); it != created_.rend(); ++it) g_.remove_newest(*it);
    created_.clear();
  }

 private:
  Graph& g_;
  NodeId root_;
  NameCounter& names_;
  std::vector<NodeId>& created_;
  std::size_t dropped_kwargs_ = 0;
  std::string first_drop_;
};

}  // namespace ctmatch
