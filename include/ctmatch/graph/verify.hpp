#pragma once
// The verifier: checks every invariant of a Graph and throws GraphError naming the first one
// broken. Passes run it after each rewrite in debug builds and in tests, and the tools on every
// graph they read: it is linear in nodes + edges.
#include <cstdint>
#include <string>
#include <vector>

#include "graph.hpp"

namespace ctmatch {

inline void verify(const Graph& g) {
  auto fail = [](const std::string& what) { throw GraphError("graph verification failed: " + what); };
  const std::size_t bound = g.id_bound();
  auto exists = [&](NodeId id) { return id < bound && g[id].alive(); };

  // Who lists whom: for each node u, the nodes that list u as a user (`listers`, in one array
  // of edges indexed by `first_lister`), so that each edge is checked from its user's side in
  // O(1) and the whole check is linear in nodes + edges, however many users a node has (a
  // weight used by every layer) or inputs (a cat of thousands).
  std::vector<std::uint32_t> first_lister(bound + 1, 0);
  // The listed nodes, at most `bound` of them (a cycle in the list is reported below).
  auto for_each_listed = [&](auto&& f) {
    std::size_t k = 0;
    for (NodeId id = g.first(); id != no_node && id < bound && k++ < bound; id = g.next(id)) f(id);
  };
  for_each_listed([&](NodeId id) {
    for (NodeId u : g[id].users()) {
      if (!exists(u)) fail(g[id].name() + " lists a user that does not exist");
      ++first_lister[u + 1];
    }
  });
  for (std::size_t i = 0; i < bound; ++i) first_lister[i + 1] += first_lister[i];
  std::vector<NodeId> listers(first_lister[bound]);
  {
    std::vector<std::uint32_t> fill(first_lister.begin(), first_lister.end() - 1);
    for_each_listed([&](NodeId id) {
      for (NodeId u : g[id].users()) listers[fill[u]++] = id;
    });
  }
  std::vector<NodeId> listed_by(bound, no_node);  // listed_by[n] == u: n lists u (stamped per u)
  std::vector<NodeId> input_of(bound, no_node);   // input_of[n] == u: u uses n (stamped per u)

  std::size_t count = 0;
  NodeId prev = no_node;
  bool seen_output = false;
  std::size_t mutating = 0;
  for (NodeId id = g.first(); id != no_node; id = g.next(id)) {
    if (++count > bound) fail("the node list has a cycle");
    const Node& n = g[id];
    if (!n.alive()) fail("erased node " + n.name() + " is still listed");
    if (n.id() != id) fail("node " + n.name() + " has the wrong id");
    if (g.prev(id) != prev) fail("broken back link at " + n.name());
    if (prev != no_node && !g.comes_before(prev, id)) fail("order keys out of sequence at " + n.name());
    if (prev != no_node && g.ids_in_order() && prev > id) fail("ids out of node order at " + n.name());
    // Two live nodes of one name cannot both be what the name table leads to.
    if (g.find(n.name()) != id) fail("name table does not lead to " + n.name() + " (a duplicate name?)");
    if (!is_node_name(n.name())) fail("node " + quoted_name(n.name()) + " has a name that is not a node name");
    if (seen_output) fail("node " + n.name() + " comes after the output node");
    if (n.kind() == NodeKind::Output) seen_output = true;
    if ((n.kind() == NodeKind::CallFunction) != (n.op() != no_op))
      fail("node " + n.name() + ": call_function nodes, and only they, have an op");

    // The nodes that list this one as a user, each once.
    for (std::uint32_t e = first_lister[id]; e < first_lister[id + 1]; ++e) {
      if (listed_by[listers[e]] == id) fail(g[listers[e]].name() + " lists a user twice");
      listed_by[listers[e]] = id;
    }
    // Every input is live, defined earlier, and lists this node as a user; and the inputs are
    // as many as the nodes that list it, so that none lists it without being used.
    std::size_t inputs = 0;
    auto visit = [&](NodeId in) {
      if (!exists(in)) fail(n.name() + " uses a node that does not exist");
      if (!g.comes_before(in, id)) fail(n.name() + " uses " + g[in].name() + " before it is defined");
      if (input_of[in] == id) return;
      input_of[in] = id;
      ++inputs;
      if (listed_by[in] != id) fail(g[in].name() + " does not list its user " + n.name() + " exactly once");
    };
    for (const Value& v : n.args()) v.for_each_node(visit);
    for (const Kwarg& k : n.kwargs()) k.value.for_each_node(visit);
    if (inputs != first_lister[id + 1] - first_lister[id])
      for (std::uint32_t e = first_lister[id]; e < first_lister[id + 1]; ++e)
        if (input_of[listers[e]] != id) fail(g[listers[e]].name() + " lists " + n.name() + " as a user, which does not use it");
    // The schema binding is current.
    if (n.kind() == NodeKind::CallFunction && n.signature() != OpRegistry::global().signature(n.op()))
      fail(n.name() + " is not bound to its op's signature" +
           (n.signature() ? std::string() : " (registered after the node was made: call Graph::bind_late())"));
    mutating += is_mutating(n);
    prev = id;
  }
  if (prev != g.last()) fail("the tail does not end the node list");
  if (count != g.size()) fail("live node count is " + std::to_string(g.size()) + ", listed " + std::to_string(count));
  if (mutating != g.num_mutating())
    fail("mutating node count is " + std::to_string(g.num_mutating()) + ", listed " + std::to_string(mutating));
  auto ops = g.live_call_ops();
  if (ops.size() != bound) fail("the op array does not cover every node id");
  for (NodeId id = 0; id < bound; ++id) {
    const Node& n = g[id];
    if (ops[id] != (n.alive() && n.kind() == NodeKind::CallFunction ? n.op() : no_op))
      fail("the op array is stale at " + n.name());
  }
}

}  // namespace ctmatch
