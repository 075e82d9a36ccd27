// The pass drivers with hand-written rules on small built graphs: sweep order and Inductor's
// semantics, fixpoint, dispatch and rule order, statistics, explain.
#include <doctest/doctest.h>

#include <random>
#include <set>

#include <ctmatch/pattern.hpp>

#include "hand_rules.hpp"

using namespace ctmatch;
using namespace rwtest;

namespace {
PassOptions checked() {
  PassOptions o;
  o.verify_each_rewrite = true;
  o.verify_after_pass = true;
  return o;
}
std::size_t count_op(const Graph& g, OpId op) {
  std::size_t n = 0;
  for (const Node& x : g.nodes()) n += x.op() == op;
  return n;
}
// x -> view -> view -> view -> output
Graph view_chain(int length) {
  Graph g;
  NodeId prev = g.placeholder("x");
  for (int i = 0; i < length; ++i) prev = g.call(view_op(), {NodeRef{prev}, ints({4, i + 1})});
  g.output({NodeRef{prev}});
  return g;
}
/// The view sizes of such a chain, from the output up to x.
std::vector<Value> sizes_from_output(const Graph& g) {
  std::vector<Value> sizes;
  for (NodeId n = g[g.last()].args()[0].items()->at(0).node(); g[n].kind() != NodeKind::Placeholder;
       n = input_node(g, n, 0))
    sizes.push_back(*g[n].arg(1));
  return sizes;
}
}  // namespace

TEST_CASE("sweep visits the starting nodes once, last first, and not the nodes it creates") {
  // view_2(view_1(view(x))): the sweep rewrites at view_2 (its input view_1 is a view), which
  // erases view_1; the new view(view(x)) is not revisited, as in Inductor.
  Graph g = view_chain(3);
  auto rules = rule_set(ViewView<>{});
  PassStats st = sweep(g, rules, checked());
  CHECK(st.rules[0].matches == 1);
  REQUIRE(st.rules[0].roots.size() == 1);
  CHECK(g[st.rules[0].roots[0]].name() == "view_2");
  CHECK(count_op(g, view_op()) == 2);
  CHECK(st.rules[0].nodes_added == 1);
  CHECK(st.rules[0].nodes_removed == 2);
  CHECK(st.nodes_before == 5);
  CHECK(st.nodes_after == 4);
  CHECK(st.visited == 2);  // view_2, then view (view_1 was erased: skipped)
  // The new node sits where the root was, takes the root's uses and keeps its size.
  NodeId out = g.last();
  NodeId newest = g[out].args()[0].items()->at(0).node();
  CHECK(g[newest].op() == view_op());
  CHECK(*g[newest].arg(1) == ints({4, 3}));
  CHECK(g[input_node(g, newest, 0)].name() == "view");

  // fixpoint goes on: the new node is revisited and the chain collapses to one view.
  Graph h = view_chain(3);
  PassStats fx = fixpoint(h, rules, checked());
  CHECK(fx.rules[0].matches == 2);
  CHECK(count_op(h, view_op()) == 1);
  CHECK_FALSE(fx.cap_hit);
}

TEST_CASE("sweep on a long chain: every other pair") {
  Graph g = view_chain(10);
  auto rules = rule_set(ViewView<>{});
  PassStats st = sweep(g, rules, checked());
  CHECK(st.rules[0].matches == 5);
  CHECK(count_op(g, view_op()) == 5);
  Graph h = view_chain(10);
  CHECK(fixpoint(h, rules, checked()).rules[0].matches == 9);
  CHECK(count_op(h, view_op()) == 1);
}

