// An op call where the schema expects a non-Tensor argument (view's size is SymInt[]).
#include <ctmatch/pattern.hpp>
using namespace ctmatch::dsl;
constexpr auto scale_cast =
    op<"seedlib::scale_cast(Tensor x, *, ScalarType dtype, bool clamp=False, float scale=1.0) -> Tensor">;
constexpr auto p = aten::view("x"_x, aten::mm("a"_x, "b"_x));
