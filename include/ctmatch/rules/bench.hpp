#pragma once
// The `bench` rule set: the eight rules of the ctmatch/Inductor benchmark, written in the DSL,
// so that `sweep(graph, bench_rules())` finds exactly what PyTorch Inductor's
// PatternMatcherPass finds with the reference implementation of the same rules.
//
// Parity with Inductor's pattern language, rule by rule:
//   - every pattern node except the root has exactly one user (Inductor's default `_users=1`);
//     leaves (placeholders) may have any number: `.users<1>()` on every interior call;
//   - Inductor's KeywordArg binds anything (a node or a constant); where a graph may hold a
//     constant (a bias, a mask, layer-norm weights that are None), the rule binds a Value slot
//     rather than a Tensor placeholder, so that it matches the same nodes;
//   - mm_bias is registered twice (mm as first, then as second operand), both named mm_bias;
//   - checks (Inductor's extra_check) are the patterns' extra_check or exact_kwargs.
//
//   #  name               pattern (root first)                                    replacement
//   1  view_view          view(view(x, _), size)                                  view(x, size)
//   2  permute_identity   permute(permute(x, p1), p2), p1[p2[i]] == i             x
//   3  to_copy_pair       _to_copy(_to_copy(x, dtype=d1), dtype=d2), kwargs exactly {dtype},
//                         d1, d2 floating (16/32/64 bit), itemsize(d1) >= itemsize(d2)   _to_copy(x, dtype=d2)
//   4  mm_bias            add.Tensor(mm(a, b), bias) / add.Tensor(bias, mm(a, b)), no alpha   addmm(bias, a, b)
//   5  attention          bmm(view(expand(clone(_softmax(add(mul(view(bmm(q, k), _), scale), mask), -1, False)), _), _), v),
//                         scale a float                                           bench.sdpa(q, k, v, mask, scale=scale)
//   6  gelu_tanh          gelu(x, approximate="tanh")                             bench.gelu_tanh(x)
//   7  layer_norm         getitem(native_layer_norm(x, shape, w, b, eps), 0)      bench.layer_norm(x, w, b, shape=shape, eps=eps)
//   8  mm_scale_cast      seedlib.scale_cast(mm(a, b), dtype=D, clamp=C, scale=S) seedlib.mm_scale_cast(a, b, dtype=D, clamp=C, scale=S)
#include <cstddef>
#include <cstdint>

#include "../pattern.hpp"
#include "../rewrite/pattern_rule.hpp"
#include "../rewrite/rule_set.hpp"