TEST_CASE("sweep visits in node order, also where ids do not follow it") {
  // x -> v3 -> v2 -> v1 -> v0 -> output, where each v was inserted before the one made just
  // before it: ids run against the node order (as after a pass inserted nodes). Last first in
  // node order, the sweep rewrites at v0 (erasing v1), skips v1, then rewrites at v2 (erasing
  // v3): the roots of a chain of four built in order, every other pair. Visited by id, it
  // would start at v3 and fire at v2, v1 and v0.
  Graph g;
  NodeId x = g.placeholder("x");
  std::vector<NodeId> v;
  for (int i = 0; i < 4; ++i)
    v.push_back(g.call(view_op(), {NodeRef{x}, ints({4, i + 1})}, {}, i ? v.back() : no_node, "v" + std::to_string(i)));
  g.output({NodeRef{v[0]}});
  for (int i = 0; i < 3; ++i) g.set_args(v[i], {NodeRef{v[i + 1]}, ints({4, i + 1})}, {});
  REQUIRE(g.comes_before(v[3], v[0]));
  REQUIRE(v[3] > v[0]);

  PassStats st = sweep(g, rule_set(ViewView<>{}), checked());
  REQUIRE(st.rules[0].roots.size() == 2);
  CHECK(st.rules[0].roots[0] == v[0]);
  CHECK(st.rules[0].roots[1] == v[2]);
  CHECK(count_op(g, view_op()) == 2);
  Graph in_order = view_chain(4);
  CHECK(sweep(in_order, rule_set(ViewView<>{}), checked()).rules[0].matches == 2);
}

TEST_CASE("rules are dispatched by root op and tried in declaration order; the first that applies wins") {
  // add(mm(a, b), mm_1(c, d)): both registrations of mm_bias match; the first one (mm as the
  // first operand) must win, so the result is addmm(mm_1, a, b).
  Graph g;
  NodeId a = g.placeholder("a"), b = g.placeholder("b"), c = g.placeholder("c"), d = g.placeholder("d");
  NodeId mm0 = g.call(mm_op(), {NodeRef{a}, NodeRef{b}});
  NodeId mm1 = g.call(mm_op(), {NodeRef{c}, NodeRef{d}});
  NodeId add = g.call(add_op(), {NodeRef{mm0}, NodeRef{mm1}});
  g.output({NodeRef{add}});
  auto rules = rule_set(ViewView<>{}, MmBias<false>{}, MmBias<true>{});
  PassStats st = sweep(g, rules, checked());
  CHECK(st.rules[1].matches == 1);
  CHECK(st.rules[2].matches == 0);
  CHECK(st.matches() == std::map<std::string, std::size_t>{{"mm_bias", 1}});
  CHECK(st.attempts == 1);  // only the add is a candidate; the first rule erased it
  CHECK(count_op(g, addmm_op()) == 1);
  CHECK(count_op(g, mm_op()) == 1);
  NodeId addmm = g[g.last()].args()[0].items()->at(0).node();
  CHECK(input_node(g, addmm, 0) == mm1);
  CHECK(input_node(g, addmm, 1) == a);
}

TEST_CASE("the second registration fires when only it matches; stats merge by name") {
  Graph g;
  NodeId a = g.placeholder("a"), b = g.placeholder("b"), bias = g.placeholder("bias");
  NodeId mm0 = g.call(mm_op(), {NodeRef{a}, NodeRef{b}});
  NodeId add = g.call(add_op(), {NodeRef{bias}, NodeRef{mm0}});
  NodeId mm1 = g.call(mm_op(), {NodeRef{a}, NodeRef{b}});
  NodeId add1 = g.call(add_op(), {NodeRef{mm1}, NodeRef{bias}});
  // alpha blocks the rule: this add stays
  NodeId mm2 = g.call(mm_op(), {NodeRef{a}, NodeRef{b}});
  NodeId add2 = g.call(add_op(), {NodeRef{mm2}, NodeRef{bias}}, {{"alpha", Value(std::int64_t{2})}});
  g.output({NodeRef{add}, NodeRef{add1}, NodeRef{add2}});
  auto rules = rule_set(MmBias<false>{}, MmBias<true>{});
  PassStats st = sweep(g, rules, checked());
  CHECK(st.rules[0].matches == 1);
  CHECK(st.rules[1].matches == 1);
  auto merged = st.by_name();
  REQUIRE(merged.size() == 1);
  CHECK(merged[0].matches == 2);
  CHECK(st.root_names(g).at("mm_bias") == std::vector<std::string>{"add", "add_1"});
  CHECK(count_op(g, addmm_op()) == 2);
  CHECK(g[add2].alive());
}

