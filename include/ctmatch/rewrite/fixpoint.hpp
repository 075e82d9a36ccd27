#pragma once
// fixpoint: rewrite until no rule applies anywhere. A worklist starts with every candidate
// (last node first, as sweep visits them); after each rewrite it takes in the nodes whose
// match may have changed — the nodes the rewrite created, the root's users (now the
// replacement's), and the surviving inputs of the erased nodes together with their users (an
// input that lost a user may now satisfy a one-user constraint). A node is queued at most once
// at a time. An input left with more than revisit_users_up_to users is queued without its
// users: no pattern counts that many users exactly, and queueing a weight's thousand users on
// every rewrite that drops one would make a pass over them quadratic.
//
// A rule set that keeps rewriting (a rule and its inverse, a rule that rebuilds its own
// pattern) would never stop: the pass stops after PassOptions::max_rewrites rewrites and
// reports `cap_hit` (and the cap) in its statistics.
#include <chrono>
#include <optional>
#include <vector>

#include "../graph/verify.hpp"
#include "apply.hpp"
#include "rule_set.hpp"
#include "sweep.hpp"

namespace ctmatch {

/// See the header comment: the most users an input may keep for them to be revisited.
inline constexpr std::size_t revisit_users_up_to = 16;

template <class Set>
PassStats fixpoint(Graph& g, const Set& set, const PassOptions& options = {}) {
  g.bind_late();  // nodes read before their op's schema was registered
  PassStats stats;
  init_rule_stats(set, stats);
  stats.nodes_before = g.size();
  stats.cap = options.max_rewrites ? options.max_rewrites : 16 * g.size() + 64;
  auto t0 = std::chrono::steady_clock::now();
  {
    std::optional<DispatchTable> own_table;
    const DispatchTable& table = dispatch_table_for(set, own_table);
    PassContext cx(g, options, stats);
    cx.track_changes = true;
    std::vector<NodeId> work;
    std::vector<std::uint8_t> queued(g.id_bound(), 0);
    auto push = [&](NodeId id) {
      if (id >= queued.size()) queued.resize(static_cast<std::size_t>(id) + 1, 0);
      // A candidate as the sweep finds them: a live call_function node whose op has rules.
      if (queued[id] || !table.has_rules(g.live_call_ops()[id])) return;
      queued[id] = 1;
      work.push_back(id);
    };
    for (NodeId id = g.first(); id != no_node; id = g.next(id)) push(id);  // popped last first

    std::size_t rewrites = 0;
    while (!work.empty()) {
      NodeId n = work.back();
      work.pop_back();
      queued[n] = 0;
      if (!g[n].alive()) continue;
      ++stats.visited;
      for (std::uint16_t i : table.rules_for(g[n].op())) {
        if (!g[n].alive()) break;
        if (rewrites >= stats.cap) {
          stats.cap_hit = true;
          break;
        }
        ++stats.attempts;
        ApplyResult r = set.visit(i, [&](const auto& rule) { return apply_rule(rule, i, cx, n); });
        if (r != ApplyResult::Applied) continue;
        ++rewrites;
        push(n);  // still alive: other rules (or this one again) may now apply
        for (NodeId c : cx.last_created) push(c);
        for (NodeId u : cx.last_moved_users) push(u);
        for (NodeId in : cx.last_erased_inputs) {
          if (!g[in].alive()) continue;
          push(in);
          if (g[in].num_users() <= revisit_users_up_to)
            for (NodeId u : g[in].users()) push(u);
        }
      }
      if (stats.cap_hit) break;
    }
  }
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  stats.nodes_after = g.size();
  g.bind_late();  // ops whose schemas a rule registered on first use during the pass
  if (options.verify_after_pass) verify(g);
  return stats;
}

}  // namespace ctmatch
