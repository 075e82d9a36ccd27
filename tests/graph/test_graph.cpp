#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <vector>

#include <ctmatch/graph.hpp>

using namespace ctmatch;

namespace {
// A signature for a test op: test.scale(Tensor x, *, ScalarType dtype, bool clamp=False, float scale=1.0)
OpId scale_op() {
  static OpId id = [] {
    OpId op = intern_op("test.scale.default");
    OpSignature sig;
    sig.params = {{"x", false, std::nullopt},
                  {"dtype", true, std::nullopt},
                  {"clamp", true, Value(false)},
                  {"scale", true, Value(1.0)}};
    OpRegistry::global().set_signature(op, sig);
    return op;
  }();
  return id;
}
OpId mm_op() { return intern_op("test.mm.default"); }

std::vector<std::string> order(const Graph& g) {
  std::vector<std::string> names;
  for (const Node& n : g.nodes()) names.emplace_back(n.name());
  return names;
}
}  // namespace

TEST_CASE("ops are interned once") {
  CHECK(intern_op("aten.mm.default") == intern_op("aten.mm.default"));
  CHECK(intern_op("aten.mm.default") != intern_op("aten.bmm.default"));
  CHECK(op_name(intern_op("aten.bmm.default")) == "aten.bmm.default");
  CHECK(OpRegistry::global().find("never.interned.op") == no_op);
}

TEST_CASE("building a graph keeps users, names and order") {
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId w = g.placeholder("w");
  NodeId mm = g.call(mm_op(), {NodeRef{x}, NodeRef{w}});
  NodeId mm2 = g.call(mm_op(), {NodeRef{mm}, NodeRef{mm}});
  NodeId out = g.output({NodeRef{mm2}});
  verify(g);
  CHECK(g.size() == 5);
  CHECK(g[mm].name() == "mm");
  CHECK(g[mm2].name() == "mm_1");
  CHECK(g[x].users().size() == 1);
  CHECK(g[mm].num_users() == 1);  // distinct users: mm_1 uses mm twice
  CHECK(g[mm2].users()[0] == out);
  CHECK(g.comes_before(x, mm2));
  CHECK_FALSE(g.comes_before(mm2, mm));
  CHECK(g.find("mm_1") == mm2);
  CHECK_THROWS_AS(g.placeholder("x"), GraphError);
  CHECK_THROWS_AS(g.call(mm_op(), {NodeRef{999}}), GraphError);
  CHECK(g.size() == 5);
  verify(g);
}

TEST_CASE("insert before, replace all uses, erase and dead-code elimination") {
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId a = g.call(mm_op(), {NodeRef{x}, NodeRef{x}});
  NodeId b = g.call(mm_op(), {NodeRef{a}, NodeRef{x}});
  NodeId out = g.output({NodeRef{b}});
  NodeId c = g.call(mm_op(), {NodeRef{x}, NodeRef{x}}, {}, b, "fresh");
  CHECK(order(g) == std::vector<std::string>{"x", "mm", "fresh", "mm_1", "output"});
  CHECK(g.replace_all_uses(a, c) == 1);
  CHECK(g[a].num_users() == 0);
  CHECK(g[b].args()[0] == Value(NodeRef{c}));
  CHECK_THROWS_AS(g.erase(c), GraphError);
  CHECK(g.eliminate_dead_code() == 1);  // only `mm`
  CHECK_FALSE(g[a].alive());
  CHECK(order(g) == std::vector<std::string>{"x", "fresh", "mm_1", "output"});
  CHECK(g[out].args()[0] == Value::tuple({NodeRef{b}}));
  verify(g);
}