TEST_CASE("a rule that replaces the root by an existing node adds nothing") {
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId p1 = g.call(permute_op(), {NodeRef{x}, ints({1, 2, 0})});
  NodeId p2 = g.call(permute_op(), {NodeRef{p1}, ints({2, 0, 1})});
  NodeId r = g.call(relu_op(), {NodeRef{p2}});
  NodeId q1 = g.call(permute_op(), {NodeRef{r}, ints({1, 0, 2})});
  NodeId q2 = g.call(permute_op(), {NodeRef{q1}, ints({0, 2, 1})});  // not the identity
  g.output({NodeRef{q2}});
  auto rules = rule_set(PermuteIdentity{});
  PassStats st = sweep(g, rules, checked());
  CHECK(st.rules[0].matches == 1);
  CHECK(st.rules[0].nodes_added == 0);
  CHECK(st.rules[0].nodes_removed == 2);
  CHECK(input_node(g, r, 0) == x);
  CHECK(g[q2].alive());

  // explain says why q2 does not match and that p2 would (on a fresh graph).
  auto ex = explain(g, rules, q2);
  REQUIRE(ex.size() == 1);
  CHECK_FALSE(ex[0].matches);
  CHECK(ex[0].why.find("identity") != std::string::npos);
  auto none = explain(g, rules, r);
  CHECK(none.empty());
  CHECK(format_explanations(g, r, none).find("no rule") != std::string::npos);
}

TEST_CASE("rule selection by name leaves the others out of the table") {
  Graph g = view_chain(2);
  auto rules = rule_set(ViewView<>{}, PermuteIdentity{});
  std::vector<std::string> keep{"permute_identity", "nope"};
  CHECK(rules.enable_only(keep) == std::vector<std::string>{"nope"});
  CHECK(sweep(g, rules, checked()).total_matches() == 0);
  rules.enable_all();
  CHECK(sweep(g, rules, checked()).total_matches() == 1);
  CHECK(rules.names() == std::vector<std::string>{"view_view", "permute_identity"});
  auto both = concat(rules, rule_set(MmBias<false>{}));
  CHECK(decltype(both)::size == 3);
  CHECK(both.name(2) == "mm_bias");
}

TEST_CASE("fixpoint stops at its cap and says so") {
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId r = g.call(relu_op(), {NodeRef{x}});
  g.output({NodeRef{r}});
  PassOptions o = checked();
  o.max_rewrites = 25;
  PassStats st = fixpoint(g, rule_set(ReluAgain{}), o);
  CHECK(st.cap_hit);
  CHECK(st.cap == 25);
  CHECK(st.rules[0].matches == 25);
  CHECK(count_op(g, relu_op()) == 1);
  verify(g);
}

TEST_CASE("metadata of the root carries over to the new node") {
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId v1 = g.call(view_op(), {NodeRef{x}, ints({8})});
  NodeId v2 = g.call(view_op(), {NodeRef{v1}, ints({2, 4})});
  g[v2].edit_meta().dtype = ScalarType::Half;
  g[v2].edit_meta().shape = std::vector<Value>{Value(std::int64_t{2}), Value(std::int64_t{4})};
  g.output({NodeRef{v2}});
  sweep(g, rule_set(ViewView<>{}), checked());
  NodeId nv = g[g.last()].args()[0].items()->at(0).node();
  CHECK(nv != v2);
  CHECK(g[nv].meta().dtype == ScalarType::Half);
  CHECK(g[nv].meta().shape->size() == 2);
}

TEST_CASE("new node names are fresh and FX-like, also when many share a base") {
  Graph g = view_chain(400);
  PassStats st = sweep(g, rule_set(ViewView<>{}), checked());
  CHECK(st.rules[0].matches == 200);
  std::set<std::string> names;
  for (const Node& n : g.nodes()) CHECK(names.emplace(n.name()).second);
  verify(g);
}

