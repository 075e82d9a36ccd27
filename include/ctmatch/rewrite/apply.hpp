#pragma once
// Applying one rule at one node, the same way for every rule and both drivers:
//   match (structure and the rule's check) -> safety (mutation regions, shared interior nodes)
//   -> build the replacement before the root (the earliest root, for a rule with several)
//   -> check the new nodes -> redirect every use of each root to its replacement, erase the
//      matched nodes left without users (last first).
// If the replacement declines (returns no_node), throws, or a check objects, the nodes it made
// are removed again and the graph is exactly as before; the failure is counted in the rule's
// stats. With verify_each_rewrite, the whole rewrite runs in a Graph::Transaction and the full
// verifier has the last word.
#include <algorithm>
#include <array>
#include <cassert>
#include <chrono>
#include <exception>
#include <optional>
#include <span>
#include <utility>
#include <string>
#include <vector>

#include "../graph/graph.hpp"
#include "../graph/verify.hpp"
#include "builder.hpp"
#include "rule.hpp"
#include "safety.hpp"
#include "stats.hpp"

namespace ctmatch {

/// Options common to both drivers.
struct PassOptions {
  /// Run the full graph verifier inside every rewrite's transaction (slow: O(graph) per
  /// rewrite; tests use it). A cheap local check of the touched nodes always runs.
  bool verify_each_rewrite = false;
  /// Run the verifier once after the pass (throws GraphError if the graph is broken).
#ifdef NDEBUG
  bool verify_after_pass = false;
#else
  bool verify_after_pass = true;
#endif
  /// Rethrow an exception from a replacement after rolling back, instead of counting it.
  bool rethrow = false;
  /// Record the root of every applied match in RuleStats::roots, and the node that took its
  /// uses in RuleStats::replacements.
  bool record_roots = true;
  /// Refuse matches that span a mutation (Inductor's prevent_match_across_mutations).
  bool prevent_match_across_mutations = true;
  /// Fixpoint driver: stop after this many rewrites (0: 16 per node of the input plus 64).
  std::size_t max_rewrites = 0;
};

/// The state a driver keeps for one run over one graph.
struct PassContext {
  Graph& graph;
  const PassOptions& options;
  PassStats& stats;
  MutationRegions regions;
  NameCounter names;
  /// The nodes the current rewrite created (the builder's buffer, reused across rewrites).
  std::vector<NodeId> created;
  /// Filled by apply_rule when it commits: the root's users (now the replacement's), the
  /// nodes created, and the inputs of the nodes erased (for the fixpoint worklist).
  std::vector<NodeId> last_moved_users;
  std::vector<NodeId> last_created;
  std::vector<NodeId> last_erased_inputs;
  /// Whether to fill last_moved_users, last_created and last_erased_inputs (the fixpoint
  /// driver needs them).
  bool track_changes = false;
  /// Whether a rewrite first asks the cache for what it will touch (Graph::outgrows_cache).
  bool prefetch_rewrites;