TEST_CASE("a schema resolves positional, keyword and default forms to one argument") {
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId s1 = g.call(scale_op(), {NodeRef{x}}, {{"dtype", ScalarType::Float}, {"scale", 0.5}});
  NodeId s2 = g.call(scale_op(), {}, {{"scale", 2.0}, {"x", NodeRef{s1}}, {"dtype", ScalarType::Half}, {"clamp", true}});
  verify(g);
  const Node& n1 = g[s1];
  CHECK(*n1.arg(0) == Value(NodeRef{x}));
  CHECK(*n1.arg(1) == Value(ScalarType::Float));
  CHECK(*n1.arg(2) == Value(false));  // default
  CHECK_FALSE(n1.arg_written(2));
  CHECK(*n1.arg(3) == Value(0.5));
  CHECK(*n1.arg("clamp") == Value(false));
  CHECK(n1.arg(4) == nullptr);
  const Node& n2 = g[s2];
  CHECK(*n2.arg(0) == Value(NodeRef{s1}));
  CHECK(*n2.arg(2) == Value(true));
  CHECK(g[s1].users()[0] == s2);

  CHECK_THROWS_WITH_AS(g.call(scale_op(), {NodeRef{x}, ScalarType::Float}), doctest::Contains("positional"), GraphError);
  CHECK_THROWS_WITH_AS(g.call(scale_op(), {NodeRef{x}}), doctest::Contains("missing required argument 'dtype'"), GraphError);
  CHECK_THROWS_WITH_AS(g.call(scale_op(), {NodeRef{x}}, {{"dtype", ScalarType::Float}, {"bogus", 1}}),
                       doctest::Contains("no argument 'bogus'"), GraphError);
  CHECK(g.size() == 3);
  verify(g);
}

TEST_CASE("kwargs bind alike in schema order, out of order, and given twice is refused") {
  // Binding tries the parameter after the last one bound before searching the schema: kwargs in
  // schema order (as replacements write them), with gaps, or in any order all resolve the same.
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId in_order = g.call(scale_op(), {NodeRef{x}}, {{"dtype", ScalarType::Half}, {"clamp", true}, {"scale", 3.0}});
  NodeId gap = g.call(scale_op(), {NodeRef{x}}, {{"dtype", ScalarType::Half}, {"scale", 3.0}});
  NodeId reversed = g.call(scale_op(), {}, {{"scale", 3.0}, {"clamp", true}, {"dtype", ScalarType::Half}, {"x", NodeRef{x}}});
  for (NodeId id : {in_order, gap, reversed}) {
    CHECK(*g[id].arg(0) == Value(NodeRef{x}));
    CHECK(*g[id].arg(1) == Value(ScalarType::Half));
    CHECK(*g[id].arg(3) == Value(3.0));
  }
  CHECK(*g[in_order].arg(2) == Value(true));
  CHECK(*g[gap].arg(2) == Value(false));
  CHECK_FALSE(g[gap].arg_written(2));
  CHECK(*g[reversed].arg(2) == Value(true));
  CHECK(g[reversed].arg(1) == g[reversed].kwarg("dtype"));
  CHECK_THROWS_WITH_AS(g.call(scale_op(), {NodeRef{x}}, {{"x", NodeRef{x}}, {"dtype", ScalarType::Half}}),
                       doctest::Contains("'x' given twice"), GraphError);
  CHECK_THROWS_WITH_AS(g.call(scale_op(), {NodeRef{x}}, {{"dtype", ScalarType::Half}, {"dtype", ScalarType::Float}}),
                       doctest::Contains("'dtype' given twice"), GraphError);
  verify(g);
}