TEST_CASE("fresh names are torch.fx's: the base, else the first free suffix, skipping taken ones; ops of one base share a counter") {
  Graph g;
  NodeId prev = g.placeholder("x");
  g.placeholder("view_14");  // taken on the way
  g.placeholder("view_15");
  for (int i = 0; i < 10; ++i) prev = g.call(view_op(), {NodeRef{prev}, ints({4, i + 1})});  // view, view_1 .. view_9
  g.output({NodeRef{prev}});
  std::set<std::string> before;
  for (const Node& n : g.nodes()) before.emplace(n.name());
  PassStats st = sweep(g, rule_set(ViewView<>{}), checked());
  CHECK(st.rules[0].matches == 5);
  std::set<std::string> created;
  for (const Node& n : g.nodes())
    if (!before.count(std::string(n.name()))) created.emplace(n.name());
  CHECK(created == std::set<std::string>{"view_10", "view_11", "view_12", "view_13", "view_16"});
  for (const Node& n : g.nodes()) CHECK(g.find(n.name()) == n.id());

  // The pass erased the first `view`: a new counter takes the base name again, then counts on
  // from the first free suffix. One counter serves the base, asked by op or by base.
  NameCounter names;
  CHECK(names.fresh_for(g, view_op()) == "view");
  g.placeholder("view");
  CHECK(names.fresh(g, "view") == "view_1");  // view_1 went with the merged views
  CHECK(names.fresh_for(g, view_op()) == "view_2");
  CHECK(names.fresh(g, "unused") == "unused");
}

TEST_CASE("the first free suffix: across powers of ten, past a run of thousands; with a gap, a free one past it") {
  auto graph_with = [](std::size_t taken, std::vector<std::size_t> more = {}) {
    Graph g;
    NodeId x = g.placeholder("x");
    g.call(view_op(), {NodeRef{x}, ints({4})});  // holds `view`
    for (std::size_t k = 1; k <= taken; ++k) g.placeholder("view_" + std::to_string(k));
    for (std::size_t k : more) g.placeholder("view_" + std::to_string(k));
    return g;
  };
  {
    Graph g = graph_with(9);
    NameCounter names;
    CHECK(names.fresh_for(g, view_op()) == "view_10");
    CHECK(names.fresh_for(g, view_op()) == "view_11");
  }
  {
    // view_99 is a gap below the taken view_100: bisection lands past view_100 (FX leaves no
    // such gaps; a name found so is free all the same).
    Graph g = graph_with(98, {100});
    NameCounter names;
    CHECK(names.fresh_for(g, view_op()) == "view_101");
    CHECK(names.fresh(g, "view") == "view_102");
  }
  {
    Graph g = graph_with(4095);
    NameCounter names;
    CHECK(names.fresh_for(g, view_op()) == "view_4096");
  }
  {
    Graph g = graph_with(0);  // nothing numbered yet: as torch.fx, view then view_1
    NameCounter names;
    CHECK(names.fresh_for(g, view_op()) == "view_1");
  }
}

TEST_CASE("a fresh name is the base again once the node holding the base is erased") {
  // The counter remembers which node holds the base name and only checks that it is live: an
  // erased holder frees the base, and a new node taking the base is found again.
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId v = g.call(view_op(), {NodeRef{x}, ints({4})});
  g.output({NodeRef{x}});
  REQUIRE(g[v].name() == "view");
  NameCounter names;
  CHECK(names.fresh_for(g, view_op()) == "view_1");
  CHECK(names.fresh_for(g, view_op()) == "view_2");
  g.erase(v);
  CHECK(names.fresh_for(g, view_op()) == "view");
  NodeId w = g.call(view_op(), {NodeRef{x}, ints({4})}, {}, g.last(), "view");
  CHECK(names.fresh_for(g, view_op()) == "view_3");
  g.erase(w);
  g.placeholder("view");  // another kind of node takes the base
  CHECK(names.fresh_for(g, view_op()) == "view_4");
  CHECK(names.fresh(g, "view") == "view_5");
}

