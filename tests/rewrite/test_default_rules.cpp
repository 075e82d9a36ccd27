// The default clean-ups: each fires where it should, and refuses where the metadata it needs
// is absent or the rewrite would be wrong.
#include <doctest/doctest.h>

#include <ctmatch/io/read.hpp>
#include <ctmatch/rewrite.hpp>
#include <ctmatch/rules/default.hpp>
#include <ctmatch/schema/builtin.hpp>

#include "hand_rules.hpp"
#include "wide_graphs.hpp"

using namespace ctmatch;
using rwtest::ints;

namespace {
OpId A(const char* name) {
  schema::ensure_builtin_schemas();
  return intern_op(name);
}
std::vector<Value> shape(std::initializer_list<std::int64_t> v) {
  std::vector<Value> s;
  for (auto i : v) s.emplace_back(i);
  return s;
}
NodeId result(const Graph& g) { return g[g.last()].args()[0].items()->at(0).node(); }
std::map<std::string, std::size_t> run(Graph& g) {
  PassOptions o;
  o.verify_each_rewrite = true;
  return fixpoint(g, rules::default_rules(), o).matches();
}
}  // namespace

TEST_CASE("view_noop and expand_noop need the shape, and use it") {
  for (bool with_meta : {true, false}) {
    Graph g;
    NodeId x = g.placeholder("x");
    if (with_meta) g[x].edit_meta().shape = shape({2, 3});
    NodeId v = g.call(A("aten.view.default"), {NodeRef{x}, ints({2, 3})});
    NodeId e = g.call(A("aten.expand.default"), {NodeRef{v}, ints({-1, 3})});
    NodeId r = g.call(A("aten.relu.default"), {NodeRef{e}});
    g.output({NodeRef{r}});
    auto m = run(g);
    if (with_meta) {
      CHECK(m == std::map<std::string, std::size_t>{{"expand_noop", 1}, {"view_noop", 1}});
      CHECK(g[r].args()[0].node() == x);
    } else {
      CHECK(m.empty());
    }
  }
}

TEST_CASE("view chains and permute chains collapse; identity permutes vanish") {
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId v1 = g.call(A("aten.view.default"), {NodeRef{x}, ints({6})});
  NodeId v2 = g.call(A("aten.view.default"), {NodeRef{v1}, ints({3, 2})});
  NodeId v3 = g.call(A("aten.view.default"), {NodeRef{v2}, ints({1, 6})});
  NodeId other = g.call(A("aten.relu.default"), {NodeRef{v1}});  // keeps v1 alive
  NodeId p1 = g.call(A("aten.permute.default"), {NodeRef{v3}, ints({1, 0})});
  NodeId p2 = g.call(A("aten.permute.default"), {NodeRef{p1}, ints({1, 0})});
  NodeId q = g.call(A("aten.permute.default"), {NodeRef{p2}, ints({0, 1})});
  NodeId p3 = g.call(A("aten.permute.default"), {NodeRef{x}, ints({2, 0, 1})});
  NodeId p4 = g.call(A("aten.permute.default"), {NodeRef{p3}, ints({0, 2, 1})});
  g.output({NodeRef{q}, NodeRef{other}, NodeRef{p4}});
  auto m = run(g);
  CHECK(m.at("view_view") == 2);
  CHECK(m.count("permute_permute") == 1);
  // out[0] is now view(x, [1, 6]); relu still uses the first view; p4 is one permute of x.
  NodeId o0 = result(g);
  CHECK(op_name(g[o0].op()) == "aten.view.default");
  CHECK(g[o0].args()[0].node() == x);
  CHECK(g[o0].args()[1] == ints({1, 6}));
  CHECK(g[other].alive());
  NodeId o2 = g[g.last()].args()[0].items()->at(2).node();
  CHECK(g[o2].args()[0].node() == x);
  CHECK(g[o2].args()[1] == ints({2, 1, 0}));  // [2,0,1] then [0,2,1]
  verify(g);
}

TEST_CASE("clone and _to_copy removal: not for graph outputs, not when written, only when the dtype is known") {
  Graph g;
  NodeId x = g.placeholder("x");
  g[x].edit_meta().dtype = ScalarType::Float;
  NodeId c1 = g.call(A("aten.clone.default"), {NodeRef{x}});
  NodeId r1 = g.call(A("aten.relu.default"), {NodeRef{c1}});
  NodeId c2 = g.call(A("aten.clone.default"), {NodeRef{x}});  // an output: stays
  NodeId t1 = g.call(A("aten._to_copy.default"), {NodeRef{x}}, {{"dtype", Value(ScalarType::Float)}});
  NodeId r2 = g.call(A("aten.relu.default"), {NodeRef{t1}});
  NodeId t2 = g.call(A("aten._to_copy.default"), {NodeRef{x}}, {{"dtype", Value(ScalarType::Half)}});
  NodeId r3 = g.call(A("aten.relu.default"), {NodeRef{t2}});
  g.output({NodeRef{r1}, NodeRef{c2}, NodeRef{r2}, NodeRef{r3}});
  auto m = run(g);
  CHECK(m == std::map<std::string, std::size_t>{{"clone_noop", 1}, {"to_copy_noop", 1}});
  CHECK(g[r1].args()[0].node() == x);
  CHECK(g[c2].alive());
  CHECK(g[r2].args()[0].node() == x);
  CHECK(g[t2].alive());
  (void)r3;
}

