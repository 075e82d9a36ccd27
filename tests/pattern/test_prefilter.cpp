// might_match (pattern/prefilter.hpp): never false where the pattern matches, false where the
// root's first op-call argument is not a node of that op, and true where it cannot tell.
#include <doctest/doctest.h>

#include <string>
#include <type_traits>

#include <ctmatch/io/read.hpp>
#include <ctmatch/pattern.hpp>
#include <ctmatch/pattern/prefilter.hpp>
#include <ctmatch/schema/builtin.hpp>

#include "../../benchmarks/match_patterns.hpp"
#include "graph_builders.hpp"

using namespace ctmatch;
using namespace ctmatch::dsl;
using namespace pattest;

namespace {
/// Over every node of the pattern's root op (where a driver asks): a match implies
/// might_match. Returns how many it turned away.
template <class P>
std::size_t check_necessary(const P& p, const Graph& g) {
  std::size_t rejected = 0;
  for (const Node& n : g.nodes()) {
    if (n.op() != root_ops(p)[0]) continue;
    bool may = pattern::might_match(p, g, n.id());
    if (match(p, g, n.id())) {
      CAPTURE(n.name());
      CHECK(may);
    }
    rejected += !may;
  }
  return rejected;
}
}  // namespace

TEST_CASE("might_match: false only where the first op-call argument is of another op") {
  schema::ensure_builtin_schemas();
  Graph g;
  NodeId x = g.placeholder("x"), bias = g.placeholder("bias");
  NodeId v1 = g.call(id_of(aten::view), {ref(x), ints({8})});
  NodeId v2 = g.call(id_of(aten::view), {ref(v1), ints({2, 4})});
  NodeId m = g.call(id_of(aten::mm), {ref(x), ref(x)});
  NodeId right = g.call(id_of(aten::add.Tensor), {ref(bias), ref(m)});
  g.output({ref(v2), ref(right)});

  constexpr auto vv = aten::view(aten::view("x"_x, _), _);
  CHECK_FALSE(pattern::might_match(vv, g, v1));  // its input is a placeholder
  CHECK(pattern::might_match(vv, g, v2));
  CHECK(match(vv, g, v2));
  // Wrapped in extra_check, the same.
  constexpr auto checked = extra_check(vv, [](const auto&) { return true; });
  CHECK_FALSE(pattern::might_match(checked, g, v1));
  CHECK(pattern::might_match(checked, g, v2));

  // The op call is the second argument: that is the one looked at.
  constexpr auto bias_first = aten::add.Tensor("bias"_x, aten::mm("a"_x, "b"_x));
  constexpr auto mm_first = aten::add.Tensor(aten::mm("a"_x, "b"_x), "bias"_x);
  CHECK(pattern::might_match(bias_first, g, right));
  CHECK_FALSE(pattern::might_match(mm_first, g, right));
  // Commutative: the call may be either operand, so it cannot tell.
  constexpr auto either = mm_first.commutative();
  CHECK(pattern::might_match(either, g, right));
  CHECK(match(either, g, right));
  // No argument is an op call: nothing to look at.
  CHECK(pattern::might_match(aten::view("x"_x, _), g, v1));
}

TEST_CASE("might_match follows first op-call arguments down to prefilter_depth calls; multi tests its first root") {
  schema::ensure_builtin_schemas();
  static_assert(pattern::detail::prefilter_depth == 4);
  // view(view(view(view(view(x))))): each level is the first argument of the one above.
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId p = g.call(id_of(aten::permute), {ref(x), ints({1, 0})});
  NodeId chain[5];
  NodeId in = p;
  for (NodeId& v : chain) in = v = g.call(id_of(aten::view), {ref(in), ints({8})});
  g.output({ref(chain[4])});
  // Two levels down the input is a permute, not a view: turned away without matching.
  constexpr auto views3 = aten::view(aten::view(aten::view("x"_x, _), _), _);
  CHECK(match(views3, g, chain[2]));  // chain[0]'s input is the permute, bound to x
  CHECK(pattern::might_match(views3, g, chain[2]));
  constexpr auto views3_over_view = aten::view(aten::view(aten::view(aten::view("x"_x, _), _), _), _);
  CHECK_FALSE(pattern::might_match(views3_over_view, g, chain[2]));  // the 3rd level is the permute
  CHECK(pattern::might_match(views3_over_view, g, chain[3]));
  // Past prefilter_depth calls below the root it does not look: true, though match fails.
  constexpr auto views6 = aten::view(aten::view(aten::view(aten::view(aten::view(aten::view("x"_x, _), _), _), _), _), _);
  CHECK(pattern::might_match(views6, g, chain[4]));
  CHECK_FALSE(match(views6, g, chain[4]));
  // multi(): the first root's tree decides.
  constexpr auto two_roots = multi(aten::view(aten::view(aten::permute("x"_x, _).named<"t">(), _), _), "t"_x);
  CHECK_FALSE(pattern::might_match(two_roots, g, chain[2]));
  CHECK(pattern::might_match(two_roots, g, chain[1]));
}