TEST_CASE("a fresh name is the base again when a rollback undid the node holding it and its id went to another") {
  Graph g;
  NodeId x = g.placeholder("x");
  g.output({NodeRef{x}});
  NameCounter names;
  NodeId v = no_node;
  {
    Graph::Transaction tx(g);  // not committed
    v = g.call(view_op(), {NodeRef{x}, ints({4})}, {}, g.last(), names.fresh_for(g, view_op()));
    CHECK(g[v].name() == "view");
    CHECK(names.fresh_for(g, view_op()) == "view_1");  // the counter now knows v holds `view`
  }
  NodeId p = g.placeholder("p");  // takes the id the rollback freed
  REQUIRE(p == v);
  CHECK(names.fresh_for(g, view_op()) == "view");
}

TEST_CASE("repeated passes keep every name unique and the builder's list of created nodes exact") {
  Graph g = view_chain(300);
  for (int pass = 0; pass < 4; ++pass) {
    PassOptions o = checked();
    o.verify_each_rewrite = false;
    sweep(g, rule_set(ViewView<>{}), o);
  }
  CHECK(count_op(g, view_op()) == 19);  // 300 -> 150 -> 75 -> 38 -> 19
  std::set<std::string> names;
  for (const Node& n : g.nodes()) {
    CHECK(names.emplace(n.name()).second);
    CHECK(g.find(n.name()) == n.id());
  }
  // The fixpoint driver follows the nodes each rewrite created (the builder's reused buffer).
  Graph h = view_chain(64);
  PassStats st = fixpoint(h, rule_set(ViewView<>{}), checked());
  CHECK(count_op(h, view_op()) == 1);
  CHECK(st.rules[0].matches == 63);
  verify(h);
}

TEST_CASE("the builder names new nodes as fresh_for does, and a node that cannot be made uses its number up") {
  // NameCounter::create_for looks each candidate name up once (Graph::try_create); the names
  // must be those of fresh_for followed by create, failures included.
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId v = g.call(view_op(), {NodeRef{x}, ints({4})});
  g.output({NodeRef{x}});
  REQUIRE(g[v].name() == "view");
  auto view_of_x = [&] { return NodeSpec{NodeKind::CallFunction, view_op(), {}, {}, {NodeRef{x}, ints({4})}, {}}; };
  NameCounter names;
  NodeSpec s1 = view_of_x();
  NodeId a = names.create_for(g, s1, g.last());
  CHECK(g[a].name() == "view_1");
  NodeSpec bad{NodeKind::CallFunction, view_op(), {}, {}, {NodeRef{x}}, {}};  // no size: does not fit
  std::size_t ids = g.id_bound();
  CHECK_THROWS_AS(names.create_for(g, bad, g.last()), GraphError);
  CHECK(g.id_bound() == ids);
  CHECK(g.find("view_2") == no_node);
  NodeSpec s2 = view_of_x();
  NodeId b = names.create_for(g, s2, g.last());
  CHECK(g[b].name() == "view_3");  // view_2 went to the node that could not be made
  g.placeholder("view_4");         // a taken number is skipped
  NodeSpec s3 = view_of_x();
  CHECK(g[names.create_for(g, s3, g.last())].name() == "view_5");
  g.erase(v);  // the base is free again
  NodeSpec s4 = view_of_x();
  CHECK(g[names.create_for(g, s4, g.last())].name() == "view");
  NodeSpec s5 = view_of_x();
  CHECK(g[names.create_for(g, s5, g.last())].name() == "view_6");
  for (const Node& n : g.nodes()) CHECK(g.find(n.name()) == n.id());
}

