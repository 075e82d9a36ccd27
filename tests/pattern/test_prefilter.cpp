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
