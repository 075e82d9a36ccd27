// Multi-root rewrites: a multi() pattern's replacement redirects every root's uses (Inductor's
// MultiOutputPattern), declaratively with outputs(...) or from a callback returning one node
// per root; new nodes go before the earliest root; a declined or out-of-order rewrite leaves
// the graph exactly as it was.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include <ctmatch/graph.hpp>
#include <ctmatch/io/fx_text.hpp>
#include <ctmatch/pattern.hpp>
#include <ctmatch/rewrite.hpp>
#include <ctmatch/schema/builtin.hpp>

using namespace ctmatch;
using namespace ctmatch::dsl;

namespace {
OpId A(const char* name) {
  schema::ensure_builtin_schemas();
  return intern_op(name);
}
constexpr auto exp_sin = op<"mrtest::exp_sin(Tensor x) -> (Tensor, Tensor)">;
constexpr auto fast_exp = op<"mrtest::fast_exp(Tensor x) -> Tensor">;
constexpr auto fast_sin = op<"mrtest::fast_sin(Tensor x) -> Tensor">;
constexpr auto sin_op = op<"aten::sin(Tensor self) -> Tensor">;

// x -> exp, sin, each used by its own relu; the order of exp and sin is chosen.
struct ExpSin {
  Graph g;
  NodeId x, e, s, re, rs;
};
ExpSin exp_sin_graph(bool sin_first) {
  ExpSin t;
  t.x = t.g.placeholder("x");
  if (sin_first) {
    t.s = t.g.call(A("aten.sin.default"), {NodeRef{t.x}});
    t.rs = t.g.call(A("aten.relu.default"), {NodeRef{t.s}});
    t.e = t.g.call(A("aten.exp.default"), {NodeRef{t.x}});
    t.re = t.g.call(A("aten.relu.default"), {NodeRef{t.e}});
  } else {
    t.e = t.g.call(A("aten.exp.default"), {NodeRef{t.x}});
    t.re = t.g.call(A("aten.relu.default"), {NodeRef{t.e}});
    t.s = t.g.call(A("aten.sin.default"), {NodeRef{t.x}});
    t.rs = t.g.call(A("aten.relu.default"), {NodeRef{t.s}});
  }
  t.g.output({NodeRef{t.re}, NodeRef{t.rs}});
  return t;
}
constexpr auto exp_and_sin = multi(aten::exp("x"_x).named<"e">(), sin_op("x"_x).named<"s">());
}  // namespace

TEST_CASE("multi-root, declarative: outputs(...) replaces each root's uses") {
  constexpr auto rule = rewrite<"exp_sin_fast">(exp_and_sin, outputs(fast_exp("x"_x), fast_sin("x"_x)));
  for (bool sin_first : {false, true}) {
    CAPTURE(sin_first);
    ExpSin t = exp_sin_graph(sin_first);
    PassStats st = sweep(t.g, rule_set(rule));
    CHECK(st.rules[0].matches == 1);
    CHECK_NOTHROW(verify(t.g));
    CHECK_FALSE(t.g[t.e].alive());
    CHECK_FALSE(t.g[t.s].alive());
    CHECK(op_name(t.g[t.g[t.re].args()[0].node()].op()) == "mrtest.fast_exp.default");
    CHECK(op_name(t.g[t.g[t.rs].args()[0].node()].op()) == "mrtest.fast_sin.default");
    // The new nodes come before the earliest root's user.
    CHECK(t.g.comes_before(t.g[t.rs].args()[0].node(), sin_first ? t.rs : t.re));
  }
}

TEST_CASE("multi-root, declarative: a root named in outputs keeps its uses") {
  // Common-subexpression style: the second exp(x) takes the first's place.
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId e1 = g.call(A("aten.exp.default"), {NodeRef{x}});
  NodeId r1 = g.call(A("aten.relu.default"), {NodeRef{e1}});
  NodeId e2 = g.call(A("aten.exp.default"), {NodeRef{x}});
  NodeId r2 = g.call(A("aten.neg.default"), {NodeRef{e2}});
  g.output({NodeRef{r1}, NodeRef{r2}});
  constexpr auto rule = rewrite<"cse_exp">(multi(aten::exp("x"_x).named<"a">(), aten::exp("x"_x).named<"b">()),
                                           outputs("a"_x, "a"_x));
  PassStats st = fixpoint(g, rule_set(rule));
  CHECK(st.rules[0].matches == 1);
  CHECK(g[e1].alive());
  CHECK_FALSE(g[e2].alive());
  CHECK(g[r2].args()[0].node() == e1);
  CHECK_NOTHROW(verify(g));
}

