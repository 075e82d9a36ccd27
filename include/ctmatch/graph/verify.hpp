#pragma once
// The verifier: checks every invariant of a Graph and throws GraphError naming the first one
// broken. Passes run it after each rewrite in debug builds and in tests, and the tools on every
// graph they read: it is linear in nodes + edges.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "graph.hpp"

namespace ctmatch {

namespace detail {

/// The exact check of the use lists, which verify() runs only when its fingerprints of them
/// disagree: returns the first wrong edge in node order, or "". The list of nodes is sound
/// (verify() has checked it). Linear in nodes + edges, with four arrays indexed by node id.
inline std::string find_wrong_edge(const Graph& g) {
  const std::size_t bound = g.id_bound();
  // Who lists whom, built as the walk goes: a node's users all come after it (checked when it
  // lists them), so when the walk reaches u every node that lists u has put itself on u's chain
  // (`lister_head`, linked through `listers`). Each edge is then checked from its user's side
  // in O(1), however many users a node has or inputs.
  constexpr std::uint32_t end_of_chain = UINT32_MAX;
  struct Lister {
    NodeId node;
    std::uint32_t next;
  };
  LargeVector<std::uint32_t> lister_head(bound, end_of_chain);
  LargeVector<Lister> listers;
  LargeVector<NodeId> listed_by(bound, no_node);  // listed_by[n] == u: n lists u (stamped per u)
  LargeVector<NodeId> input_of(bound, no_node);   // input_of[n] == u: u uses n (stamped per u)
  for (NodeId id = g.first(); id != no_node; id = g.next(id)) {
    const Node& n = g[id];
    // The nodes that list this one as a user, each once.
    std::size_t num_listers = 0;
    for (std::uint32_t e = lister_head[id]; e != end_of_chain; e = listers[e].next, ++num_listers) {
      NodeId l = listers[e].node;
      if (listed_by[l] == id) return std::string(g[l].name()) + " lists a user twice";
      listed_by[l] = id;
    }
    // Every input is live, defined earlier, and lists this node as a user; and the inputs are
    // as many as the nodes that list it, so that none lists it without being used.
    std::size_t inputs = 0;
    std::string wrong;
    auto visit = [&](NodeId in) {
      if (!wrong.empty()) return;
      if (!g.live(in)) wrong = std::string(n.name()) + " uses a node that does not exist";
      else if (!g.comes_before(in, id)) wrong = std::string(n.name()) + " uses " + std::string(g[in].name()) + " before it is defined";
      else if (input_of[in] != id) {
        input_of[in] = id;
        ++inputs;
        if (listed_by[in] != id) wrong = std::string(g[in].name()) + " does not list its user " + std::string(n.name()) + " exactly once";
      }
    };
    for (const Value& v : n.args()) v.for_each_node(visit);
    for (const Kwarg& k : n.kwargs()) k.value.for_each_node(visit);
    if (!wrong.empty()) return wrong;
    if (inputs != num_listers)
      for (std::uint32_t e = lister_head[id]; e != end_of_chain; e = listers[e].next)
        if (input_of[listers[e].node] != id)
          return std::string(g[listers[e].node].name()) + " lists " + std::string(n.name()) + " as a user, which does not use it";
    // Its own users: live, later in the list, and chained for their own turn.
    for (NodeId u : n.users()) {
      if (!g.live(u)) return std::string(n.name()) + " lists a user that does not exist";
      if (!g.comes_before(id, u)) return std::string(n.name()) + " lists " + std::string(g[u].name()) + " as a user, which comes before it";
      listers.push_back({id, lister_head[u]});
      lister_head[u] = static_cast<std::uint32_t>(listers.size() - 1);
    }
  }
  return {};
}

}  // namespace detail

inline void verify(const Graph& g) {
  auto fail = [](const std::string& what) { throw GraphError("graph verification failed: " + what); };
  const std::size_t bound = g.id_bound();

  auto ops = g.live_call_ops();
  if (ops.size() != bound) fail("the op array does not cover every node id");
  std::size_t calls = 0;  // live call_function nodes

  // The use lists must hold exactly the uses: the multiset of edges (n, u) that the nodes' users
  // lists hold equals the set of edges (in, u) for the distinct inputs `in` of each node u. The
  // walk sums a 64-bit mix of each edge from both sides (a wrong, missing or extra edge changes
  // a sum, but with odds of 2^-64) and checks the users' side at once: live and later. Equal
  // sums then also vouch for the inputs' side: each input is a node of the walk that lists its
  // user. No array indexed by node id is needed (on a graph of millions of nodes, such fresh
  // arrays cost as much as the rest of the check), and only when the sums differ does
  // detail::find_wrong_edge look for the edge to name.
  std::uint64_t edges_listed = 0, edges_used = 0;
  bool users_sound = true;  // every listed user is live and comes later
  std::vector<NodeId> inputs;  // one node's distinct inputs

  std::size_t count = 0;
  NodeId prev = no_node;
  bool seen_output = false;
  std::size_t mutating = 0;
  // The name index is checked after the walk, in one pass over its slots (NameIndex::check):
  // the walk marks the listed nodes and sums their entries' fingerprints.
  std::vector<bool> listed(bound);
  std::uint64_t names_fingerprint = 0;
  for (NodeId id = g.first(); id != no_node; id = g.next(id)) {
    if (++count > bound) fail("the node list has a cycle");
    const Node& n = g[id];
    if (!n.alive()) fail("erased node " + std::string(n.name()) + " is still listed");
    if (n.id() != id) fail("node " + std::string(n.name()) + " has the wrong id");
    if (g.prev(id) != prev) fail("broken back link at " + std::string(n.name()));
    if (prev != no_node && !g.comes_before(prev, id)) fail("order keys out of sequence at " + std::string(n.name()));
    if (prev != no_node && g.ids_in_order() && prev > id) fail("ids out of node order at " + std::string(n.name()));
    listed[id] = true;
    names_fingerprint += NameIndex::entry_fingerprint(n.name(), id);
    if (!is_node_name(n.name())) fail("node " + quoted_name(n.name()) + " has a name that is not a node name");
    if (seen_output) fail("node " + std::string(n.name()) + " comes after the output node");
    if (n.kind() == NodeKind::Output) seen_output = true;
    if ((n.kind() == NodeKind::CallFunction) != (n.op() != no_op))
      fail("node " + std::string(n.name()) + ": call_function nodes, and only they, have an op");

    inputs.clear();
    auto visit = [&](NodeId in) { inputs.push_back(in); };
    for (const Value& v : n.args()) v.for_each_node(visit);
    for (const Kwarg& k : n.kwargs()) k.value.for_each_node(visit);
    if (inputs.size() > 1) {  // a node used twice is one edge
      std::sort(inputs.begin(), inputs.end());
      inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
    }
    for (NodeId in : inputs) edges_used += mix64((std::uint64_t{in} << 32) | id);
    for (NodeId u : n.users()) {
      users_sound = users_sound && g.live(u) && g.comes_before(id, u);
      edges_listed += mix64((std::uint64_t{id} << 32) | u);
    }

    // The schema binding is current.
    if (n.kind() == NodeKind::CallFunction && n.signature() != OpRegistry::global().signature(n.op()))
      fail(std::string(n.name()) + " is not bound to its op's signature" +
           (n.signature() ? std::string() : " (registered after the node was made: call Graph::bind_late())"));
    if (ops[id] != (n.kind() == NodeKind::CallFunction ? n.op() : no_op)) fail("the op array is stale at " + std::string(n.name()));
    calls += n.kind() == NodeKind::CallFunction;
    mutating += is_mutating(n);
    prev = id;
  }
  if (prev != g.last()) fail("the tail does not end the node list");
  if (count != g.size()) fail("live node count is " + std::to_string(g.size()) + ", listed " + std::to_string(count));
  if (!users_sound || edges_listed != edges_used) {
    std::string wrong = detail::find_wrong_edge(g);
    fail(wrong.empty() ? "the use lists do not match the uses" : wrong);
  }
  std::string names = g.check_name_index(count, names_fingerprint, [&](NodeId id) { return id < bound && listed[id]; });
  if (!names.empty()) fail(names);
  if (mutating != g.num_mutating())
    fail("mutating node count is " + std::to_string(g.num_mutating()) + ", listed " + std::to_string(mutating));
  // The op array: right at every live node (above); no_op at every other id, which only needs
  // counting here, and the culprit found when the count is off.
  std::size_t ops_set = 0;
  for (OpId op : ops) ops_set += op != no_op;
  if (ops_set != calls)
    for (NodeId id = 0; id < bound; ++id)
      if (!g[id].alive() && ops[id] != no_op) fail("the op array is stale at " + std::string(g[id].name()));
}

}  // namespace ctmatch
