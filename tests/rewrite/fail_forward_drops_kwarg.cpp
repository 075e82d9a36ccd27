// Must not compile: forward_kwargs from scale_cast, whose keyword-only `scale` the fused op
// does not have, would drop a scale the matched node writes. The error names `scale`.
#include <ctmatch/pattern.hpp>
#include <ctmatch/rewrite.hpp>

using namespace ctmatch::dsl;

constexpr auto scale_cast =
    op<"failtest::scale_cast(Tensor x, *, ScalarType dtype, bool clamp=False, float scale=1.0) -> Tensor">;
constexpr auto fused = op<"failtest::mm_cast(Tensor a, Tensor b, *, ScalarType dtype, bool clamp=False) -> Tensor">;

constexpr auto rule = rewrite<"bad">(scale_cast(aten::mm("a"_x, "b"_x), "dtype"_kw = _),
                                     forward_kwargs(fused, "a"_x, "b"_x));

int main() {
  ctmatch::Graph g;
  return ctmatch::sweep(g, ctmatch::rule_set(rule)).total_matches() == 0 ? 0 : 1;
}