namespace {
/// A hand rule whose root op is looked up each time it is asked: no_op until the op is interned.
/// It replaces its root by the root's input.
struct LazyRootRule {
  struct match_type {
    MatchedNodes<1> nodes;
    NodeId input = no_node;
  };
  mutable std::array<OpId, 1> roots{no_op};
  std::string_view name() const { return "lazy_root"; }
  std::span<const OpId> root_ops() const {
    roots[0] = OpRegistry::global().find("t.lazy_root_only_here.default");
    return roots;
  }
  bool match(const Graph& g, NodeId root, match_type& m, Reason*) const {
    m.nodes.clear();
    m.nodes.push(root);
    m.input = g[root].args().empty() ? no_node : g[root].args()[0].node();  // the op has no schema
    return m.input != no_node;
  }
  std::span<const NodeId> matched_nodes(const match_type& m) const { return m.nodes.span(); }
  NodeId replace(RewriteBuilder&, const match_type& m) const { return m.input; }
};
}  // namespace

TEST_CASE("a rule set's dispatch table is not used once a rule's root ops have changed") {
  // The set builds its table when it is made, before the op exists: the rule's root op is
  // no_op then. The drivers must notice and dispatch on the op the rule names now.
  auto rules = rule_set(LazyRootRule{});
  REQUIRE(OpRegistry::global().find("t.lazy_root_only_here.default") == no_op);
  OpId op = intern_op("t.lazy_root_only_here.default");
  CHECK(!rules.dispatch_table().current_for(rules));
  auto make = [&] {
    Graph g;
    NodeId x = g.placeholder("x");
    NodeId n = g.call(op, {NodeRef{x}});
    g.output({NodeRef{n}});
    return g;
  };
  Graph g = make();
  PassStats st = sweep(g, rules, checked());
  CHECK(st.rules[0].matches == 1);
  CHECK(g.size() == 2);
  Graph h = make();
  CHECK(fixpoint(h, rules, checked()).rules[0].matches == 1);
  rules.enable_all();  // rebuilt: current again
  CHECK(rules.dispatch_table().current_for(rules));
  CHECK(rules.dispatch_table().rules_for(op).size() == 1);
}

TEST_CASE("a rule set's dispatch table follows rules switched on and off") {
  auto rules = rule_set(ViewView<>{}, PermuteIdentity{});
  REQUIRE(rules.dispatch_table().current_for(rules));
  CHECK(rules.dispatch_table().rules_for(view_op()).size() == 1);
  rules.set_enabled(0, false);
  CHECK(rules.dispatch_table().rules_for(view_op()).empty());
  CHECK(rules.dispatch_table().rules_for(permute_op()).size() == 1);
  Graph g = view_chain(3);
  CHECK(sweep(g, rules, checked()).total_matches() == 0);
  std::vector<std::string> keep{"view_view"};
  rules.enable_only(keep);
  CHECK(rules.dispatch_table().rules_for(permute_op()).empty());
  CHECK(sweep(g, rules, checked()).total_matches() == 1);
  auto both = concat(rules, rule_set(PermuteIdentity{}));
  CHECK(both.dispatch_table().rules_for(view_op()).size() == 1);
  CHECK(both.dispatch_table().rules_for(permute_op()).size() == 1);
  CHECK(both.dispatch_table().rules_for(permute_op())[0] == 2);
}

namespace {
/// What DispatchTable::build reads of a set: rules with root ops, all enabled.
struct RootsOnly {
  std::vector<OpId> ops;
  std::span<const OpId> root_ops() const { return ops; }
};
struct RootsOnlySet {
  std::vector<RootsOnly> rules;
  template <class F>
  void for_each(F&& f) const {
    for (std::size_t i = 0; i < rules.size(); ++i) f(rules[i], i);
  }
  bool enabled(std::size_t) const { return true; }
};
}  // namespace

