// Must not compile: the replacement's fused op leaves out `dtype`, a required keyword-only
// argument, and forwards no kwargs: every match would otherwise roll back at run time.
#include <ctmatch/pattern.hpp>
#include <ctmatch/rewrite.hpp>

using namespace ctmatch::dsl;

constexpr auto scale_cast =
    op<"failtest::scale_cast(Tensor x, *, ScalarType dtype, bool clamp=False) -> Tensor">;
constexpr auto fused =
    op<"failtest::mm_scale_cast(Tensor a, Tensor b, *, ScalarType dtype, bool clamp=False) -> Tensor">;

constexpr auto rule = rewrite<"bad">(scale_cast(aten::mm("a"_x, "b"_x), "dtype"_kw = slot<"dtype", DType>),
                                     fused("a"_x, "b"_x));

int main() {
  ctmatch::Graph g;
  return ctmatch::sweep(g, ctmatch::rule_set(rule)).total_matches() == 0 ? 0 : 1;
}
