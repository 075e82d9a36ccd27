// Transactions and safety checks: each test builds a case that would go wrong without the
// mechanism (a half-done rewrite left in the graph, an interior node computed twice, a read
// moved across a write).
#include <doctest/doctest.h>

#include "hand_rules.hpp"

using namespace ctmatch;
using namespace rwtest;

namespace {
struct Chain {
  Graph g;
  NodeId x, v1, v2;
};
Chain two_views() {
  Chain c;
  c.x = c.g.placeholder("x");
  c.v1 = c.g.call(view_op(), {NodeRef{c.x}, ints({8})});
  c.v2 = c.g.call(view_op(), {NodeRef{c.v1}, ints({2, 4})});
  c.g.output({NodeRef{c.v2}});
  return c;
}

template <Failure F>
void check_rolled_back(const char* expect_error) {
  Chain c = two_views();
  std::string before = dump(c.g);
  PassOptions o;
  o.verify_after_pass = true;
  PassStats st = sweep(c.g, rule_set(Failing<F>{}), o);
  CHECK(st.rules[0].matches == 0);
  CHECK(dump(c.g) == before);  // byte for byte: nothing created, erased or rewired
  verify(c.g);
  if (expect_error) {
    CHECK(st.rules[0].failed == 1);
    CHECK(st.rules[0].first_error.find(expect_error) != std::string::npos);
  } else {
    CHECK(st.rules[0].failed == 0);
  }
  // The graph is still usable: a good rule applies afterwards.
  CHECK(sweep(c.g, rule_set(ViewView<>{}), o).rules[0].matches == 1);
}
}  // namespace

TEST_CASE("a failing rewrite leaves the graph exactly as before") {
  SUBCASE("check returns false") { check_rolled_back<Failure::CheckFalse>(nullptr); }
  SUBCASE("builder throws") { check_rolled_back<Failure::Throws>("builder failed"); }
  SUBCASE("replacement declines") { check_rolled_back<Failure::Declines>("declined"); }
  SUBCASE("verifier objects: the replacement uses the root") { check_rolled_back<Failure::UsesRoot>("defined after"); }
  SUBCASE("arguments do not fit the op's schema") { check_rolled_back<Failure::BadArgs>("missing required argument"); }
}

TEST_CASE("a failing rewrite can be rethrown, still rolled back") {
  Chain c = two_views();
  std::string before = dump(c.g);
  PassOptions o;
  o.rethrow = true;
  CHECK_THROWS_WITH(sweep(c.g, rule_set(Failing<Failure::Throws>{}), o), "builder failed");
  CHECK(dump(c.g) == before);
}

TEST_CASE("a failing rewrite in the middle of a pass does not disturb the others") {
  // Two independent view pairs; the failing rule fails on both, the good rule after it in the
  // set still applies to both (rules are tried in order while the root is alive).
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId a1 = g.call(view_op(), {NodeRef{x}, ints({8})});
  NodeId a2 = g.call(view_op(), {NodeRef{a1}, ints({2, 4})});
  NodeId b1 = g.call(view_op(), {NodeRef{x}, ints({8})});
  NodeId b2 = g.call(view_op(), {NodeRef{b1}, ints({4, 2})});
  g.output({NodeRef{a2}, NodeRef{b2}});
  PassOptions o;
  o.verify_each_rewrite = true;
  PassStats st = sweep(g, rule_set(Failing<Failure::Throws>{}, ViewView<>{}), o);
  CHECK(st.rules[0].failed == 2);
  CHECK(st.rules[1].matches == 2);
  CHECK(g.size() == 4);  // x, two views, output
}