  PassContext(Graph& g, const PassOptions& o, PassStats& s)
      : graph(g), options(o), stats(s), regions(g), prefetch_rewrites(g.outgrows_cache()) {}
};

namespace detail {

/// Checked before the root's uses are redirected, so that the rest of the rewrite cannot fail:
/// every created node comes after its inputs, and the replacement comes before every user of
/// the root (a new node does: it sits just before the root; an existing one must). A
/// replacement that uses the root, or an existing node after some use, is refused.
inline void check_rewrite_locally(const Graph& g, std::span<const NodeId> created, NodeId repl, NodeId root) {
  auto fail = [](const std::string& m) { throw GraphError("rewrite check failed: " + m); };
  for (NodeId c : created) {
    if (!g[c].alive()) continue;
    auto visit = [&](NodeId in) {
      if (!g[in].alive()) fail(std::string(g[c].name()) + " uses an erased node");
      if (!g.comes_before(in, c)) fail(std::string(g[c].name()) + " uses " + std::string(g[in].name()) + ", defined after it");
    };
    for (const Value& v : g[c].args()) v.for_each_node(visit);
    for (const Kwarg& k : g[c].kwargs()) k.value.for_each_node(visit);
  }
  for (NodeId u : g[root].users())
    if (u != repl && !g.comes_before(repl, u))
      fail("the replacement " + std::string(g[repl].name()) + " comes after " + std::string(g[u].name()) + ", a user of the root");
}

}  // namespace detail

/// Every use of each root goes to its replacement (a root replaced by itself keeps them); then
/// the matched nodes left without users are erased, last first (`matched` is sorted so).
inline void redirect_and_erase(Graph& g, std::span<const NodeId> roots, std::span<const NodeId> repls,
                               std::span<const NodeId> matched, PassContext& cx) {
  if (cx.track_changes) {
    cx.last_moved_users.clear();
    cx.last_erased_inputs.clear();
  }
  for (std::size_t k = 0; k < roots.size(); ++k) {
    if (repls[k] == roots[k]) continue;
    if (cx.track_changes) {
      auto moved = g[roots[k]].users();
      cx.last_moved_users.insert(cx.last_moved_users.end(), moved.begin(), moved.end());
    }
    g.replace_all_uses(roots[k], repls[k]);
  }
  for (NodeId n : matched) {
    if (!g[n].alive() || g[n].num_users() != 0 || std::find(repls.begin(), repls.end(), n) != repls.end()) continue;
    if (cx.track_changes) {
      auto note = [&](NodeId in) { cx.last_erased_inputs.push_back(in); };
      for (const Value& v : g[n].args()) v.for_each_node(note);
      for (const Kwarg& k : g[n].kwargs()) k.value.for_each_node(note);
    }
    g.erase(n);
  }
}

/// Unchanged: the rule matched and its replacement kept every root (returned the root itself,
/// as an Inductor handler that looks and changes nothing): counted, nothing changed.
enum class ApplyResult : std::uint8_t { NoMatch, Refused, Failed, Unchanged, Applied };

namespace detail {
/// The matched nodes cleaned (a DSL match may list no_node for an alternative that did not
/// match, and a node twice) and sorted last first: the erase order, so that an interior node
/// loses its user before its turn. Written to `small` (or `big` past 64 nodes).
inline std::span<const NodeId> last_first(const Graph& g, std::span<const NodeId> raw, NodeId (&small)[64],
                                          std::vector<NodeId>& big) {
  NodeId* buf = small;
  if (raw.size() > 64) {
    big.resize(raw.size());
    buf = big.data();
  }
  std::size_t count = 0;
  for (NodeId n : raw)
    if (n != no_node && std::find(buf, buf + count, n) == buf + count) buf[count++] = n;
  std::sort(buf, buf + count, [&](NodeId a, NodeId b) { return g.comes_before(b, a); });
  return {buf, count};
}

/// How apply_rewrite makes sure no interior node is used outside the match.
enum class SharedCheck : std::uint8_t { None, Assert, Refuse };

/// What apply_rewrite needs of the rule: its replacement, called as build(state, b, repls).
using BuildReplacement = void (*)(const void* state, RewriteBuilder& b, std::span<NodeId> repls);

/// Everything after a successful match that does not depend on the rule: the safety checks,
/// the rewrite, the statistics (see apply_rule). One function for every rule: per rule, it
/// would be compiled again for each (53 rules of a port: a third of the port's machine code).
[[gnu::noinline]] inline ApplyResult apply_rewrite(PassContext& cx, std::size_t index, NodeId root,
                                                   std::span<const NodeId> roots, std::span<NodeId> repls,
                                                   std::span<const NodeId> matched, SharedCheck shared,
                                                   bool check_locally, BuildReplacement build, const void* state,
                                                   Reason* why) {
  Graph& g = cx.graph;
  RuleStats& st = cx.stats.rules[index];
  const std::size_t N = roots.size();
  assert(std::is_sorted(matched.begin(), matched.end(),
                        [&](NodeId a, NodeId b) { return g.comes_before(b, a); }));

  if (cx.options.prevent_match_across_mutations && !cx.regions.same_region(matched)) {
    if (why) why->say("refused: the match spans a mutating node");
    ++st.refused;
    return ApplyResult::Refused;
  }
  if (shared == SharedCheck::Assert) {
    assert(shared_interior_node(g, matched, roots) == no_node);  // the pattern's user counts ensure it
  } else if (shared == SharedCheck::Refuse) {
    NodeId user = no_node;
    if (NodeId s = shared_interior_node(g, matched, roots, &user); s != no_node) {
      if (why)
        why->say("refused: interior node " + std::string(g[s].name()) + " is also used by " + std::string(g[user].name()) +
                 ", outside the match");
      ++st.refused;
      return ApplyResult::Refused;
    }
  }
  if (why) {
    why->say("matches");
    return ApplyResult::Applied;
  }

  if (cx.prefetch_rewrites)
    for (NodeId n : matched) g.prefetch_rewrite_of(n);

  std::size_t ids_before = g.id_bound();
  std::size_t live_before = g.size();
  std::fill(repls.begin(), repls.end(), no_node);
  // New nodes go before the earliest root, so that they come before every root's users.
  NodeId at = root;
  for (NodeId r : roots)
    if (g.comes_before(r, at)) at = r;
  RewriteBuilder b(g, at, cx.names, cx.created);
  try {
    // Only building the replacement can fail (the rule declines or throws, an argument does
    // not fit a schema, a new node would come before one of its inputs), and all it can do to
    // the graph is create nodes (the builder is its only way in): on failure the builder
    // removes them again, newest first, and the graph is as before with no journal kept.
    // What follows cannot fail once those checks passed. With verify_each_rewrite, the whole
    // rewrite runs in a transaction and the full verifier decides.
    std::optional<Graph::Transaction> tx;
    if (cx.options.verify_each_rewrite) tx.emplace(g);
    try {
      build(state, b, repls);
      bool changes = false;
      for (std::size_t k = 0; k < N; ++k) {
        if (repls[k] == no_node) throw GraphError("the replacement declined");
        if (repls[k] >= g.id_bound() || !g[repls[k]].alive()) throw GraphError("the replacement is not a live node");
        changes |= repls[k] != roots[k];
      }
      if (!changes) {
        // The handler looked and kept every root (no exception: Inductor ports do this at
        // most of the nodes they visit). What it made is taken back; a transaction's
        // destructor rolls it back.
        if (!tx) b.discard();
        ++st.unchanged;
        return ApplyResult::Unchanged;
      }
#ifdef NDEBUG
      if (check_locally)
#else
      (void)check_locally;  // checked always, in a debug build
#endif
        for (std::size_t k = 0; k < N; ++k)
          if (repls[k] != roots[k]) detail::check_rewrite_locally(g, b.created(), repls[k], roots[k]);
    } catch (...) {
      if (!tx) b.discard();
      throw;
    }
    if (tx) {
      redirect_and_erase(g, roots, repls, matched, cx);
      verify(g);
      tx->commit();
    }
  } catch (const std::exception& e) {
    ++st.failed;
    if (st.first_error.empty()) st.first_error = std::string(g[root].name()) + ": " + e.what();
    if (cx.options.rethrow) throw;
    return ApplyResult::Failed;
  }
  if (!cx.options.verify_each_rewrite) redirect_and_erase(g, roots, repls, matched, cx);

  // Carry each root's metadata over to a new replacement that has none. The root is usually
  // erased by now (nothing reads an erased node's metadata): then it is moved, not copied.
  for (std::size_t k = 0; k < N; ++k) {
    NodeId repl = repls[k], r = roots[k];
    if (repl >= ids_before && !g[repl].meta().dtype && !g[repl].meta().shape && !g[r].meta().empty()) {
      if (g[r].alive()) g[repl].set_meta(g[r].meta());
      else g[repl].set_meta(std::move(g[r].edit_meta()));
    }
  }
  if (cx.regions.any())
    for (NodeId c : b.created()) cx.regions.inherit(c, at);
  std::size_t added = g.id_bound() - ids_before;
  st.nodes_added += added;
  st.nodes_removed += live_before + added - g.size();
  ++st.matches;
  if (b.dropped_kwargs() != 0) [[unlikely]] {
    if (st.kwargs_dropped == 0) st.first_drop = b.first_drop();
    st.kwargs_dropped += b.dropped_kwargs();
  }
  if (cx.options.record_roots) {
    // A rule that fires usually fires again: room for 32 roots at once, not 1, 2, 4, ...
    if (st.roots.capacity() == 0) {
      st.roots.reserve(32);
      st.replacements.reserve(32);
    }
    st.roots.push_back(root);  // the candidate root: a multi-root rule's first
    st.replacements.push_back(repls[0]);
  }
  if (cx.track_changes) cx.last_created.assign(b.created().begin(), b.created().end());
  return ApplyResult::Applied;
}

/// What depends on the rule after a successful match (its matched nodes, roots and
/// replacement), handed to apply_rewrite. Out of line on purpose: most attempts do not match
/// (gpt2: 440 of 480 per sweep), and they should not pay, on the way to finding that out, for
/// this function's frame (its buffers, the registers it saves).
template <Rule R>
[[gnu::noinline]] ApplyResult apply_match(const R& rule, std::size_t index, PassContext& cx, NodeId root,
                                          const typename R::match_type& m, Reason* why) {
  std::span<const NodeId> matched = rule.matched_nodes(m);
  NodeId small[64];
  std::vector<NodeId> big;
  if constexpr (!matched_last_first<R>()) matched = last_first(cx.graph, matched, small, big);
  constexpr std::size_t N = root_count<R>();
  std::array<NodeId, N> roots{root};
  if constexpr (N > 1) roots = rule.root_nodes(m);
  std::array<NodeId, N> repls;
  constexpr SharedCheck shared = allows_shared_interior<R>() ? SharedCheck::None
                                 : interior_used_inside<R>() ? SharedCheck::Assert
                                                             : SharedCheck::Refuse;
  struct State {
    const R& rule;
    const typename R::match_type& m;
  } state{rule, m};
  BuildReplacement build = [](const void* p, RewriteBuilder& b, std::span<NodeId> out) {
    const State& s = *static_cast<const State*>(p);
    if constexpr (N == 1) {
      out[0] = s.rule.replace(b, s.m);
    } else {
      std::array<NodeId, N> r = s.rule.replace(b, s.m);
      std::copy(r.begin(), r.end(), out.begin());
    }
  };
  return apply_rewrite(cx, index, root, roots, repls, matched, shared, !replaces_in_order<R>(), build, &state,
                       why);
}
}  // namespace detail

namespace detail {
/// `why`: a Reason* (explain mode) or the nullptr literal (a pass: see PatternRule::match).
/// Out of line: inlined into a driver's loop over the rules it made gpt2's and bert's sweeps
/// 6-8% slower (bench_pass, same run).
template <Rule R, class Why>
[[gnu::noinline]] ApplyResult match_and_apply(const R& rule, std::size_t index, PassContext& cx, NodeId root, Why why) {
  typename R::match_type m{};
  if (!rule.match(std::as_const(cx.graph), root, m, why)) return ApplyResult::NoMatch;
  return apply_match(rule, index, cx, root, std::as_const(m), why);
}
}  // namespace detail

/// Tries rule `rule` (index `index` in its set) at `root`, as a pass does. Only the rule's
/// prefilter (might_match) is forced inline: most attempts stop there, at the cost of a few loads.
template <Rule R>
[[gnu::always_inline]] inline ApplyResult apply_rule(const R& rule, std::size_t index, PassContext& cx, NodeId root) {
  if (!ctmatch::might_match(rule, std::as_const(cx.graph), root)) return ApplyResult::NoMatch;
  return detail::match_and_apply(rule, index, cx, root, nullptr);
}
/// The same in explain mode: says why the rule did not apply, or what it would do, in `why`,
/// and changes nothing.
template <Rule R>
ApplyResult apply_rule(const R& rule, std::size_t index, PassContext& cx, NodeId root, Reason* why) {
  return detail::match_and_apply(rule, index, cx, root, why);
}

}  // namespace ctmatch
