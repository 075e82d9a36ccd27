// Rules written with the pattern DSL: declarative replacements (placeholders, slots,
// constants, lists, schema-default gaps), kwargs forwarding, callbacks with a typed match,
// metadata carried over, explanations.
#include <doctest/doctest.h>

#include <ctmatch/graph.hpp>
#include <ctmatch/pattern.hpp>
#include <ctmatch/rewrite.hpp>
#include <ctmatch/schema/builtin.hpp>

#include "hand_rules.hpp"

using namespace ctmatch;
using namespace ctmatch::dsl;
using rwtest::dump;
using rwtest::ints;

namespace {
OpId A(const char* name) {
  schema::ensure_builtin_schemas();
  return intern_op(name);
}
constexpr auto scale_cast =
    op<"seedlib::scale_cast(Tensor x, *, ScalarType dtype, bool clamp=False, float scale=1.0) -> Tensor">;
constexpr auto mm_scale_cast =
    op<"seedlib::mm_scale_cast(Tensor a, Tensor b, *, ScalarType dtype, bool clamp=False, float scale=1.0) -> Tensor">;

// x, w -> mm -> scale_cast(dtype=f16 [, clamp=True]) -> output
struct Seed {
  Graph g;
  NodeId mm, sc;
};
Seed seed(bool with_clamp) {
  Seed s;
  NodeId x = s.g.placeholder("x"), w = s.g.placeholder("w");
  s.mm = s.g.call(A("aten.mm.default"), {NodeRef{x}, NodeRef{w}});
  std::vector<Kwarg> kw{{"dtype", Value(ScalarType::Half)}};
  if (with_clamp) kw.push_back({"clamp", Value(true)});
  s.sc = s.g.call(A("seedlib.scale_cast.default"), {NodeRef{s.mm}}, kw);
  s.g[s.sc].edit_meta().dtype = ScalarType::Half;
  s.g.output({NodeRef{s.sc}});
  return s;
}
NodeId result(const Graph& g) { return g[g.last()].args()[0].items()->at(0).node(); }

constexpr auto seed_pattern = scale_cast(aten::mm("a"_x, "b"_x).users<1>(), "dtype"_kw = slot<"dtype", DType>,
                                         "clamp"_kw = slot<"clamp", bool>, "scale"_kw = slot<"scale", double>);
}  // namespace

TEST_CASE("declarative: slots and placeholders of the pattern become the new node's arguments") {
  constexpr auto rule = rewrite<"mm_scale_cast">(
      seed_pattern, mm_scale_cast("a"_x, "b"_x, "dtype"_kw = slot<"dtype", DType>, "clamp"_kw = slot<"clamp", bool>,
                                  "scale"_kw = slot<"scale", double>));
  Seed s = seed(false);
  PassStats st = sweep(s.g, rule_set(rule));
  CHECK(st.rules[0].matches == 1);
  CHECK(st.rules[0].nodes_removed == 2);
  NodeId r = result(s.g);
  CHECK(op_name(s.g[r].op()) == "seedlib.mm_scale_cast.default");
  CHECK(s.g[r].name() == "mm_scale_cast");
  CHECK(s.g[s.g[r].args()[0].node()].name() == "x");
  CHECK(s.g[s.g[r].args()[1].node()].name() == "w");
  // Every kwarg explicit, the absent clamp as its default (as Inductor's replacement writes it).
  REQUIRE(s.g[r].kwargs().size() == 3);
  CHECK(*s.g[r].kwarg("dtype") == Value(ScalarType::Half));
  CHECK(*s.g[r].kwarg("clamp") == Value(false));
  CHECK(*s.g[r].kwarg("scale") == Value(1.0));
  CHECK(s.g[r].meta().dtype == ScalarType::Half);  // carried over from the root
  verify(s.g);
}

TEST_CASE("forward_kwargs: all written kwargs of the root, or some, or of a named node") {
  SUBCASE("all, from the root") {
    constexpr auto rule = rewrite<"fwd">(scale_cast(aten::mm("a"_x, "b"_x).users<1>(), "dtype"_kw = _),
                                         forward_kwargs(mm_scale_cast, "a"_x, "b"_x));
    Seed s = seed(true);
    sweep(s.g, rule_set(rule));
    NodeId r = result(s.g);
    REQUIRE(s.g[r].kwargs().size() == 2);  // exactly what the matched node wrote
    CHECK(s.g[r].kwargs()[0].name == "dtype");
    CHECK(s.g[r].kwargs()[1].name == "clamp");
    CHECK(*s.g[r].kwarg("clamp") == Value(true));
  }
  SUBCASE("only the listed ones, from a named node; the call's own arguments win") {
    constexpr auto rule = rewrite<"fwd">(
        scale_cast(aten::mm("a"_x, "b"_x).users<1>(), "dtype"_kw = _).named<"sc">(),
        forward_kwargs<"sc", "dtype", "clamp", "scale">(mm_scale_cast, "a"_x, "b"_x, "dtype"_kw = DType::Float));
    Seed s = seed(true);
    sweep(s.g, rule_set(rule));
    NodeId r = result(s.g);
    REQUIRE(s.g[r].kwargs().size() == 2);  // dtype given by the call, clamp forwarded, scale not written
    CHECK(*s.g[r].kwarg("dtype") == Value(ScalarType::Float));
    CHECK(*s.g[r].kwarg("clamp") == Value(true));
  }
}

