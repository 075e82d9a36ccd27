// get<> of a name the pattern never binds.
#include <ctmatch/pattern.hpp>
using namespace ctmatch::dsl;
constexpr auto scale_cast =
    op<"seedlib::scale_cast(Tensor x, *, ScalarType dtype, bool clamp=False, float scale=1.0) -> Tensor">;
constexpr auto p = scale_cast("x"_x, "dtype"_kw = slot<"dtype", DType>);
ctmatch::ScalarType f(const ctmatch::Graph& g, ctmatch::NodeId n) {
  auto m = match(p, g, n);
  return m->get<"dtyp">();
}
