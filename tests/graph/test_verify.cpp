// The verifier finds each broken invariant, naming it: the graphs here are broken on purpose,
// through GraphSurgery, a back door that only tests define (Graph keeps its invariants itself).
#include <doctest/doctest.h>

#include <ctmatch/graph/graph.hpp>
#include <ctmatch/graph/verify.hpp>

#include <string>

namespace ctmatch {
struct GraphSurgery {
  static Node::Users& users(Graph& g, NodeId id) { return g.nodes_[id].users_; }
  static std::vector<OpId>& ops(Graph& g) { return g.call_ops_; }
};
}  // namespace ctmatch

using namespace ctmatch;

namespace {

OpId relu() { return intern_op("test.relu.default"); }
OpId add() { return intern_op("test.add.default"); }

/// x -> a = relu(x) -> b = add(a, x) -> output(b)
struct Chain {
  Graph g;
  NodeId x, a, b, out;
  Chain() {
    x = g.placeholder("x");
    a = g.call(relu(), {Value(NodeRef{x})}, {}, no_node, "a");
    b = g.call(add(), {Value(NodeRef{a}), Value(NodeRef{x})}, {}, no_node, "b");
    out = g.output({Value(NodeRef{b})});
  }
};

std::string failure(const Graph& g) {
  try {
    verify(g);
  } catch (const GraphError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("an intact graph verifies") {
  Chain c;
  CHECK(failure(c.g).empty());
}

TEST_CASE("a user listed twice is found") {
  Chain c;
  GraphSurgery::users(c.g, c.x).push_back(c.a);
  CHECK(failure(c.g).find("x lists a user twice") != std::string::npos);
}

TEST_CASE("a listed user that does not use the node is found") {
  Chain c;
  GraphSurgery::users(c.g, c.a).push_back(c.out);
  CHECK(failure(c.g).find("a lists output as a user, which does not use it") != std::string::npos);
}

TEST_CASE("a use the input does not list is found") {
  Chain c;
  auto& users = GraphSurgery::users(c.g, c.x);
  std::vector<NodeId> kept;
  for (NodeId u : users)
    if (u != c.b) kept.push_back(u);
  users.clear();
  for (NodeId u : kept) users.push_back(u);
  CHECK(failure(c.g).find("x does not list its user") != std::string::npos);
}

TEST_CASE("a user that comes before the node is found") {
  Chain c;
  GraphSurgery::users(c.g, c.b).push_back(c.a);
  CHECK(failure(c.g).find("b lists a as a user, which comes before it") != std::string::npos);
}

TEST_CASE("a user that does not exist is found") {
  Chain c;
  GraphSurgery::users(c.g, c.a).push_back(NodeId{1000});
  CHECK(failure(c.g).find("a lists a user that does not exist") != std::string::npos);
}

TEST_CASE("a stale op array is found, at a live node and at an erased one") {
  Chain c;
  GraphSurgery::ops(c.g)[c.a] = add();
  CHECK(failure(c.g).find("the op array is stale at a") != std::string::npos);

  Chain d;
  NodeId dead = d.g.call(relu(), {Value(NodeRef{d.x})}, {}, d.out);
  d.g.erase(dead);
  REQUIRE(failure(d.g).empty());
  GraphSurgery::ops(d.g)[dead] = relu();
  CHECK(failure(d.g).find("the op array is stale at " + d.g[dead].name()) != std::string::npos);
}