TEST_CASE("to_copy_chain only when the first conversion is exact") {
  struct Case {
    ScalarType from, mid;
    bool fires;
  };
  for (Case c : {Case{ScalarType::Half, ScalarType::Float, true}, Case{ScalarType::Double, ScalarType::Half, false},
                 Case{ScalarType::Int, ScalarType::Double, true}, Case{ScalarType::Long, ScalarType::Double, false}}) {
    ScalarType from = c.from, mid = c.mid;
    bool fires = c.fires;
    CAPTURE(torch_name(from));
    Graph g;
    NodeId x = g.placeholder("x");
    g[x].edit_meta().dtype = from;
    NodeId a = g.call(A("aten._to_copy.default"), {NodeRef{x}}, {{"dtype", Value(mid)}});
    NodeId b = g.call(A("aten._to_copy.default"), {NodeRef{a}}, {{"dtype", Value(ScalarType::BFloat16)}});
    g.output({NodeRef{b}});
    auto m = run(g);
    CHECK(m.count("to_copy_chain") == (fires ? 1u : 0u));
  }
  static_assert(rules::converts_exactly(ScalarType::Char, ScalarType::Half));
  static_assert(!rules::converts_exactly(ScalarType::Float, ScalarType::Half));
  static_assert(!rules::converts_exactly(ScalarType::Int, ScalarType::Float));
}

TEST_CASE("mm + bias -> addmm when the dtypes agree and the bias broadcasts as addmm's does") {
  auto build = [](Graph& g, int bias_rank, ScalarType bias_dtype, bool swapped) {
    NodeId a = g.placeholder("a"), b = g.placeholder("b"), bias = g.placeholder("bias");
    std::vector<Value> s;
    for (int i = 0; i < bias_rank; ++i) s.emplace_back(std::int64_t{4});
    g[bias].edit_meta() = TensorMeta::of(bias_dtype, s);
    NodeId mm = g.call(A("aten.mm.default"), {NodeRef{a}, NodeRef{b}});
    g[mm].edit_meta() = TensorMeta::of(ScalarType::Float, shape({4, 4}));
    NodeId add = swapped ? g.call(A("aten.add.Tensor"), {NodeRef{bias}, NodeRef{mm}})
                         : g.call(A("aten.add.Tensor"), {NodeRef{mm}, NodeRef{bias}});
    g[add].edit_meta() = TensorMeta::of(ScalarType::Float, shape({4, 4}));  // carried over to the addmm
    g.output({NodeRef{add}});
  };
  for (bool swapped : {false, true}) {
    Graph ok, rank3, dtype;
    build(ok, 1, ScalarType::Float, swapped);
    build(rank3, 3, ScalarType::Float, swapped);
    build(dtype, 1, ScalarType::Half, swapped);
    CHECK(run(ok) == std::map<std::string, std::size_t>{{"mm_bias_addmm", 1}});
    CHECK(op_name(ok[result(ok)].op()) == "aten.addmm.default");
    CHECK(ok[result(ok)].meta().dtype == ScalarType::Float);
    // --explain names the part of the check that failed
    auto why = [](Graph& g) {  // both forms (mm first, bias first) are called mm_bias_addmm
      std::string all;
      for (const RuleExplanation& e : explain(g, rules::default_rules(), result(g)))
        if (e.rule == "mm_bias_addmm") all += e.why + "\n";
      return all;
    };
    CHECK(why(rank3).find("the check 'the bias is at most 2-d' to hold") != std::string::npos);
    CHECK(why(dtype).find("the check 'the bias has the mm's dtype' to hold") != std::string::npos);
    CHECK(run(rank3).empty());
    CHECK(run(dtype).empty());
  }
}

TEST_CASE("default rules on gpt2 (JSON, with metadata) keep the graph valid and reach a fixed point") {
  Graph g = io::read_graph_file(std::string(CTMATCH_TEST_DATA) + "/gpt2.export.json");
  std::size_t before = g.size();
  PassStats st = fixpoint(g, rules::default_rules());
  CHECK_FALSE(st.cap_hit);
  CHECK(st.total_matches() > 0);
  CHECK(g.size() < before);
  verify(g);
  CHECK(fixpoint(g, rules::default_rules()).total_matches() == 0);
}

TEST_CASE("a placeholder with 20,000 users: both drivers rewrite every one, and the graph stays whole") {
  // permute_noop takes each user `permute(x, [0, 1])` away: every rewrite drops a user of x and
  // gives it another (the relu that read the permute), on a users list far past the length at
  // which Graph keeps slot tables; and every relu feeds one cat of 20,000 inputs.
  const std::string text = fanout_fx_text(20000);
  for (bool fix : {false, true}) {
    INFO((fix ? "fixpoint" : "sweep"));
    Graph g = io::read_fx_text(text, "fanout.fx.txt");
    PassOptions o;
    o.verify_after_pass = true;
    PassStats s = fix ? fixpoint(g, rules::default_rules(), o) : sweep(g, rules::default_rules(), o);
    CHECK(s.total_matches() == 20000);
    const NodeId x = g.find("x");
    CHECK(g[x].num_users() == 20000);
    CHECK(g.size() == 20000 + 3);
    for (NodeId u : g[x].users()) CHECK(op_name(g[u].op()) == "aten.relu.default");
  }
}
