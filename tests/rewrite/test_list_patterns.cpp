// each(e) with op calls in rewrites (Inductor's ListOf): every element's nodes belong to the
// match, so they are erased with it and safety-checked; names in e bind one thing in every
// element; an empty list binds nothing.
#include <doctest/doctest.h>

#include <algorithm>
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
}  // namespace

namespace {
// x -> split_with_sizes(x, [4, 4], 1) -> getitem 0, 1 -> cat(..., 1) -> relu -> output
struct SplitCat {
  Graph g;
  NodeId x, split, g0, g1, cat, relu;
};
SplitCat split_cat(bool swapped, bool extra_user) {
  SplitCat t;
  t.x = t.g.placeholder("x");
  t.split = t.g.call(A("aten.split_with_sizes.default"),
                     {NodeRef{t.x}, Value::list({Value(4), Value(4)}), Value(1)});
  OpId item = A("operator.getitem");
  t.g0 = t.g.call(item, {NodeRef{t.split}, Value(0)});
  t.g1 = t.g.call(item, {NodeRef{t.split}, Value(1)});
  std::vector<Value> parts{NodeRef{swapped ? t.g1 : t.g0}, NodeRef{swapped ? t.g0 : t.g1}};
  t.cat = t.g.call(A("aten.cat.default"), {Value::list(std::move(parts)), Value(1)});
  t.relu = t.g.call(A("aten.relu.default"), {NodeRef{t.cat}});
  if (extra_user) t.g.output({NodeRef{t.relu}, NodeRef{t.g0}});
  else t.g.output({NodeRef{t.relu}});
  return t;
}
// Inductor's splitwithsizes_cat_replace, structurally: a cat, along the split's dimension, of
// every output of one split_with_sizes in order, is its input.
constexpr auto split_cat_pattern = extra_check(
    aten::cat(each(getitem(aten::split_with_sizes("x"_x, slot<"sizes", IntList>, slot<"dim", std::int64_t>)
                                     .named<"s">(),
                                 _)),
              slot<"cat_dim", std::int64_t>),
    [](const auto& m, const Graph& g) {
      if (get<"dim">(m) != get<"cat_dim">(m)) return false;
      const std::vector<Value>& parts = *g[m.root()].arg(0)->items();
      if (parts.size() != get<"sizes">(m).size()) return false;
      for (std::size_t i = 0; i < parts.size(); ++i)
        if (g[parts[i].node()].args()[1] != Value(static_cast<std::int64_t>(i))) return false;  // getitem has no schema
      return true;
    });
}  // namespace

TEST_CASE("each(e) with op calls: every element's nodes belong to the match") {
  constexpr auto rule = rewrite<"split_cat">(split_cat_pattern, "x"_x);
  SplitCat t = split_cat(false, false);
  auto m = match(split_cat_pattern, t.g, t.cat);
  REQUIRE(m);
  std::vector<NodeId> covered(m->matched_nodes().begin(), m->matched_nodes().end());
  for (NodeId n : {t.cat, t.split, t.g0, t.g1})
    CHECK(std::find(covered.begin(), covered.end(), n) != covered.end());

  PassStats st = sweep(t.g, rule_set(rule));
  CHECK(st.rules[0].matches == 1);
  CHECK(t.g[t.relu].args()[0].node() == t.x);
  // the getitems and the split went with the cat
  CHECK_FALSE(t.g[t.g0].alive());
  CHECK_FALSE(t.g[t.g1].alive());
  CHECK_FALSE(t.g[t.split].alive());
  CHECK(t.g.size() == 3);
  CHECK_NOTHROW(verify(t.g));

  // Out of order: the check says no; nothing changes.
  SplitCat o = split_cat(true, false);
  CHECK_FALSE(match(split_cat_pattern, o.g, o.cat));
  // A getitem also used outside the match: the safety check refuses (it is part of the match now).
  SplitCat u = split_cat(false, true);
  const std::string before = io::write_fx_text(u.g);
  PassStats su = sweep(u.g, rule_set(rule));
  CHECK(su.rules[0].matches == 0);
  CHECK(su.rules[0].refused == 1);
  CHECK(io::write_fx_text(u.g) == before);
}

