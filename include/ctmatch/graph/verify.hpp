#pragma once
// The verifier: checks every invariant of a Graph and throws GraphError naming the first one
// broken. Passes run it after each rewrite in debug builds and in tests.
#include <algorithm>
#include <string>
#include <unordered_set>

#include "graph.hpp"

namespace ctmatch {

inline void verify(const Graph& g) {
  auto fail = [](const std::string& what) { throw GraphError("graph verification failed: " + what); };
  std::size_t count = 0;
  NodeId prev = no_node;
  std::unordered_set<std::string_view> names;
  bool seen_output = false;
  std::size_t mutating = 0;
  for (NodeId id = g.first(); id != no_node; id = g.next(id)) {
    const Node& n = g[id];
    if (++count > g.id_bound()) fail("the node list has a cycle");
    if (!n.alive()) fail("erased node " + n.name() + " is still listed");
    if (n.id() != id) fail("node " + n.name() + " has the wrong id");
    if (g.prev(id) != prev) fail("broken back link at " + n.name());
    if (prev != no_node && !g.comes_before(prev, id)) fail("order keys out of sequence at " + n.name());
    if (prev != no_node && g.ids_in_order() && prev > id) fail("ids out of node order at " + n.name());
    if (g.find(n.name()) != id) fail("name table does not lead to " + n.name());
    if (!names.insert(n.name()).second) fail("duplicate name " + n.name());
    if (seen_output) fail("node " + n.name() + " comes after the output node");
    if (n.kind() == NodeKind::Output) seen_output = true;
    if ((n.kind() == NodeKind::CallFunction) != (n.op() != no_op))
      fail("node " + n.name() + ": call_function nodes, and only they, have an op");

    // Every input is live, defined earlier, and lists this node as a user exactly once.
    std::vector<NodeId> inputs;
    auto visit = [&](NodeId in) {
      if (in >= g.id_bound() || !g[in].alive()) fail(n.name() + " uses a node that does not exist");
      if (!g.comes_before(in, id)) fail(n.name() + " uses " + g[in].name() + " before it is defined");
      if (std::find(inputs.begin(), inputs.end(), in) == inputs.end()) inputs.push_back(in);
    };
    for (const Value& v : n.args()) v.for_each_node(visit);
    for (const Kwarg& k : n.kwargs()) k.value.for_each_node(visit);
    for (NodeId in : inputs) {
      auto u = g[in].users();
      if (std::count(u.begin(), u.end(), id) != 1)
        fail(g[in].name() + " does not list its user " + n.name() + " exactly once");
    }
    // Every listed user is live and really uses this node.
    for (NodeId u : n.users()) {
      if (u >= g.id_bound() || !g[u].alive()) fail(n.name() + " lists a user that does not exist");
      bool uses = false;
      auto check = [&](NodeId in) { uses |= in == id; };
      for (const Value& v : g[u].args()) v.for_each_node(check);
      for (const Kwarg& k : g[u].kwargs()) k.value.for_each_node(check);
      if (!uses) fail(n.name() + " lists " + g[u].name() + " as a user, which does not use it");
    }
    auto users = n.users();
    for (std::size_t i = 0; i < users.size(); ++i)
      if (std::count(users.begin(), users.end(), users[i]) != 1) fail(n.name() + " lists a user twice");
    // The schema binding is current.
    if (n.kind() == NodeKind::CallFunction && n.signature() != OpRegistry::global().signature(n.op()))
      fail(n.name() + " is not bound to its op's signature");
    mutating += is_mutating(n);
    prev = id;
  }
  if (prev != g.last()) fail("the tail does not end the node list");
  if (count != g.size()) fail("live node count is " + std::to_string(g.size()) + ", listed " + std::to_string(count));
  if (mutating != g.num_mutating())
    fail("mutating node count is " + std::to_string(g.num_mutating()) + ", listed " + std::to_string(mutating));
  auto ops = g.live_call_ops();
  if (ops.size() != g.id_bound()) fail("the op array does not cover every node id");
  for (NodeId id = 0; id < g.id_bound(); ++id) {
    const Node& n = g[id];
    if (ops[id] != (n.alive() && n.kind() == NodeKind::CallFunction ? n.op() : no_op))
      fail("the op array is stale at " + n.name());
  }
}

}  // namespace ctmatch
