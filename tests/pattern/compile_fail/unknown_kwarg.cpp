// A keyword the op's schema does not have.
#include <ctmatch/pattern.hpp>
using namespace ctmatch::dsl;
constexpr auto scale_cast =
    op<"seedlib::scale_cast(Tensor x, *, ScalarType dtype, bool clamp=False, float scale=1.0) -> Tensor">;
constexpr auto p = scale_cast("x"_x, "dtyp"_kw = slot<"dtype", DType>);
