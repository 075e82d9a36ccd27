// Must not compile: a multi() pattern of two roots replaced by outputs(...) of one.
#include <ctmatch/pattern.hpp>
#include <ctmatch/rewrite.hpp>

using namespace ctmatch::dsl;

constexpr auto sin_op = op<"aten::sin(Tensor self) -> Tensor">;

constexpr auto rule = rewrite<"bad">(multi(aten::exp("x"_x), sin_op("x"_x)), outputs(aten::neg("x"_x)));

int main() { return ctmatch::rule_set(rule).size == 1 ? 0 : 1; }