TEST_CASE("a dispatch table's candidates: the ids whose op has rules, with few root ops or many") {
  // A set rooted at up to four ops is scanned eight ids at a time, a larger one through the
  // per-op table: both give every id whose op some rule has, in order, whatever the length.
  std::mt19937 rng(7);
  for (std::size_t roots = 1; roots <= 6; ++roots) {
    RootsOnlySet set;
    for (std::size_t k = 0; k < roots; ++k) set.rules.push_back({{static_cast<OpId>(3 * k + 1)}});
    set.rules.push_back({{1}});  // an op two rules share counts once
    const DispatchTable table(set);
    for (std::size_t length : {0, 1, 7, 8, 9, 16, 37, 300}) {
      std::vector<OpId> ops(length);
      for (OpId& op : ops) op = rng() % 5 == 0 ? no_op : static_cast<OpId>(rng() % 20);
      std::vector<NodeId> want;
      for (std::size_t i = 0; i < length; ++i)
        if (!table.rules_for(ops[i]).empty()) want.push_back(static_cast<NodeId>(100 + i));
      REQUIRE(table.first_tests_for(1).size() == table.rules_for(1).size());  // none: these rules have no prefilter
      CHECK(table.first_tests_for(1)[0].index == pattern::FirstTest::npos);
      std::vector<NodeId> got(length + 1);
      got.resize(static_cast<std::size_t>(table.candidates(ops, 100, got.data()) - got.data()));
      CAPTURE(roots);
      CAPTURE(length);
      CHECK(got == want);
    }
  }
}

TEST_CASE("a pass names its rules with views that outlive the rule set, copied from no constant name") {
  PassStats st;
  {
    auto rules = rule_set(ViewView<>{}, PermuteIdentity{});
    Graph g = view_chain(3);
    st = sweep(g, rules, checked());
  }
  REQUIRE(st.rules.size() == 2);
  CHECK(st.rules[0].name == "view_view");  // a name() that is no constant: interned
  CHECK(st.rules[1].name == "permute_identity");
  CHECK(st.rules[0].matches == 1);
  CHECK(interned_rule_name(std::string("a rule name longer than a short string")).data() ==
        interned_rule_name("a rule name longer than a short string").data());
  // A PatternRule's name is a constant: the statistics point at it (whether or not it fires).
  using namespace ctmatch::dsl;
  constexpr auto rule = rewrite<"view_of_view_by_pattern">(aten::view(aten::view("x"_x, _), "shape"_x), aten::view("x"_x, "shape"_x));
  Graph g = view_chain(2);
  PassStats own = sweep(g, rule_set(rule), checked());
  CHECK(own.rules[0].name == "view_of_view_by_pattern");
  CHECK(own.rules[0].name.data() == decltype(rule)::name().data());
}

TEST_CASE("the sweep tests a first input shared by several rules once, and still tries each rule in order") {
  // Three rules rooted at view: two ask for a view input first, one for a permute. At a view
  // over a permute the first two are not visited; each counts as an attempt all the same, as
  // one its own prefilter turned away did.
  using namespace ctmatch::dsl;
  constexpr auto over_view = rewrite<"over_view">(aten::view(aten::view("x"_x, _), _), [](const auto& m, RewriteBuilder&) {
    return get<"x">(m);
  });
  constexpr auto over_view_again = rewrite<"over_view_again">(aten::view(aten::view("x"_x, _), _),
                                                               [](const auto& m, RewriteBuilder&) { return get<"x">(m); });
  constexpr auto over_permute = rewrite<"over_permute">(aten::view(aten::permute("x"_x, _), _),
                                                        [](const auto& m, RewriteBuilder&) { return get<"x">(m); });
  const auto rules = rule_set(over_view, over_view_again, over_permute);
  const auto tests = rules.dispatch_table().first_tests_for(decltype(aten::view)::id());
  REQUIRE(tests.size() == 3);
  CHECK(tests[0].index == 0);
  CHECK(tests[0].op == decltype(aten::view)::id());
  CHECK(tests[2].op == decltype(aten::permute)::id());
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId a = g.call(decltype(aten::view)::id(), {NodeRef{x}, ints({8})});
  NodeId over_a_view = g.call(decltype(aten::view)::id(), {NodeRef{a}, ints({2, 4})});
  NodeId p = g.call(decltype(aten::permute)::id(), {NodeRef{x}, ints({1, 0})});
  NodeId over_a_permute = g.call(decltype(aten::view)::id(), {NodeRef{p}, ints({8})});
  g.output({NodeRef{over_a_view}, NodeRef{over_a_permute}});
  PassStats st = sweep(g, rules, checked());
  // Last first. The view over the permute: the first two turned away by the shared test, the
  // third fires (3 attempts). The view over a view: the first fires (1 attempt) and erases the
  // view below it, which is then skipped.
  CHECK(st.rules[0].matches == 1);
  CHECK(st.rules[1].matches == 0);
  CHECK(st.rules[2].matches == 1);
  CHECK(st.attempts == 4);
  const std::vector<Value>& outputs = *g[g.last()].args()[0].items();
  CHECK(outputs[0].node() == x);
  CHECK(outputs[1].node() == x);
}

