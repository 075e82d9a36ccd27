// The verifier finds each broken invariant, naming it: the graphs here are broken on purpose,
// through GraphSurgery, a back door that only tests define (Graph keeps its invariants itself).
#include <doctest/doctest.h>

#include <ctmatch/graph/graph.hpp>
#include <ctmatch/graph/verify.hpp>

#include <string>

namespace ctmatch {
struct GraphSurgery {
  static Node::Users& users(Graph& g, NodeId id) { return g.nodes_[id].users_; }
  static LargeVector<OpId>& ops(Graph& g) { return g.call_ops_; }
  static void rename(Graph& g, NodeId id, std::string_view s) { g.nodes_[id].name_ = g.name_chars_.add(s); }
  static NameIndex& names(Graph& g) { return g.names_; }
  static auto& slots(Graph& g) { return g.names_.slots_; }
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
  CHECK(failure(d.g).find("the op array is stale at " + std::string(d.g[dead].name())) != std::string::npos);
}

TEST_CASE("the name table: a missing entry, a renamed node, a duplicate name, an entry out of reach") {
  auto live = [](const Graph& g) { return [&g](NodeId id) { return id < g.id_bound() && g[id].alive(); }; };
  Chain c;
  REQUIRE(GraphSurgery::names(c.g).erase("a", c.a));
  CHECK(failure(c.g).find("the name table holds 3 live entries for 4 nodes") != std::string::npos);

  Chain d;
  GraphSurgery::rename(d.g, d.a, "z");  // the table still lists it as `a`
  CHECK(failure(d.g).find("the name table does not list every node under its name") != std::string::npos);

  Chain e;
  REQUIRE(GraphSurgery::names(e.g).erase("b", e.b));
  GraphSurgery::rename(e.g, e.b, "a");
  GraphSurgery::names(e.g).insert("a", e.b, live(e.g));
  CHECK(failure(e.g).find("two live nodes are called a") != std::string::npos);

  // Move an entry from its home slot to the empty slot after it: a probe from its home then
  // stops at once, at the emptied home.
  Chain f;
  auto& slots = GraphSurgery::slots(f.g);
  const std::size_t mask = slots.size() - 1;
  NodeId moved = no_node;
  for (std::size_t i = 0; i <= mask && moved == no_node; ++i)
    if (slots[i].id != no_node && (slots[i].hash & mask) == i && slots[(i + 1) & mask].id == no_node) {
      moved = slots[i].id;
      slots[(i + 1) & mask] = slots[i];
      slots[i] = {};
    }
  REQUIRE(moved != no_node);
  CHECK(failure(f.g).find("the name table's entry of node " + std::to_string(moved) + " cannot be reached from its slot") !=
        std::string::npos);
}