TEST_CASE("multi-root, callback: one node per root, a multi-output op and its getitems") {
  constexpr auto rule = rewrite<"exp_sin_pair">(exp_and_sin, [](const auto& m, RewriteBuilder& b) {
    NodeId x = m.template get<"x">();
    NodeId pair = b.call(decltype(exp_sin)::id(), {NodeRef{x}});
    OpId item = intern_op("operator.getitem");
    return std::array<NodeId, 2>{b.call(item, {NodeRef{pair}, Value(0)}), b.call(item, {NodeRef{pair}, Value(1)})};
  });
  for (bool sin_first : {false, true}) {
    CAPTURE(sin_first);
    ExpSin t = exp_sin_graph(sin_first);
    PassStats st = sweep(t.g, rule_set(rule));
    REQUIRE(st.rules[0].matches == 1);
    CHECK_NOTHROW(verify(t.g));
    NodeId g0 = t.g[t.re].args()[0].node(), g1 = t.g[t.rs].args()[0].node();
    CHECK(op_name(t.g[g0].op()) == "operator.getitem");
    CHECK(t.g[g0].args()[1] == Value(0));
    CHECK(t.g[g1].args()[1] == Value(1));
    CHECK(t.g[g0].args()[0] == t.g[g1].args()[0]);
    CHECK(t.g.size() == 7);  // x, exp_sin, 2 getitems, 2 relus, output
  }
}

TEST_CASE("multi-root: a declined or out-of-order rewrite leaves the graph as it was") {
  // Declines: one root without a replacement.
  constexpr auto declines = rewrite<"declines">(exp_and_sin, [](const auto& m, RewriteBuilder& b) {
    NodeId made = b.call(decltype(fast_exp)::id(), {NodeRef{NodeId(m.template get<"x">())}});
    return std::array<NodeId, 2>{made, no_node};
  });
  ExpSin t = exp_sin_graph(false);
  const std::string before = io::write_fx_text(t.g);
  PassStats st = sweep(t.g, rule_set(declines));
  CHECK(st.rules[0].matches == 0);
  CHECK(st.rules[0].failed == 1);
  CHECK(io::write_fx_text(t.g) == before);

  // Out of order: the first root's uses would go to the second root, which comes after them.
  constexpr auto backwards = rewrite<"backwards">(exp_and_sin, outputs("s"_x, "s"_x));
  st = sweep(t.g, rule_set(backwards));
  CHECK(st.rules[0].matches == 0);
  CHECK(st.rules[0].failed == 1);
  CHECK(io::write_fx_text(t.g) == before);

  // Nothing to change: every root keeps its uses.
  constexpr auto keeps = rewrite<"keeps">(exp_and_sin, outputs("e"_x, "s"_x));
  st = sweep(t.g, rule_set(keeps));
  CHECK(st.rules[0].matches == 0);
  CHECK(st.rules[0].unchanged == 1);
  CHECK(st.rules[0].failed == 0);
  CHECK(io::write_fx_text(t.g) == before);
}

TEST_CASE("multi-root: the other roots are not interior nodes; a shared interior node is still refused") {
  // exp(relu(x)) and sin(relu(x)): relu is interior to both roots, used only inside the match.
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId r = g.call(A("aten.relu.default"), {NodeRef{x}});
  NodeId e = g.call(A("aten.exp.default"), {NodeRef{r}});
  NodeId s = g.call(A("aten.sin.default"), {NodeRef{r}});
  g.output({NodeRef{e}, NodeRef{s}});
  constexpr auto pat = multi(aten::exp(aten::relu("x"_x).named<"r">()), sin_op("r"_x));
  constexpr auto rule = rewrite<"fuse">(pat, outputs(fast_exp("x"_x), fast_sin("x"_x)));
  Graph shared = g;  // the same graph with relu also used outside the match
  NodeId extra = shared.call(A("aten.neg.default"), {NodeRef{r}}, {}, shared.last());
  (void)extra;
  CHECK(sweep(g, rule_set(rule)).rules[0].matches == 1);
  CHECK_FALSE(g[r].alive());
  CHECK_NOTHROW(verify(g));
  PassStats st = sweep(shared, rule_set(rule));
  CHECK(st.rules[0].matches == 0);
  CHECK(st.rules[0].refused == 1);
}