TEST_CASE("might_match never turns away a match on the real graphs, and does turn failures away") {
  schema::ensure_builtin_schemas();
  using namespace match_bench;
  for (const char* file : {"seed_mlp.export.json", "resnet18.export.json", "gpt2.export.json", "bert.export.fx.txt"}) {
    CAPTURE(file);
    Graph g = io::read_graph_file(std::string(CTMATCH_TEST_DATA) + "/" + file);
    std::size_t rejected = check_necessary(view_view, g) + check_necessary(permute_identity, g) +
                           check_necessary(to_copy_pair, g) + check_necessary(mm_bias, g) +
                           check_necessary(attention, g) + check_necessary(gelu_tanh, g) +
                           check_necessary(layer_norm, g) + check_necessary(mm_scale_cast, g);
    // gpt2 and bert have views over other ops, adds over other ops than mm, and so on.
    if (std::string(file).starts_with("gpt2") || std::string(file).starts_with("bert")) CHECK(rejected > 0);
  }
}

TEST_CASE("might_match sees through where(): a call with a predicate is still that call") {
  schema::ensure_builtin_schemas();
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId v1 = g.call(id_of(aten::view), {ref(x), ints({8})});
  NodeId v2 = g.call(id_of(aten::view), {ref(v1), ints({2, 4})});
  g.output({ref(v2)});
  // The first op-call argument carries a predicate: its op is still looked at.
  constexpr auto inner_where = aten::view(aten::view("x"_x, _).where([](const Node&) { return true; }), _);
  CHECK_FALSE(pattern::might_match(inner_where, g, v1));
  CHECK(pattern::might_match(inner_where, g, v2));
  CHECK(match(inner_where, g, v2));
  // The root carries one that fails: the prefilter does not run it (the match does).
  constexpr auto root_where = aten::view(aten::view("x"_x, _), _).where([](const Node&) { return false; });
  CHECK_FALSE(pattern::might_match(root_where, g, v1));
  CHECK(pattern::might_match(root_where, g, v2));
  CHECK_FALSE(match(root_where, g, v2));
  // A slot with a predicate is no op call: nothing to look at.
  constexpr auto slot_where = aten::view(slot<"in", Value>.where([](const Value&) { return true; }), _);
  CHECK(pattern::might_match(slot_where, g, v1));
}

TEST_CASE("first_test: the prefilter's first level as data, none where it cannot look") {
  schema::ensure_builtin_schemas();
  constexpr auto vv = aten::view(aten::view("x"_x, _), _);
  CHECK(pattern::first_test(vv).index == 0);
  CHECK(pattern::first_test(vv).op == id_of(aten::view));
  constexpr auto bias_first = aten::add.Tensor("bias"_x, aten::mm("a"_x, "b"_x));
  CHECK(pattern::first_test(bias_first).index == 1);
  CHECK(pattern::first_test(bias_first).op == id_of(aten::mm));
  // Through extra_check, single_use and where(), as might_match.
  constexpr auto wrapped =
      extra_check(single_use(bias_first.where([](const Node&) { return true; })), [](const auto&) { return true; });
  CHECK(pattern::first_test(wrapped).index == 1);
  CHECK(pattern::first_test(wrapped).op == id_of(aten::mm));
  CHECK(pattern::first_test(bias_first.commutative()).index == pattern::FirstTest::npos);
  CHECK(pattern::first_test(aten::view("x"_x, _)).index == pattern::FirstTest::npos);
}
