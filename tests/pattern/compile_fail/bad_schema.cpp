// A schema string that does not parse (missing comma).
#include <ctmatch/pattern.hpp>
using namespace ctmatch::dsl;
constexpr auto p = op<"pattest::h(Tensor x Tensor y) -> Tensor">("a"_x, "b"_x);