TEST_CASE("each(e) with op calls: names in e bind the same node in every element") {
  // cat of getitems of two different splits: "s" cannot be both.
  Graph g;
  NodeId x = g.placeholder("x");
  OpId split = A("aten.split_with_sizes.default"), item = A("operator.getitem");
  NodeId s1 = g.call(split, {NodeRef{x}, Value::list({Value(4), Value(4)}), Value(1)});
  NodeId s2 = g.call(split, {NodeRef{x}, Value::list({Value(4), Value(4)}), Value(1)});
  NodeId a = g.call(item, {NodeRef{s1}, Value(0)});
  NodeId b = g.call(item, {NodeRef{s2}, Value(1)});
  NodeId c = g.call(A("aten.cat.default"), {Value::list({NodeRef{a}, NodeRef{b}}), Value(1)});
  g.output({NodeRef{c}});
  CHECK_FALSE(match(split_cat_pattern, g, c));
  // and an empty list matches each(e) with no nodes but the root's
  NodeId empty = g.call(A("aten.cat.default"), {Value::list({}), Value(1)});
  constexpr auto any_cat = aten::cat(each(getitem("s"_x, _)), _);
  auto m = match(any_cat, g, empty);
  REQUIRE(m);
  CHECK(m->matched_nodes().size() == 1);
  CHECK_FALSE(m->has<"s">());  // bound by no element
}

TEST_CASE("typed builder: make(b, op(use(x), computed values...)) for a computed replacement") {
  // getitem(split_with_sizes(x, sizes, dim), i) -> slice(x, dim, start, start + sizes[i]):
  // the bounds are computed from the match, the call is checked against slice's schema.
  constexpr auto rule = rewrite<"split_getitem_to_slice">(
      getitem(aten::split_with_sizes("x"_x, slot<"sizes", IntList>, slot<"dim", std::int64_t>), slot<"i", std::int64_t>),
      [](const auto& m, RewriteBuilder& b) -> NodeId {
        IntList sizes = get<"sizes">(m);
        std::int64_t i = get<"i">(m), start = 0;
        if (i < 0 || static_cast<std::size_t>(i) >= sizes.size()) return no_node;
        for (std::int64_t k = 0; k < i; ++k) start += sizes[static_cast<std::size_t>(k)];
        std::int64_t end = start + sizes[static_cast<std::size_t>(i)];
        return make(b, aten::slice.Tensor(use(get<"x">(m)), get<"dim">(m), start, end, 1));
      });
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId s = g.call(A("aten.split_with_sizes.default"), {NodeRef{x}, Value::list({Value(3), Value(5)}), Value(1)});
  NodeId g0 = g.call(A("operator.getitem"), {NodeRef{s}, Value(0)});
  NodeId g1 = g.call(A("operator.getitem"), {NodeRef{s}, Value(1)});
  g.output({NodeRef{g0}, NodeRef{g1}});
  PassStats st = fixpoint(g, rule_set(rule.allow_shared_interior()));
  CHECK(st.rules[0].matches == 2);
  CHECK_NOTHROW(verify(g));
  const auto& outs = *g[g.last()].args()[0].items();
  const Node& a = g[outs[0].node()];
  const Node& c = g[outs[1].node()];
  CHECK(op_name(a.op()) == "aten.slice.Tensor");
  CHECK(a.args()[0] == Value(NodeRef{x}));
  CHECK(*a.arg("start") == Value(0));
  CHECK(*a.arg("end") == Value(3));
  CHECK(*c.arg("start") == Value(3));
  CHECK(*c.arg("end") == Value(8));
  CHECK(*c.arg("dim") == Value(1));
  CHECK_FALSE(g[s].alive());  // its last getitem gone, the split went too

  // make() inside a callback that then declines: the made node is taken back.
  Graph h;
  NodeId y = h.placeholder("y");
  NodeId r = h.call(A("aten.relu.default"), {NodeRef{y}});
  h.output({NodeRef{r}});
  const std::string before = io::write_fx_text(h);
  constexpr auto declines = rewrite<"declines">(aten::relu("y"_x), [](const auto& m, RewriteBuilder& b) {
    make(b, aten::neg(use(get<"y">(m))));
    return no_node;
  });
  CHECK(sweep(h, rule_set(declines)).rules[0].failed == 1);
  CHECK(io::write_fx_text(h) == before);
}