TEST_CASE("forward_kwargs counts and describes a kwarg it drops because the new op has no such argument") {
  // The new op has no `x`: a node that writes its input by keyword loses that kwarg (the
  // pattern's "a" and "b" carry the inputs). Where the matched op is not known at compile
  // time (alternatives), every kwarg the new op lacks is such a drop.
  constexpr auto rule = rewrite<"fwd">(scale_cast(aten::mm("a"_x, "b"_x).users<1>(), "dtype"_kw = _),
                                       forward_kwargs(mm_scale_cast, "a"_x, "b"_x));
  Seed s = seed(false);
  NodeId mm = s.g[s.sc].arg(0)->node();
  s.g.set_args(s.sc, {}, {{"x", Value(NodeRef{mm})}, {"dtype", Value(ScalarType::Half)}});
  PassStats st = sweep(s.g, rule_set(rule));
  REQUIRE(st.rules[0].matches == 1);
  CHECK(st.rules[0].kwargs_dropped == 1);
  CHECK(st.rules[0].first_drop == "scale_cast: kwarg 'x' dropped: seedlib.mm_scale_cast.default has no such argument");
  NodeId r = result(s.g);
  REQUIRE(s.g[r].kwargs().size() == 1);
  CHECK(s.g[r].kwargs()[0].name == "dtype");

  constexpr auto relu_cast = op<"fwdtest::relu_cast(Tensor x, *, ScalarType dtype, int bits=8) -> Tensor">;
  constexpr auto either = rewrite<"either">(
      scale_cast(aten::mm("a"_x, "b"_x).users<1>(), "dtype"_kw = _) | relu_cast(aten::mm("a"_x, "b"_x).users<1>(), "dtype"_kw = _),
      forward_kwargs(mm_scale_cast, "a"_x, "b"_x));
  Graph g;
  NodeId x = g.placeholder("x"), w = g.placeholder("w");
  NodeId m2 = g.call(A("aten.mm.default"), {NodeRef{x}, NodeRef{w}});
  NodeId rc = g.call(relu_cast.id(), {NodeRef{m2}}, {{"dtype", Value(ScalarType::Half)}, {"bits", Value(std::int64_t{4})}});
  g.output({NodeRef{rc}});
  PassStats st2 = sweep(g, rule_set(either));
  REQUIRE(st2.rules[0].matches == 1);
  CHECK(st2.rules[0].kwargs_dropped == 1);
  CHECK(st2.rules[0].first_drop == "relu_cast: kwarg 'bits' dropped: seedlib.mm_scale_cast.default has no such argument");
}

TEST_CASE("callback: the typed match and a builder") {
  std::vector<std::string> seen;
  auto rule = rewrite<"cb">(seed_pattern, [&seen](const auto& m, RewriteBuilder& b) -> NodeId {
    DType d = get<"dtype">(m);  // the free form: no `m.template get<...>()` in a generic lambda
    bool clamp = m.template get<"clamp">();
    seen.push_back(std::string(torch_name(d)) + (clamp ? " clamp" : " noclamp"));
    if (d != DType::Half) return no_node;  // decline: rolled back
    NodeId a = m.template get<"a">();
    // Every kwarg of the matched root, typed, including those the pattern never named.
    std::vector<Kwarg> kw(m.root_node().kwargs().begin(), m.root_node().kwargs().end());
    return b.call(mm_scale_cast.id(), {NodeRef{a}, Value(NodeRef{m.template get<"b">()})}, kw);
  });
  Seed s = seed(true);
  PassStats st = sweep(s.g, rule_set(rule));
  CHECK(st.rules[0].matches == 1);
  CHECK(seen == std::vector<std::string>{"float16 clamp"});
  CHECK(*s.g[result(s.g)].kwarg("clamp") == Value(true));
}

