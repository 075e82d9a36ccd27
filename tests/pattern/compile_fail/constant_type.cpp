// A constant whose type does not fit the argument (approximate is a str).
#include <ctmatch/pattern.hpp>
using namespace ctmatch::dsl;
constexpr auto scale_cast =
    op<"seedlib::scale_cast(Tensor x, *, ScalarType dtype, bool clamp=False, float scale=1.0) -> Tensor">;
constexpr auto p = aten::gelu("x"_x, "approximate"_kw = 1);
