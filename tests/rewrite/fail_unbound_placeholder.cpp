// Must not compile: the replacement uses "c", which the pattern never binds.
#include <ctmatch/pattern.hpp>
#include <ctmatch/rewrite.hpp>

using namespace ctmatch::dsl;

constexpr auto rule = rewrite<"bad">(aten::add.Tensor(aten::mm("a"_x, "b"_x), "bias"_x),
                                     aten::addmm("bias"_x, "a"_x, "c"_x));

int main() { return ctmatch::rule_set(rule).size == 1 ? 0 : 1; }
