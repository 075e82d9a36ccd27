// A downstream compiler's own pass, in one page: it declares its op from a schema string,
// writes a rule with typed kwargs, runs the pass on a graph and prints the statistics.
//
// The rule: my::quantize(my::dequantize(x, scale=s), dtype=d) with the same scale and an int
// dtype is a requantize; fuse it into my::requant(x, scale=s, dtype=d).
#include <ctmatch/ctmatch.hpp>

#include <cstdio>

using namespace ctmatch;
using namespace ctmatch::dsl;

// 1. The ops, from their schemas (the names, positions, types and defaults are known at
//    compile time; the schema is registered on first use).
constexpr auto dequantize = op<"my::dequantize(Tensor x, *, float scale, int zero_point=0) -> Tensor">;
constexpr auto quantize = op<"my::quantize(Tensor x, *, float scale, ScalarType dtype) -> Tensor">;
constexpr auto requant = op<"my::requant(Tensor x, *, float scale, ScalarType dtype) -> Tensor">;

// 2. The rule: typed slots (a double, a DType), a repeated name ("s" must be the same scale in
//    both places), a check on the match, and a declarative replacement.
constexpr auto fuse_requant = rewrite<"fuse_requant">(
    extra_check(quantize(dequantize("x"_x, "scale"_kw = slot<"s", double>).users<1>(), "scale"_kw = slot<"s", double>,
                         "dtype"_kw = slot<"d", DType>),
                [](const auto& m) { return get<"d">(m) == DType::Char || get<"d">(m) == DType::Byte; }),
    requant("x"_x, "scale"_kw = slot<"s", double>, "dtype"_kw = slot<"d", DType>));

int main() {
  // 3. A graph (built here; io::read_graph_file reads FX text or torch.export JSON).
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId dq = g.call(dequantize.id(), {NodeRef{x}}, {{"scale", 0.5}});
  NodeId q = g.call(quantize.id(), {NodeRef{dq}}, {{"scale", 0.5}, {"dtype", ScalarType::Char}});
  NodeId dq2 = g.call(dequantize.id(), {NodeRef{q}}, {{"scale", 0.5}});
  NodeId q2 = g.call(quantize.id(), {NodeRef{dq2}}, {{"scale", 0.25}, {"dtype", ScalarType::Char}});  // scale differs
  g.output({NodeRef{q2}});

  // 4. The pass: a rule set (here one rule), run as a sweep; then the statistics.
  auto rules = rule_set(fuse_requant);
  PassStats st = sweep(g, rules);
  for (const RuleStats& r : st.by_name())
    std::printf("%.*s: %zu match(es), %zu node(s) added, %zu removed\n", static_cast<int>(r.name.size()), r.name.data(), r.matches, r.nodes_added,
                r.nodes_removed);
  std::printf("nodes %zu -> %zu\n", st.nodes_before, st.nodes_after);

  // 5. Why the second pair did not fuse.
  std::printf("%s", format_explanations(g, q2, explain(g, rules, q2)).c_str());
  return st.total_matches() == 1 && g.size() == 5 ? 0 : 1;
}
