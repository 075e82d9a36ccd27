// Must not compile: make()'s call gives slice's int `dim` a string.
#include <ctmatch/pattern.hpp>
#include <ctmatch/rewrite.hpp>

using namespace ctmatch::dsl;

constexpr auto rule = rewrite<"bad">(aten::relu("x"_x), [](const auto& m, ctmatch::RewriteBuilder& b) {
  return make(b, aten::slice.Tensor(use(get<"x">(m)), "one", 0, 4, 1));
});

int main() { return ctmatch::rule_set(rule).size == 1 ? 0 : 1; }