TEST_CASE("a replacement that returns the root: matched, changed nothing, counted apart") {
  // Inductor's handlers may look and leave the graph alone; its `matched` counts them.
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId e = g.call(A("aten.exp.default"), {NodeRef{x}});
  NodeId n = g.call(A("aten.neg.default"), {NodeRef{e}});
  g.output({NodeRef{n}});
  const std::string before = io::write_fx_text(g);
  constexpr auto looks = rewrite<"looks">(aten::neg(aten::exp("x"_x)).named<"root">(), [](const auto& m, RewriteBuilder& b) {
    make(b, fast_exp(use(get<"x">(m))));  // made, then not used: taken back
    return NodeId(get<"root">(m));
  });
  PassStats st = sweep(g, rule_set(looks));
  CHECK(st.rules[0].matches == 0);
  CHECK(st.rules[0].unchanged == 1);
  CHECK(st.rules[0].failed == 0);
  CHECK(io::write_fx_text(g) == before);
  // A later rule for the same root is still tried, as in Inductor's pass.
  constexpr auto fuses = rewrite<"fuses">(aten::neg(aten::exp("x"_x)), fast_exp("x"_x));
  st = sweep(g, rule_set(looks, fuses));
  CHECK(st.rules[0].unchanged == 1);
  CHECK(st.rules[1].matches == 1);
}

TEST_CASE("multi-root: a further root naming an interior node the program also uses") {
  // exp(neg(x)) where neg(x) is also an output: multi(exp(neg(x) named n, 2 users), "n") makes
  // neg a root of its own (Inductor's MultiOutputPattern lists such nodes as outputs). Its
  // replacement takes the output's use; the old neg, left without users, is erased.
  auto make_graph = [](Graph& g) {
    NodeId x = g.placeholder("x");
    NodeId n = g.call(A("aten.neg.default"), {NodeRef{x}});
    NodeId e = g.call(A("aten.exp.default"), {NodeRef{n}});
    NodeId r = g.call(A("aten.relu.default"), {NodeRef{e}});
    g.output({NodeRef{r}, NodeRef{n}});
    return std::array<NodeId, 3>{n, e, r};
  };
  Graph g;
  const auto [n, e, r] = make_graph(g);
  constexpr auto pat = multi(aten::exp(aten::neg("x"_x).named<"n">().users<2>()), "n"_x);
  auto m = match(pat, g, e);
  REQUIRE(m);
  CHECK(m->root_nodes() == std::array<NodeId, 2>{e, n});
  constexpr auto rule = rewrite<"exp_neg">(pat, outputs(fast_exp("x"_x), aten::neg("x"_x)));
  PassStats st = sweep(g, rule_set(rule));
  REQUIRE(st.rules[0].matches == 1);
  CHECK_NOTHROW(verify(g));
  CHECK_FALSE(g[e].alive());
  CHECK_FALSE(g[n].alive());
  CHECK(op_name(g[g[r].args()[0].node()].op()) == "mrtest.fast_exp.default");
  const NodeId out = g.last();
  const NodeId new_neg = (*g[out].args()[0].items())[1].node();
  CHECK(op_name(g[new_neg].op()) == "aten.neg.default");
  CHECK(new_neg != n);
  // Without its second user, neg fails `.users<2>()`: no match.
  Graph single;
  NodeId sx = single.placeholder("x");
  NodeId sn = single.call(A("aten.neg.default"), {NodeRef{sx}});
  NodeId se = single.call(A("aten.exp.default"), {NodeRef{sn}});
  single.output({NodeRef{se}});
  CHECK_FALSE(match(pat, single, se));
  // A placeholder root naming an input, not an op call of the match, never matches.
  Graph fresh;
  const NodeId fresh_exp = make_graph(fresh)[1];
  CHECK(match(pat, fresh, fresh_exp));
  constexpr auto input_root = multi(aten::exp(aten::neg("x"_x).named<"n">().users<2>()), "x"_x);
  CHECK_FALSE(match(input_root, fresh, fresh_exp));
}