TEST_CASE("sweep over a graph larger than the caches, where rewrites prefetch what they touch") {
  // 50,000 views: the nodes take more than 8 MiB, so the pass asks the cache ahead of each
  // rewrite for the nodes it will touch (Graph::prefetch_rewrite_of, prefetch_name). The result
  // must be that of the small chains above: every other view goes, last first.
  constexpr int length = 50000;
  Graph g = view_chain(length);
  REQUIRE(g.outgrows_cache());
  const NodeId last_view = g.find("view_49999");
  REQUIRE(last_view != no_node);
  PassOptions o;
  o.verify_after_pass = true;
  PassStats st = sweep(g, rule_set(ViewView<>{}), o);
  CHECK(st.rules[0].matches == length / 2);
  CHECK(count_op(g, view_op()) == length / 2);
  CHECK(g.size() == length / 2 + 2);
  REQUIRE(!st.rules[0].roots.empty());
  CHECK(st.rules[0].roots.front() == last_view);
  // From the output up: one new view per pair of old ones, each with the size of the pair's
  // last (4 x length, 4 x (length - 2), ...), down to x.
  std::vector<Value> sizes = sizes_from_output(g);
  CHECK(sizes.size() == length / 2);
  bool sizes_kept = true;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    sizes_kept = sizes_kept && sizes[i] == ints({4, length - 2 * static_cast<int>(i)});
  CHECK(sizes_kept);
}

TEST_CASE("sweep visits in node order when ids are not, over many candidates") {
  // A first sweep over 6,002 views leaves 3,001 new ones, each inserted before the root it
  // replaced: their ids run against the node order (the last pair's replacement is made first).
  // A second sweep must visit them last first in node order, as it visits a chain built in
  // order with the same sizes. With an odd count the order shows: last first pairs
  // (3001, 3000) ... (3, 2) and keeps the first view; the other way round keeps the last.
  Graph g = view_chain(6002);
  PassOptions o;
  o.verify_after_pass = true;
  auto rules = rule_set(ViewView<>{});
  REQUIRE(sweep(g, rules, o).rules[0].matches == 3001);
  REQUIRE_FALSE(g.ids_in_order());
  std::vector<Value> sizes = sizes_from_output(g);
  REQUIRE(sizes.size() == 3001);

  Graph in_order;
  NodeId prev = in_order.placeholder("x");
  for (auto it = sizes.rbegin(); it != sizes.rend(); ++it) prev = in_order.call(view_op(), {NodeRef{prev}, *it});
  in_order.output({NodeRef{prev}});
  REQUIRE(in_order.ids_in_order());

  PassStats st = sweep(g, rules, o);
  PassStats st_in_order = sweep(in_order, rules, o);
  CHECK(st.rules[0].matches == 1500);
  CHECK(st_in_order.rules[0].matches == 1500);
  CHECK(sizes_from_output(g) == sizes_from_output(in_order));
  // The first view of the chain (size 4 x 2) is the one left unpaired.
  CHECK(sizes_from_output(g).back() == ints({4, 2}));
}
