#pragma once
// sweep: one pass that gives exactly the results of PyTorch Inductor's
// `PatternMatcherPass.apply` (torch/_inductor/pattern_matcher.py) on the same rules:
//   1. The candidates are the nodes present when the pass starts whose op is the root op of
//      some enabled rule. They are visited once each, last node first. Nodes a rewrite creates
//      are not visited; candidates a rewrite erased are skipped.
//   2. At a candidate, its rules are tried in declaration order while the node is alive: every
//      rule that matches (and passes its check and the safety checks) is applied at once.
//   3. A rewrite inserts its new nodes just before the root, redirects every use of the root,
//      then erases the matched nodes left without users, last first (rewrite/apply.hpp).
#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "../graph/verify.hpp"
#include "apply.hpp"
#include "rule_set.hpp"

namespace ctmatch {

/// Fills `stats.rules` with one entry per rule of the set, names set: one allocation, for the
/// entries (the names are views, see rule_stats_name). Every pass pays this.
template <class Set>
void init_rule_stats(const Set& set, PassStats& stats) {
  stats.rules.clear();
  stats.rules.resize(Set::size);
  set.for_each([&](const auto& r, std::size_t i) { stats.rules[i].name = rule_stats_name(r); });
}

namespace detail {
/// Tries the rules of `table` for node `n`, of op `op`, in order while it is alive (its entry
/// in the graph's op array says so, without reading the node); returns the number of attempts.
/// A rule whose first test (pattern/first_test.hpp) fails is not visited: the op of the input
/// it looks at is read once for the rules that share it (the SDPA forms, about sixty rules
/// rooted at view, all ask for a bmm first), and read again only after a rule did something.
template <class Set>
[[gnu::always_inline]] inline std::size_t try_rules_at(const Set& set, const DispatchTable& table, PassContext& cx,
                                                       NodeId n, OpId op) {
  const std::span<const std::uint16_t> rules = table.rules_for(op);
  const std::span<const pattern::FirstTest> tests = table.first_tests_for(op);
  std::size_t known = pattern::FirstTest::npos;  // the argument whose op is known_op
  OpId known_op = no_op;
  std::size_t attempts = 0;
  for (std::size_t j = 0; j < rules.size(); ++j) {
    if (cx.graph.live_call_ops()[n] == no_op) break;
    ++attempts;
    const pattern::FirstTest t = tests[j];
    if (t.index != pattern::FirstTest::npos && t.index < cx.graph[n].args().size()) {  // else its prefilter looks
      if (t.index != known) {
        known = t.index;
        const NodeId in = cx.graph[n].args()[t.index].node();
        known_op = in == no_node ? no_op : cx.graph.live_call_ops()[in];
      }
      if (known_op != t.op) continue;
    }
    const std::uint16_t i = rules[j];
    if (set.visit(i, [&](const auto& rule) { return apply_rule(rule, i, cx, n); }) != ApplyResult::NoMatch)
      known = pattern::FirstTest::npos;  // the graph may have changed
  }
  return attempts;
}
}  // namespace detail

/// Calls visit(n, op) for each candidate of `table` (a live call node whose op is the root op
/// of some rule) present when it starts, last first, in the sweep's order and with its
/// prefetching; a candidate erased before its turn (its entry in the op array is no_op by then)
/// is skipped. `visit` may change the graph: nodes it creates are not visited. The sweep below
/// is this with a rewrite at each candidate; bench_pass times it with matching alone. Inline
/// into its caller, with a visit marked always_inline: a call per candidate costs the sweep
/// 1.5% to 4% more instructions (bert, gpt2).
template <class Visit>
[[gnu::always_inline]] inline void for_each_candidate(const Graph& g, const DispatchTable& table, Visit&& visit) {
  // Candidates are visited last first. Each visit reads its node, and a rule's prefilter an
  // input of it, most often the first: they are prefetched a few candidates ahead (the input
  // once the candidate's first argument, inside it, has come in). A match reads the front of
  // a node (links, signature, arguments, binding index, users, kwargs: its first three cache
  // lines, see Node); the first two are always asked for, the third too when the nodes
  // outgrow a 1 MiB cache. Even gpt2 (about 250 KB of nodes) gains from prefetching. The
  // prefetches are written in the loop: moved into a lambda, g++ 12 dropped them (see
  // Graph::prefetch_name), and 1M nodes ran 40% slower.
  const std::size_t ids = g.id_bound();  // the nodes present now: later ones are past it
  const bool in_order = g.ids_in_order();  // at the start: a rewrite may insert nodes before others
  const bool whole_front = ids * sizeof(Node) > (std::size_t{1} << 20);
  constexpr std::size_t node_ahead = 16, input_ahead = 4;
  // The candidates come from scans of the graph's array of ops in id order: 4 bytes a node,
  // not a cache line of each node, and loads that do not depend on each other, where walking
  // the node list is a chain of dependent loads.
  //   - Ids in node order (as read, until a pass inserts nodes before others): the array is
  //     scanned in blocks, last block first, each when its turn comes, into a buffer that stays
  //     in the cache, where a list of every candidate at once would take 4 bytes a node,
  //     written and read back from memory in a large graph. Scanning later finds the same
  //     candidates: the nodes present at the start keep their ids and order, new nodes get ids
  //     past `ids`, and a candidate erased before its block is scanned would have been skipped
  //     at its turn. Prefetching does not look across a block. The array is asked for again
  //     at each block: new nodes may have moved it.
  //   - Otherwise: every candidate is listed at once and sorted into the node order.
  constexpr std::size_t block = 2048;
  NodeId buffer[block + 1];
  std::unique_ptr<NodeId[]> sorted;
  for (std::size_t end = ids; end > 0;) {
    const NodeId* candidates = buffer;
    std::size_t count = 0;
    if (in_order) {
      std::size_t begin = end > block ? end - block : 0;
      std::span<const OpId> part = g.live_call_ops().subspan(begin, end - begin);
      count = static_cast<std::size_t>(table.candidates(part, static_cast<NodeId>(begin), buffer) - buffer);
      end = begin;
    } else {
      sorted = std::make_unique_for_overwrite<NodeId[]>(ids + 1);
      NodeId* out = table.candidates(g.live_call_ops(), 0, sorted.get());
      std::sort(sorted.get(), out, [&](NodeId a, NodeId b) { return g.comes_before(a, b); });
      candidates = sorted.get();
      count = static_cast<std::size_t>(out - candidates);
      end = 0;
    }
    for (std::size_t k = 0; k < count; ++k) {
      if (k + node_ahead < count) {
        const char* p = reinterpret_cast<const char*>(&g[candidates[count - 1 - k - node_ahead]]);
        __builtin_prefetch(p);
        __builtin_prefetch(p + 64);
        if (whole_front) __builtin_prefetch(p + 128);
      }
      if (k + input_ahead < count) {
        std::span<const Value> args = g[candidates[count - 1 - k - input_ahead]].args();
        if (!args.empty())
          if (NodeId in = args[0].node(); in != no_node) __builtin_prefetch(&g[in]);
      }
      NodeId n = candidates[count - 1 - k];
      OpId op = g.live_call_ops()[n];  // no_op once erased
      if (op != no_op) visit(n, op);
    }
  }
}

template <class Set>
PassStats sweep(Graph& g, const Set& set, const PassOptions& options = {}) {
  g.bind_late();  // nodes read before their op's schema was registered
  PassStats stats;
  init_rule_stats(set, stats);
  stats.nodes_before = g.size();
  auto t0 = std::chrono::steady_clock::now();
  {
    std::optional<DispatchTable> own_table;
    const DispatchTable& table = dispatch_table_for(set, own_table);
    PassContext cx(g, options, stats);
    for_each_candidate(g, table, [&](NodeId n, OpId op) __attribute__((always_inline)) {
      ++stats.visited;
      stats.attempts += detail::try_rules_at(set, table, cx, n, op);
    });
  }
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  stats.nodes_after = g.size();
  g.bind_late();  // ops whose schemas a rule registered on first use during the pass
  if (options.verify_after_pass) verify(g);
  return stats;
}

}  // namespace ctmatch
