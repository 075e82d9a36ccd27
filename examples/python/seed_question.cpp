// The forum question behind ctmatch, as rules written in C++ and used from Python: "how do I
// pass a non-scalar kwarg (a dtype, a bool) to a replacement pattern, and how do I get the
// matched node's kwargs?" The pattern matches mylib::my_custom_op(mm(a, b), ...) with typed
// slots for dtype and flag; the replacement calls mylib::my_fused_op(a, b, ...) with them and
// forwards every other kwarg the matched node wrote (`scale`, which the pattern never names).
// Both ops are defined in Python with torch.library (seed_question.py).
#include <ctmatch/pattern.hpp>
#include <ctmatch/python/rule_set_module.hpp>
#include <ctmatch/rewrite.hpp>

using namespace ctmatch::dsl;

constexpr auto my_custom_op =
    op<"mylib::my_custom_op(Tensor x, *, ScalarType dtype, bool flag=False, float scale=1.0) -> Tensor">;
constexpr auto my_fused_op =
    op<"mylib::my_fused_op(Tensor a, Tensor b, *, ScalarType dtype, bool flag=False, float scale=1.0) -> Tensor">;

constexpr auto fuse_mm_custom = rewrite<"fuse_mm_custom">(
    my_custom_op(aten::mm("a"_x, "b"_x).users<1>(), "dtype"_kw = slot<"dtype", DType>, "flag"_kw = slot<"flag", bool>),
    forward_kwargs(my_fused_op, "a"_x, "b"_x, "dtype"_kw = slot<"dtype", DType>, "flag"_kw = slot<"flag", bool>));

CTMATCH_PYTHON_RULES(seed_question_rules, ctmatch::rule_set(fuse_mm_custom))