TEST_CASE("a declining callback leaves the graph as it was") {
  auto rule = rewrite<"cb">(seed_pattern, [](const auto& m, RewriteBuilder& b) -> NodeId {
    emit(aten::relu("a"_x), b, m);  // something built, then declined
    return no_node;
  });
  Seed s = seed(false);
  std::string before = dump(s.g);
  PassStats st = sweep(s.g, rule_set(rule));
  CHECK(st.rules[0].failed == 1);
  CHECK(dump(s.g) == before);
}

TEST_CASE("constants, lists and schema defaults filling positional gaps") {
  // relu(x) -> embedding(x, x, sparse=True): padding_idx and scale_grad_by_freq (positional,
  // before sparse) take their schema defaults; the new op's keyword-only args go to kwargs.
  constexpr auto rule = rewrite<"gap">(aten::relu("x"_x), aten::embedding("x"_x, "x"_x, "sparse"_kw = true));
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId r = g.call(A("aten.relu.default"), {NodeRef{x}});
  g.output({NodeRef{r}});
  sweep(g, rule_set(rule));
  NodeId e = result(g);
  REQUIRE(g[e].args().size() == 5);
  CHECK(g[e].args()[2] == Value(std::int64_t{-1}));
  CHECK(g[e].args()[3] == Value(false));
  CHECK(g[e].args()[4] == Value(true));

  constexpr auto rule2 = rewrite<"sum">(aten::relu("x"_x),
                                         aten::sum.dim_IntList(aten::neg("x"_x), list(1, -1), "dtype"_kw = DType::Float));
  Graph h;
  NodeId y = h.placeholder("y");
  NodeId r2 = h.call(A("aten.relu.default"), {NodeRef{y}});
  h.output({NodeRef{r2}});
  PassStats st = sweep(h, rule_set(rule2));
  CHECK(st.rules[0].nodes_added == 2);
  NodeId s = result(h);
  CHECK(op_name(h[s].op()) == "aten.sum.dim_IntList");
  CHECK(h[s].args()[1] == ints({1, -1}));
  CHECK(*h[s].kwarg("dtype") == Value(ScalarType::Float));
  NodeId n = h[s].args()[0].node();
  CHECK(op_name(h[n].op()) == "aten.neg.default");
  CHECK(h.comes_before(n, s));
  verify(h);
}

TEST_CASE("a placeholder as the replacement: uses of the root go to an existing node") {
  constexpr auto rule = rewrite<"permute_identity">(
      extra_check(aten::permute(aten::permute("x"_x, slot<"p1", IntList>).users<1>(), slot<"p2", IntList>),
                  [](const auto& m) {
                    auto p1 = m.template get<"p1">();
                    auto p2 = m.template get<"p2">();
                    if (p1.size() != p2.size()) return false;
                    for (std::size_t i = 0; i < p2.size(); ++i)
                      if (p2[i] < 0 || static_cast<std::size_t>(p2[i]) >= p1.size() ||
                          p1[static_cast<std::size_t>(p2[i])] != static_cast<std::int64_t>(i))
                        return false;
                    return true;
                  }),
      "x"_x);
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId p1 = g.call(A("aten.permute.default"), {NodeRef{x}, ints({0, 2, 1})});
  NodeId p2 = g.call(A("aten.permute.default"), {NodeRef{p1}, ints({0, 2, 1})});
  NodeId q = g.call(A("aten.permute.default"), {NodeRef{p2}, ints({1, 0, 2})});
  g.output({NodeRef{q}});
  auto rules = rule_set(rule);
  // q's inner permute p2 has one user, but q composed with p2 is not the identity.
  auto ex = explain(g, rules, q);
  REQUIRE(ex.size() == 1);
  CHECK_FALSE(ex[0].matches);
  CHECK(ex[0].why.find("extra_check") != std::string::npos);
  PassStats st = sweep(g, rules);
  CHECK(st.rules[0].matches == 1);
  CHECK(st.rules[0].nodes_added == 0);
  CHECK(g[q].args()[0].node() == x);
}

TEST_CASE("explain across rules names the failing pattern node and argument") {
  constexpr auto gelu_tanh = rewrite<"gelu_tanh">(aten::gelu("x"_x, "approximate"_kw = "tanh"),
                                                  op<"bench::gelu_tanh(Tensor x) -> Tensor">("x"_x));
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId ge = g.call(A("aten.gelu.default"), {NodeRef{x}});  // approximate absent: 'none'
  g.output({NodeRef{ge}});
  auto rules = rule_set(gelu_tanh);
  auto ex = explain(g, rules, ge);
  REQUIRE(ex.size() == 1);
  CHECK_FALSE(ex[0].matches);
  CHECK(ex[0].why.find("approximate") != std::string::npos);
  CHECK(ex[0].why.find("none") != std::string::npos);
  CHECK(sweep(g, rules).total_matches() == 0);
}