TEST_CASE("interior nodes used outside the match are not erased: the match is refused") {
  // v1 = view(x); v2 = view(v1); r = relu(v1). A rule without a users constraint matches
  // view(view(x)) at v2; erasing v1 is impossible and fusing would compute it twice.
  auto build = [](Graph& g) {
    NodeId x = g.placeholder("x");
    NodeId v1 = g.call(view_op(), {NodeRef{x}, ints({8})});
    NodeId v2 = g.call(view_op(), {NodeRef{v1}, ints({2, 4})});
    NodeId r = g.call(relu_op(), {NodeRef{v1}});
    g.output({NodeRef{v2}, NodeRef{r}});
    return v2;
  };
  PassOptions o;
  o.verify_each_rewrite = true;
  {
    Graph g;
    NodeId v2 = build(g);
    std::string before = dump(g);
    auto rules = rule_set(ViewView<false>{});
    PassStats st = sweep(g, rules, o);
    CHECK(st.rules[0].matches == 0);
    CHECK(st.rules[0].refused == 1);
    CHECK(dump(g) == before);
    auto ex = explain(g, rules, v2);
    REQUIRE(ex.size() == 1);
    CHECK(ex[0].why == "refused: interior node view is also used by relu, outside the match");
  }
  {
    // The rule opts out: it applies, and v1 survives for relu.
    Graph g;
    build(g);
    PassStats st = sweep(g, rule_set(ViewView<false, true>{}), o);
    CHECK(st.rules[0].matches == 1);
    CHECK(st.rules[0].nodes_removed == 1);
    CHECK(g.find("view") != no_node);
    CHECK(g.find("view_1") == no_node);
  }
}

TEST_CASE("no match spans a mutating node") {
  // v1 = view(x); add_(y, z) writes y; v2 = view(v1). v1 and v2 are in different mutation
  // regions: the match is refused, although it is structurally fine.
  auto build = [](Graph& g, bool out_form) {
    NodeId x = g.placeholder("x");
    NodeId y = g.placeholder("y");
    NodeId v1 = g.call(view_op(), {NodeRef{x}, ints({8})});
    NodeId m = out_form ? g.call(neg_out_op(), {NodeRef{x}}, {{"out", Value(NodeRef{y})}})
                        : g.call(add_inplace_op(), {NodeRef{y}, NodeRef{x}});
    NodeId v2 = g.call(view_op(), {NodeRef{v1}, ints({2, 4})});
    // A pair after the mutation is fine.
    NodeId w1 = g.call(view_op(), {NodeRef{m}, ints({8})});
    NodeId w2 = g.call(view_op(), {NodeRef{w1}, ints({2, 4})});
    g.output({NodeRef{v2}, NodeRef{w2}});
    return v2;
  };
  for (bool out_form : {false, true}) {
    CAPTURE(out_form);
    Graph g;
    NodeId v2 = build(g, out_form);
    auto rules = rule_set(ViewView<>{});
    PassStats st = sweep(g, rules, {});
    CHECK(st.rules[0].matches == 1);
    CHECK(st.rules[0].refused == 1);
    CHECK(g[v2].alive());
    CHECK(g.find("view_3") == no_node);  // w2 was rewritten
    auto ex = explain(g, rules, v2);
    REQUIRE(ex.size() == 1);
    CHECK(ex[0].why.find("mutating") != std::string::npos);

    // With the barrier off (Inductor's default for a bare PatternMatcherPass) both apply.
    Graph h;
    build(h, out_form);
    PassOptions off;
    off.prevent_match_across_mutations = false;
    CHECK(sweep(h, rules, off).rules[0].matches == 2);
  }
}

TEST_CASE("is_mutating: schema writes, out= kwargs, in-place methods") {
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId a = g.call(add_inplace_op(), {NodeRef{x}, NodeRef{x}});
  NodeId n = g.call(neg_out_op(), {NodeRef{x}}, {{"out", Value(NodeRef{x})}});
  NodeId n0 = g.call(neg_out_op(), {NodeRef{x}});  // out defaults to None: not a write
  // An op without a known signature: its kwargs are all there is to go by.
  NodeId u = g.call(intern_op("test.unknown_out.default"), {NodeRef{x}}, {{"out", Value(NodeRef{x})}});
  NodeId u0 = g.call(intern_op("test.unknown_out.default"), {NodeRef{x}}, {{"alpha", Value(2.0)}});
  NodeId m = g.create(NodeSpec{NodeKind::CallMethod, no_op, "m", "mul_", {NodeRef{x}, NodeRef{x}}, {}});
  NodeId d = g.create(NodeSpec{NodeKind::CallMethod, no_op, "d", "__add__", {NodeRef{x}, NodeRef{x}}, {}});
  CHECK(is_mutating(g[a]));
  CHECK(is_mutating(g[n]));
  CHECK_FALSE(is_mutating(g[n0]));
  CHECK(is_mutating(g[u]));
  CHECK_FALSE(is_mutating(g[u0]));
  CHECK(is_mutating(g[m]));
  CHECK_FALSE(is_mutating(g[d]));
  CHECK_FALSE(is_mutating(g[x]));
}