TEST_CASE("a layout given with the arguments binds as the schema does; one that does not fit is bound by name") {
  // test.scale(Tensor x, *, ScalarType dtype, bool clamp=False, float scale=1.0), written as
  // scale(x, dtype=Half, scale=2.0): clamp comes from its default.
  constexpr std::int16_t D = Node::from_default;
  Graph g;
  NodeId x = g.placeholder("x");
  auto make = [&](std::vector<std::int16_t> layout) {
    NodeSpec s{NodeKind::CallFunction, scale_op(), {}, {}, {NodeRef{x}},
               {{"dtype", Value(ScalarType::Half)}, {"scale", Value(2.0)}}};
    s.layout = layout;
    return g.create(std::move(s));
  };
  const std::vector<std::vector<std::int16_t>> layouts = {
      {0, -1, D, -2},      // the right one
      {0, -1, D},          // one entry short
      {0, -2, D, -1},      // kwargs under the wrong parameters
      {0, -1, D, -1},      // a kwarg placed twice, the other not at all
      {0, -1, D, -3},      // a kwarg that is not there
      {-1, -2, D, D},      // the positional argument as a kwarg; scale left to its default
      {0, D, D, -2},       // dtype, required, left to a default it does not have
  };
  for (const auto& layout : layouts) {
    CAPTURE(layout.size());
    NodeId n = make(layout);
    const Node& node = g[n];
    REQUIRE(node.signature() != nullptr);
    CHECK(node.arg(0)->node() == x);
    CHECK(*node.arg(1) == Value(ScalarType::Half));
    CHECK(*node.arg(2) == Value(false));
    CHECK(!node.arg_written(2));
    CHECK(*node.arg(3) == Value(2.0));
    CHECK(node.arg_written(3));
  }
  // Graph::layout_fits tells the fitting layout from the others; a spec that carries its answer
  // is bound by it. An answer given for another signature is not taken: the layout is checked
  // (this one does not fit) and the node bound by name.
  const std::vector<Kwarg> kwargs = {{"dtype", Value(ScalarType::Half)}, {"scale", Value(2.0)}};
  const OpSignature* sig = OpRegistry::global().signature(scale_op());
  CHECK(Graph::layout_fits(NodeKind::CallFunction, scale_op(), layouts[0], 1, kwargs) == sig);
  for (std::size_t i = 1; i < layouts.size(); ++i)
    CHECK(Graph::layout_fits(NodeKind::CallFunction, scale_op(), layouts[i], 1, kwargs) == nullptr);
  CHECK(Graph::layout_fits(NodeKind::CallFunction, scale_op(), layouts[0], 0, kwargs) == nullptr);
  OpSignature other;
  other.params = {{"x", false, std::nullopt}, {"dtype", true, std::nullopt}, {"clamp", true, Value(false)},
                  {"scale", true, Value(1.0)}};
  for (std::size_t i : {std::size_t{0}, std::size_t{2}}) {
    NodeSpec s{NodeKind::CallFunction, scale_op(), {}, {}, {NodeRef{x}}, kwargs};
    s.layout = layouts[i];
    s.layout_fits = i == 0 ? sig : &other;
    const Node& node = g[g.create(std::move(s))];
    CHECK(node.signature() == sig);
    CHECK(*node.arg(1) == Value(ScalarType::Half));
    CHECK(*node.arg(3) == Value(2.0));
    CHECK(!node.arg_written(2));
  }
  // Arguments that do not fit the schema still fail with a layout given.
  NodeSpec missing{NodeKind::CallFunction, scale_op(), {}, {}, {NodeRef{x}}, {}};
  const std::vector<std::int16_t> no_dtype = {0, D, D, D};
  missing.layout = no_dtype;
  CHECK_THROWS_WITH_AS(g.create(std::move(missing)), doctest::Contains("missing required argument 'dtype'"),
                       GraphError);
  verify(g);
}

