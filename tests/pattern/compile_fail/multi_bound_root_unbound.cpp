// A further root of multi() that is a placeholder naming no node an earlier root bound.
#include <ctmatch/pattern.hpp>
using namespace ctmatch::dsl;
constexpr auto p = multi(aten::exp(aten::neg("x"_x)), "n"_x);
bool f(const ctmatch::Graph& g, ctmatch::NodeId n) { return match(p, g, n).has_value(); }