namespace ctmatch::rules {

/// The ops the benchmark rules rewrite to, and the seed model's op.
namespace bench_ops {
using pattern::Op;
// clang-format off
struct sdpa_op : Op<"bench::sdpa(Tensor q, Tensor k, Tensor v, Tensor mask, *, float scale) -> Tensor", sdpa_op> {};
inline constexpr sdpa_op sdpa{};
struct gelu_tanh_op : Op<"bench::gelu_tanh(Tensor x) -> Tensor", gelu_tanh_op> {};
inline constexpr gelu_tanh_op gelu_tanh{};
struct layer_norm_op : Op<"bench::layer_norm(Tensor x, Tensor? w, Tensor? b, *, SymInt[] shape, float eps) -> Tensor", layer_norm_op> {};
inline constexpr layer_norm_op layer_norm{};
struct scale_cast_op : Op<"seedlib::scale_cast(Tensor x, *, ScalarType dtype, bool clamp=False, float scale=1.0) -> Tensor", scale_cast_op> {};
inline constexpr scale_cast_op scale_cast{};
struct mm_scale_cast_op : Op<"seedlib::mm_scale_cast(Tensor a, Tensor b, *, ScalarType dtype, bool clamp=False, float scale=1.0) -> Tensor", mm_scale_cast_op> {};
inline constexpr mm_scale_cast_op mm_scale_cast{};
// clang-format on
}  // namespace bench_ops

namespace bench_detail {
using namespace ctmatch::dsl;

/// p1[p2[i]] == i for every i (Python indexing: a negative index counts from the end).
struct composes_to_identity {
  template <class M>
  constexpr bool operator()(const M& m) const {
    auto p1 = get<"p1">(m);
    auto p2 = get<"p2">(m);
    if (p1.size() != p2.size()) return false;
    auto n = static_cast<std::int64_t>(p1.size());
    for (std::int64_t i = 0; i < n; ++i) {
      std::int64_t j = p2[static_cast<std::size_t>(i)];
      if (j < 0) j += n;
      if (j < 0 || j >= n || p1[static_cast<std::size_t>(j)] != i) return false;
    }
    return true;
  }
};

/// d1 and d2 among float16, bfloat16, float32, float64, and itemsize(d1) >= itemsize(d2).
struct lossless_float_pair {
  static constexpr bool bench_float(DType d) {
    return d == DType::Half || d == DType::BFloat16 || d == DType::Float || d == DType::Double;
  }
  template <class M>
  constexpr bool operator()(const M& m) const {
    DType d1 = get<"d1">(m), d2 = get<"d2">(m);
    return bench_float(d1) && bench_float(d2) && itemsize(d1) >= itemsize(d2);
  }
};

// _softmax(..., -1, False): the two constants as slots with a predicate, not as plain
// constants. g++ 12 miscompiles a non-empty constant nested this deep in a [[no_unique_address]]
// pattern pack (it reads back 0); captureless predicates hold no data, so they are immune.
inline constexpr auto softmax_last_dim = slot<"softmax_dim", std::int64_t>.where([](std::int64_t d) { return d == -1; });
inline constexpr auto softmax_no_half_to_float =
    slot<"softmax_half_to_float", bool>.where([](bool h) { return !h; });

inline constexpr auto view_view =
    rewrite<"view_view">(aten::view(aten::view("x"_x, _).users<1>(), "size"_x), aten::view("x"_x, "size"_x));

inline constexpr auto permute_identity = rewrite<"permute_identity">(
    extra_check(aten::permute(aten::permute("x"_x, slot<"p1", IntList>).users<1>(), slot<"p2", IntList>),
                composes_to_identity{}),
    "x"_x);

inline constexpr auto to_copy_pair = rewrite<"to_copy_pair">(
    extra_check(aten::_to_copy(aten::_to_copy("x"_x, "dtype"_kw = slot<"d1", DType>).users<1>().exact_kwargs(),
                               "dtype"_kw = slot<"d2", DType>)
                    .exact_kwargs(),
                lossless_float_pair{}),
    aten::_to_copy("x"_x, "dtype"_kw = slot<"d2", DType>));

// exact_kwargs() on the add: it writes nothing beyond self and other, i.e. no alpha.
inline constexpr auto mm_bias = rewrite<"mm_bias">(
    aten::add.Tensor(aten::mm("a"_x, "b"_x).users<1>(), slot<"bias", Value>).exact_kwargs(),
    aten::addmm(slot<"bias", Value>, "a"_x, "b"_x));
inline constexpr auto mm_bias_swapped = rewrite<"mm_bias">(
    aten::add.Tensor(slot<"bias", Value>, aten::mm("a"_x, "b"_x).users<1>()).exact_kwargs(),
    aten::addmm(slot<"bias", Value>, "a"_x, "b"_x));

inline constexpr auto attention = rewrite<"attention">(
    aten::bmm(
        aten::view(
            aten::expand(
                aten::clone(aten::_softmax(aten::add.Tensor(aten::mul.Tensor(aten::view(aten::bmm("q"_x, "k"_x).users<1>(), _)
                                                                                   .users<1>(),
                                                                               slot<"scale", double>)
                                                                .users<1>(),
                                                            slot<"mask", Value>)
                                               .users<1>(),
                                           softmax_last_dim, softmax_no_half_to_float)
                                .users<1>())
                    .users<1>(),
                _)
                .users<1>(),
            _)
            .users<1>(),
        "v"_x),
    bench_ops::sdpa("q"_x, "k"_x, "v"_x, slot<"mask", Value>, "scale"_kw = slot<"scale", double>));

inline constexpr auto gelu_tanh =
    rewrite<"gelu_tanh">(aten::gelu("x"_x, "approximate"_kw = "tanh"), bench_ops::gelu_tanh("x"_x));

inline constexpr auto layer_norm = rewrite<"layer_norm">(
    getitem(aten::native_layer_norm("x"_x, "shape"_x, slot<"w", Value>, slot<"b", Value>, "eps"_x).users<1>(), 0),
    bench_ops::layer_norm("x"_x, slot<"w", Value>, slot<"b", Value>, "shape"_kw = "shape"_x, "eps"_kw = "eps"_x));

inline constexpr auto mm_scale_cast = rewrite<"mm_scale_cast">(
    bench_ops::scale_cast(aten::mm("a"_x, "b"_x).users<1>(), "dtype"_kw = "dtype"_x, "clamp"_kw = "clamp"_x,
                          "scale"_kw = "scale"_x),
    bench_ops::mm_scale_cast("a"_x, "b"_x, "dtype"_kw = "dtype"_x, "clamp"_kw = "clamp"_x, "scale"_kw = "scale"_x));
}  // namespace bench_detail

/// The eight benchmark rules, in Inductor's registration order (mm_bias twice).
inline auto bench_rules() {
  using namespace bench_detail;
  return rule_set(view_view, permute_identity, to_copy_pair, mm_bias, mm_bias_swapped, attention, gelu_tanh,
                  layer_norm, mm_scale_cast);
}

}  // namespace ctmatch::rules