TEST_CASE("remove_newest takes a creation back: users, names, ids and counts as before") {
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId a = g.call(mm_op(), {NodeRef{x}, NodeRef{x}});
  NodeId out = g.output({NodeRef{a}});
  auto users = [&](NodeId n) { return std::vector<NodeId>(g[n].users().begin(), g[n].users().end()); };
  const auto x_users = users(x), a_users = users(a);
  const std::size_t size = g.size(), bound = g.id_bound();
  const std::vector<OpId> ops(g.live_call_ops().begin(), g.live_call_ops().end());

  // Two new nodes before the output, the second using the first and x: removed newest first.
  NodeId b = g.call(mm_op(), {NodeRef{a}, NodeRef{x}}, {}, out, "b");
  NodeId c = g.call(scale_op(), {NodeRef{b}}, {{"dtype", Value(ScalarType::Half)}}, out, "c");
  CHECK_THROWS_AS(g.remove_newest(b), GraphError);  // not the newest
  CHECK_THROWS_AS(g.remove_newest(out), GraphError);
  g.remove_newest(c);
  CHECK_THROWS_AS(g.remove_newest(x), GraphError);  // has users, and is not the newest
  g.remove_newest(b);

  CHECK(g.size() == size);
  CHECK(g.id_bound() == bound);
  CHECK(users(x) == x_users);
  CHECK(users(a) == a_users);
  CHECK(order(g) == std::vector<std::string>{"x", "mm", "output"});
  CHECK(g.find("b") == no_node);
  CHECK(g.find("c") == no_node);
  CHECK(std::equal(ops.begin(), ops.end(), g.live_call_ops().begin(), g.live_call_ops().end()));
  verify(g);
  // The ids and names are free again.
  CHECK(g.call(mm_op(), {NodeRef{x}, NodeRef{a}}, {}, out, "b") == b);

  // Inside a transaction, which journals creations, it is refused.
  {
    Graph::Transaction tx(g);
    CHECK_THROWS_AS(g.remove_newest(g.id_bound() - 1), GraphError);
  }
  verify(g);
}

TEST_CASE("keep_first_args saves each watched node's arguments at their first change only") {
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId y = g.placeholder("y");
  NodeId a = g.call(mm_op(), {NodeRef{x}, NodeRef{y}});
  NodeId b = g.call(mm_op(), {NodeRef{a}, NodeRef{x}});
  NodeId out = g.output({NodeRef{b}});
  g.set_args(b, {NodeRef{a}, NodeRef{y}}, {});  // before keep_first_args: not saved
  g.keep_first_args();
  CHECK(g.first_args().empty());
  NodeId c = g.call(mm_op(), {NodeRef{y}, NodeRef{y}}, {}, b, "c");  // made after: not watched
  g.set_args(c, {NodeRef{x}, NodeRef{x}}, {});
  CHECK(g.replace_all_uses(a, c) == 1);              // b's first change
  g.set_args(b, {NodeRef{c}, NodeRef{x}}, {});       // its second: the first arguments stay
  {
    Graph::Transaction tx(g);  // undone: the output's arguments come back, the saved ones stay
    g.replace_all_uses(b, c);
  }
  CHECK(g[out].args()[0] == Value::tuple({NodeRef{b}}));
  REQUIRE(g.first_args().size() == 2);
  CHECK(std::ranges::equal(g.first_args().at(b).args, std::vector<Value>{NodeRef{a}, NodeRef{y}}));
  CHECK(std::ranges::equal(g.first_args().at(out).args, std::vector<Value>{Value::tuple({NodeRef{b}})}));
  CHECK_FALSE(g.first_args().contains(c));
  CHECK(Graph(g).first_args().size() == 2);  // copies keep them
  g.keep_first_args();  // starts again
  CHECK(g.first_args().empty());
  verify(g);
}

