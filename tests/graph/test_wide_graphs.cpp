// Nodes with very many users or inputs: users lists past Graph's slot-table threshold stay
// exact through creation, erasure, replace_all_uses and every kind of undo. (That this is
// linear is bench_fanout's business.)
#include <doctest/doctest.h>

#include <ctmatch/graph/graph.hpp>
#include <ctmatch/graph/verify.hpp>

#include <algorithm>
#include <vector>

using namespace ctmatch;

namespace {

OpId relu() { return intern_op("test.relu.default"); }
OpId cat() { return intern_op("test.cat.default"); }

/// x with `n` relu users, all read by one cat; returns x's id.
NodeId fan(Graph& g, std::size_t n, std::vector<NodeId>& users) {
  NodeId x = g.placeholder("x");
  std::vector<Value> items;
  for (std::size_t i = 0; i < n; ++i) {
    users.push_back(g.call(relu(), {Value(NodeRef{x})}));
    items.emplace_back(NodeRef{users.back()});
  }
  NodeId c = g.call(cat(), {Value::list(std::move(items))});
  g.output({Value(NodeRef{c})});
  return x;
}

std::vector<NodeId> sorted(std::span<const NodeId> s) {
  std::vector<NodeId> v(s.begin(), s.end());
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

TEST_CASE("a long users list stays exact: erase users in any order, add new ones, undo all of it") {
  Graph g;
  std::vector<NodeId> users;
  NodeId x = fan(g, 1000, users);
  verify(g);
  const std::vector<NodeId> before(g[x].users().begin(), g[x].users().end());
  const Graph copy = g;
  {
    Graph::Transaction t(g);
    // Every other user replaced by a new one (a rewrite of each), from the middle outwards.
    for (std::size_t k = 0; k < users.size(); k += 2) {
      std::size_t i = (k * 7919) % users.size();
      if (!g[users[i]].alive()) continue;
      NodeId r = g.call(relu(), {Value(NodeRef{x})}, {}, users[i]);
      g.replace_all_uses(users[i], r);
      g.erase(users[i]);
    }
    verify(g);
    CHECK(g[x].num_users() == 1000);
  }  // rolled back
  verify(g);
  CHECK(std::vector<NodeId>(g[x].users().begin(), g[x].users().end()) == before);  // order too
  CHECK(g.size() == copy.size());
  // Committed, and then the list shrinks past the threshold and grows again.
  {
    Graph::Transaction t(g);
    for (std::size_t i = 0; i + 1 < users.size(); i += 3) {
      NodeId r = g.call(relu(), {Value(NodeRef{x})}, {}, users[i]);
      g.replace_all_uses(users[i], r);
      g.erase(users[i]);
    }
    t.commit();
  }
  verify(g);
  CHECK(g[x].num_users() == 1000);
  // Drop users until a handful remain: each drop keeps the list exact.
  std::vector<NodeId> now = sorted(g[x].users());
  for (std::size_t i = 0; i + 5 < now.size(); ++i) g.set_args(now[i], {Value(1)}, {});
  verify(g);
  CHECK(sorted(g[x].users()) == std::vector<NodeId>(now.end() - 5, now.end()));
  for (std::size_t i = 0; i + 5 < now.size(); ++i) g.set_args(now[i], {Value(NodeRef{x})}, {});
  verify(g);
  CHECK(g[x].num_users() == 1000);
}

TEST_CASE("replace_all_uses onto a node that already has many of the same users") {
  Graph g;
  NodeId y = g.placeholder("y");
  std::vector<NodeId> users;
  NodeId x = fan(g, 300, users);
  // Every user reads x and y; y's list is long too. x's uses go to y: each user is listed once.
  for (NodeId u : users) g.set_args(u, {Value(NodeRef{x}), Value(NodeRef{y})}, {});
  {
    Graph::Transaction t(g);
    CHECK(g.replace_all_uses(x, y) == 300);
    CHECK(g[x].num_users() == 0);
    CHECK(g[y].num_users() == 300);
    verify(g);
  }
  verify(g);
  CHECK(g[x].num_users() == 300);
  CHECK(g[y].num_users() == 300);
}

TEST_CASE("wide nodes verify, and a node read several times by one user is one use") {
  Graph g;
  std::vector<NodeId> users;
  fan(g, 200, users);
  CHECK_NOTHROW(verify(g));
  // A node listed twice as an input of one user is one use: the cat of the same node twice.
  Graph h;
  NodeId a = h.placeholder("a");
  NodeId c = h.call(cat(), {Value::list({Value(NodeRef{a}), Value(NodeRef{a}), Value(NodeRef{a})})});
  h.output({Value(NodeRef{c})});
  CHECK_NOTHROW(verify(h));
  CHECK(h[a].num_users() == 1);
}
