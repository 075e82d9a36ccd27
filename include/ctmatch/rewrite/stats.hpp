#pragma once
// What a pass reports: per rule, how often it fired, on which roots, how many nodes it added
// and removed, how many matches the safety checks refused and how many rewrites failed and were
// rolled back; for the pass, the time, the nodes visited and, for the fixpoint driver, whether
// the iteration cap was hit.
#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "../graph/graph.hpp"

namespace ctmatch {

/// `name` as a view that lives as long as the program, for a rule whose name is made when asked
/// (std::string): kept once in a pool that is never freed. The statistics hold views, so that a
/// pass makes no string per rule: the names of PatternRules are constants already.
inline std::string_view interned_rule_name(std::string_view name) {
  static std::mutex lock;
  static std::set<std::string, std::less<>> pool;
  std::lock_guard<std::mutex> hold(lock);
  auto it = pool.find(name);
  if (it == pool.end()) it = pool.emplace(name).first;
  return *it;
}

/// The name a pass reports for rule `r`: its name() itself where that is a constant (a view of
/// static storage), else interned.
template <class R>
std::string_view rule_stats_name(const R& r) {
  if constexpr (requires { typename std::bool_constant<(std::string_view(R::name()).size(), true)>; })
    return R::name();
  else
    return interned_rule_name(std::string_view(r.name()));
}

struct RuleStats {
  std::string_view name;          // valid for the whole program (rule_stats_name)
  std::size_t matches = 0;        // rewrites applied (committed)
  std::size_t nodes_added = 0;
  std::size_t nodes_removed = 0;
  std::size_t refused = 0;        // matched, but refused by a safety check
  std::size_t failed = 0;         // declined or threw during the rewrite: rolled back
  /// Matched, and the replacement kept the root (returned it): a handler that looked and
  /// changed nothing. Inductor's `matched` counts these too: it is matches + unchanged.
  std::size_t unchanged = 0;
  std::vector<NodeId> roots;      // the root of every applied match, in application order
  std::vector<NodeId> replacements;  // the node that took each root's uses (roots[i]'s is replacements[i])
  std::string first_error;        // message of the first failure, if any
  std::size_t kwargs_dropped = 0; // kwargs of matched nodes that a replacement left out: the new op has no such argument
  std::string first_drop;         // which node and kwarg, the first time

  void merge(const RuleStats& o) {
    matches += o.matches;
    nodes_added += o.nodes_added;
    nodes_removed += o.nodes_removed;
    refused += o.refused;
    failed += o.failed;
    unchanged += o.unchanged;
    roots.insert(roots.end(), o.roots.begin(), o.roots.end());
    replacements.insert(replacements.end(), o.replacements.begin(), o.replacements.end());
    if (first_error.empty()) first_error = o.first_error;
    kwargs_dropped += o.kwargs_dropped;
    if (first_drop.empty()) first_drop = o.first_drop;
  }
};

struct PassStats {
  /// One entry per rule of the set, in declaration order (a name may appear twice).
  std::vector<RuleStats> rules;
  std::size_t nodes_before = 0;
  std::size_t nodes_after = 0;
  std::size_t visited = 0;     // candidate roots visited (fixpoint: including re-visits)
  std::size_t attempts = 0;    // rule match attempts
  double seconds = 0;          // wall time of the pass
  bool cap_hit = false;        // fixpoint only: stopped at the rewrite cap, not at a fixed point
  std::size_t cap = 0;         // fixpoint only: the cap that was in force

  std::size_t total_matches() const {
    std::size_t n = 0;
    for (const RuleStats& r : rules) n += r.matches;
    return n;
  }
  /// Statistics merged by rule name, in order of first declaration.
  std::vector<RuleStats> by_name() const {
    std::vector<RuleStats> out;
    for (const RuleStats& r : rules) {
      auto it = std::find_if(out.begin(), out.end(), [&](const RuleStats& o) { return o.name == r.name; });
      if (it == out.end()) out.push_back(r);
      else it->merge(r);
    }
    return out;
  }
  /// Rule name -> number of matches, for rules that fired (as expected_dev.json lists them).
  std::map<std::string, std::size_t> matches() const {
    std::map<std::string, std::size_t> m;
    for (const RuleStats& r : rules)
      if (r.matches) m[std::string(r.name)] += r.matches;
    return m;
  }
  /// Rule name -> sorted names of the roots it fired on (as expected_dev.json lists them).
  std::map<std::string, std::vector<std::string>> root_names(const Graph& g) const {
    std::map<std::string, std::vector<std::string>> m;
    for (const RuleStats& r : rules)
      for (NodeId id : r.roots) m[std::string(r.name)].emplace_back(g[id].name());
    for (auto& [name, v] : m) std::sort(v.begin(), v.end());
    return m;
  }
};

/// Op name -> number of call_function nodes (as torch spells the target, without
/// `torch.ops.`: `aten.mm.default`, `operator.getitem`), the `hist` of the tools.
inline std::map<std::string, std::size_t> op_histogram(const Graph& g) {
  std::vector<std::size_t> counts;
  for (const Node& n : g.nodes()) {
    if (n.kind() != NodeKind::CallFunction) continue;
    if (n.op() >= counts.size()) counts.resize(n.op() + 1, 0);
    ++counts[n.op()];
  }
  std::map<std::string, std::size_t> h;
  for (OpId op = 0; op < counts.size(); ++op)
    if (counts[op]) h.emplace(std::string(op_name(op)), counts[op]);
  return h;
}

}  // namespace ctmatch