TEST_CASE("a transaction that is not committed leaves the graph exactly as it was") {
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId a = g.call(mm_op(), {NodeRef{x}, NodeRef{x}});
  NodeId b = g.call(mm_op(), {NodeRef{a}, NodeRef{x}});
  NodeId out = g.output({NodeRef{b}});
  auto snapshot = [&] {
    std::vector<std::tuple<std::string, std::vector<Value>, std::vector<NodeId>>> s;
    for (const Node& n : g.nodes())
      s.emplace_back(n.name(), std::vector<Value>(n.args().begin(), n.args().end()),
                     std::vector<NodeId>(n.users().begin(), n.users().end()));
    return s;
  };
  auto before = snapshot();
  auto id_bound = g.id_bound();
  {
    Graph::Transaction tx(g);
    NodeId n = g.call(mm_op(), {NodeRef{x}, NodeRef{x}}, {}, b, "new");
    g.replace_all_uses(b, n);
    g.erase(b);
    g.erase(a);
    CHECK(g.find("mm") == no_node);
    CHECK(g[out].args()[0] == Value::tuple({NodeRef{n}}));
    verify(g);
  }  // no commit: rolled back
  verify(g);
  CHECK(snapshot() == before);
  CHECK(g.id_bound() == id_bound);
  CHECK(g.find("mm") == a);
  CHECK(g.find("new") == no_node);

  {
    Graph::Transaction tx(g);
    NodeId n = g.call(mm_op(), {NodeRef{x}, NodeRef{x}}, {}, b, "new");
    g.replace_all_uses(b, n);
    g.erase(b);
    tx.commit();
  }
  verify(g);
  CHECK(g.find("new") != no_node);
  CHECK(g.find("mm_1") == no_node);
}

TEST_CASE("the op array, the count of mutating nodes and id order follow every change, rollbacks included") {
  // An op without a signature writes when it carries a non-None out= kwarg.
  const OpId w = intern_op("test.write_out.default");
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId a = g.call(mm_op(), {NodeRef{x}, NodeRef{x}});
  NodeId b = g.call(w, {NodeRef{a}}, {{"out", Value(NodeRef{x})}});
  NodeId out = g.output({NodeRef{b}});
  auto ops = [&] { return std::vector<OpId>(g.live_call_ops().begin(), g.live_call_ops().end()); };
  CHECK(ops() == std::vector<OpId>{no_op, mm_op(), w, no_op});
  CHECK(g.num_mutating() == 1);
  CHECK(g.ids_in_order());

  g.set_args(b, {NodeRef{a}}, {});  // no out=: no longer a write
  CHECK(g.num_mutating() == 0);
  {
    Graph::Transaction tx(g);
    g.set_args(b, {NodeRef{a}}, {{"out", Value(NodeRef{x})}});
    NodeId c = g.call(w, {NodeRef{x}}, {{"out", Value(NodeRef{x})}}, a);  // before a: ids leave node order
    CHECK(g.num_mutating() == 2);
    CHECK_FALSE(g.ids_in_order());
    CHECK(ops() == std::vector<OpId>{no_op, mm_op(), w, no_op, w});
    g.replace_all_uses(b, a);
    g.erase(b);
    CHECK(g.num_mutating() == 1);
    CHECK(ops()[b] == no_op);
    CHECK(ops()[c] == w);
    verify(g);
  }  // rolled back
  verify(g);
  CHECK(ops() == std::vector<OpId>{no_op, mm_op(), w, no_op});
  CHECK(g.num_mutating() == 0);

  g.set_args(b, {NodeRef{a}}, {{"out", Value(NodeRef{x})}});
  Graph copy = g;
  CHECK(copy.num_mutating() == 1);
  CHECK(std::vector<OpId>(copy.live_call_ops().begin(), copy.live_call_ops().end()) == ops());
  g.replace_all_uses(b, a);
  g.erase(b);
  CHECK(g.num_mutating() == 0);
  CHECK(ops()[b] == no_op);
  CHECK(copy.num_mutating() == 1);
  CHECK(g[out].args()[0] == Value::tuple({NodeRef{a}}));
  verify(g);
  verify(copy);
}

TEST_CASE("many insertions at one place renumber the order keys correctly") {
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId last = g.call(mm_op(), {NodeRef{x}, NodeRef{x}});
  NodeId before = last;
  for (int i = 0; i < 100; ++i) before = g.call(mm_op(), {NodeRef{x}, NodeRef{x}}, {}, before);
  verify(g);
  CHECK(g.comes_before(before, last));
  CHECK(g.size() == 102);
}

