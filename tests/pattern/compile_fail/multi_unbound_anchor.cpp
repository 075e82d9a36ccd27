// A further root of multi() whose placeholder was not bound by an earlier root.
#include <ctmatch/pattern.hpp>
using namespace ctmatch::dsl;
constexpr auto scale_cast =
    op<"seedlib::scale_cast(Tensor x, *, ScalarType dtype, bool clamp=False, float scale=1.0) -> Tensor">;
constexpr auto p = multi(getitem(aten::split_with_sizes("x"_x, _), 0), getitem("s"_x, 1));
bool f(const ctmatch::Graph& g, ctmatch::NodeId n) { return match(p, g, n).has_value(); }