TEST_CASE("replace_all_uses keeps users lists exact: the new node keeps its use, no user twice") {
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId a = g.call(mm_op(), {NodeRef{x}, NodeRef{x}});
  NodeId b = g.call(mm_op(), {NodeRef{a}, NodeRef{x}});      // uses a and x
  NodeId c = g.call(mm_op(), {NodeRef{a}, NodeRef{a}});      // uses a twice
  NodeId n = g.call(mm_op(), {NodeRef{a}, NodeRef{x}}, {}, b, "n");  // the replacement consumes a
  g.output({NodeRef{b}, NodeRef{c}});
  CHECK(g.replace_all_uses(x, a) == 2);  // b and n use x; a itself is skipped
  CHECK(g[x].users().size() == 1);       // only a
  CHECK(g[b].args()[1] == Value(NodeRef{a}));
  CHECK(g.replace_all_uses(a, n) == 2);  // b and c; n keeps using a
  CHECK(std::vector<NodeId>(g[a].users().begin(), g[a].users().end()) == std::vector<NodeId>{n});
  CHECK(g[c].args()[0] == Value(NodeRef{n}));
  CHECK(g[c].args()[1] == Value(NodeRef{n}));
  auto nu = g[n].users();
  CHECK(std::count(nu.begin(), nu.end(), c) == 1);
  CHECK(std::count(nu.begin(), nu.end(), b) == 1);
  CHECK(g.replace_all_uses(a, a) == 0);
  verify(g);
}

TEST_CASE("fresh names stay unique when many nodes share a base") {
  Graph g;
  NodeId x = g.placeholder("x");
  std::vector<NodeId> ids;
  for (int i = 0; i < 50; ++i) ids.push_back(g.call(mm_op(), {NodeRef{x}, NodeRef{x}}));
  g.create(NodeSpec{NodeKind::CallFunction, mm_op(), "mm_60", {}, {NodeRef{x}}, {}});
  for (int i = 0; i < 20; ++i) ids.push_back(g.call(mm_op(), {NodeRef{x}, NodeRef{x}}));
  CHECK(g[ids[0]].name() == "mm");
  CHECK(g[ids[49]].name() == "mm_49");
  std::set<std::string> names;
  for (const Node& n : g.nodes()) CHECK(names.emplace(n.name()).second);
  verify(g);
}

TEST_CASE("try_create refuses a taken name and changes nothing; create throws for it") {
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId m = g.call(mm_op(), {NodeRef{x}, NodeRef{x}}, {}, no_node, "m");
  NodeSpec spec{NodeKind::CallFunction, mm_op(), "m", {}, {NodeRef{x}, NodeRef{m}}, {}};
  const std::size_t ids = g.id_bound(), live = g.size();
  CHECK(g.try_create(spec) == no_node);
  CHECK(g.id_bound() == ids);
  CHECK(g.size() == live);
  CHECK(g[x].num_users() == 1);
  CHECK(g[m].num_users() == 0);
  CHECK(spec.name == "m");  // left as it was: the caller tries another name
  CHECK(spec.args.size() == 2);
  CHECK_THROWS_AS(g.create(spec), GraphError);
  spec.name = "m2";
  NodeId m2 = g.try_create(spec, m);
  REQUIRE(m2 != no_node);
  CHECK(g.find("m2") == m2);
  CHECK(g.comes_before(m2, m));
  CHECK(g[m].users().size() == 1);
  CHECK(g[m].users()[0] == m2);
  NodeSpec bad{NodeKind::CallFunction, scale_op(), "s", {}, {NodeRef{x}}, {}};  // dtype missing
  CHECK_THROWS_AS(g.try_create(bad), GraphError);  // other errors still throw
  CHECK(g.find("s") == no_node);
}
