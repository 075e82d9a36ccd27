#pragma once
// `inductor_joint_late`: the joint-graph pass's `pass_patterns[1]` (torch 2.11,
// torch/_inductor/fx_passes/joint_graph.py), which Inductor runs just after
// `joint_graph.patterns` (inductor_joint.hpp): a scaled softmax's max subtracted from the
// scaled scores, rewritten to scale once, after the subtraction.
//
//   mul_softmax_pattern   sub(s, amax(s, dim, keepdim)), s = mul(inp, other) (or mul(other, inp);
//                         each optionally cast: s = convert_element_type(mul(..), dtype))  ->
//                         (x - amax(x, dim, keepdim)) * (sign * other), x = inp [cast] * sign
//   div_softmax_pattern   the same with s = div(inp, other)  ->  (x - amax(x, ..)) / (sign * other)
//
// where sign is 1 or -1 for a number `other` (as other >= 0), and for a tensor
// where(other >= 0, one, -one), one = scalar_tensor(1) of x's dtype and device. Entries in
// Inductor's order: mul (inp first, other first) x (no cast, cast), then div (no cast, cast).
// Check (_other_is_broadcasted_in_dim): `other` a number, or a tensor whose shape, padded to
// inp's rank, is 1 along every reduced dim. The replacement is what Inductor's
// replace_by_example traces at torch 2.11, node for node (the oracle's after graphs); amax's
// keepdim is written only where true: the trace leaves out trailing arguments at their default.
//
// Not covered: an `other` that is a symbolic number (a SymInt argument, or a node computing one)
// leaves the match unchanged here, where Inductor's check accepts it and its trace branches on
// a guard; a `.to(dtype)` of an input already of that dtype traces to no node, which needs the
// input's dtype (the cast is written where it is unknown).
// tests/rewrite/test_inductor_joint_passes.cpp checks the counts and graphs against Inductor's
// on the oracle graphs (tests/data/inductor: joint.json's "later" records).
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "../pattern.hpp"
#include "../rewrite/pattern_rule.hpp"
#include "../rewrite/rule_set.hpp"
#include "inductor_ops.hpp"

namespace ctmatch::rules {

namespace inductor_joint_late_detail {
using namespace ctmatch::dsl;
namespace ops = inductor_ops;

/// Whether `v` is a Python number in the graph (int, float or bool argument).
inline bool is_number(const Value& v) {
  return v.get_if<std::int64_t>() || v.get_if<double>() || v.get_if<bool>();
}

/// Inductor's _other_is_broadcasted_in_dim: scaling by `other` does not change which entry of
/// `inp` is largest along `dim`.
inline bool other_is_broadcast_in_dim(const Graph& g, const Value& inp, const Value& other, const Value& dim) {
  if (is_number(other)) return true;
  if (!inp.is_node() || !other.is_node()) return false;
  const auto &in_shape = g[inp.node()].meta().shape, &other_shape = g[other.node()].meta().shape;
  if (!in_shape || !other_shape || in_shape->size() < other_shape->size()) return false;
  std::vector<Value> padded(in_shape->size() - other_shape->size(), Value(1));
  padded.insert(padded.end(), other_shape->begin(), other_shape->end());
  std::vector<Value> dims;
  if (dim.get_if<std::int64_t>()) dims.push_back(dim);
  else if (dim.is_list()) dims = *dim.items();
  else return false;
  const auto rank = static_cast<std::int64_t>(padded.size());
  for (const Value& d : dims) {
    const std::int64_t* k = d.get_if<std::int64_t>();
    if (!k || *k >= rank || *k < -rank) return false;
    if (padded[static_cast<std::size_t>(*k < 0 ? *k + rank : *k)] != Value(1)) return false;
  }
  return true;
}

/// The partial softmax tree: sub(s, amax(s, dim, keepdim)), s = `scaled` (named "scaled", any
/// number of users), or s = convert_element_type(scaled, dtype) with ToDtype. Every call with
/// Inductor's positional arity and no kwargs; the amax read by the sub alone.
template <bool ToDtype, class Scaled>
constexpr auto partial_softmax(Scaled scaled) {
  auto s = [&] {
    auto named = ops::exactly<2>(scaled.template named<"scaled">());
    if constexpr (ToDtype)
      return ops::exactly<2>(ops::convert_element_type(named, slot<"dtype", DType>).template named<"cast">());
    else return named;
  }();
  constexpr auto s_again = [] {
    if constexpr (ToDtype) return "cast"_x;
    else return "scaled"_x;
  }();
  constexpr auto row_max = ops::exactly<3>(ops::amax(s_again, slot<"dim", Value>, slot<"keepdim", Value>).template users<1>());
  return extra_check(ops::exactly<2>(aten::sub.Tensor(s, row_max)), [](const auto& m, const Graph& g) {
    return other_is_broadcast_in_dim(g, get<"inp">(m), get<"other">(m), get<"dim">(m));
  });
}

/// sign and sign * other for a number `other`: (1, other) where other >= 0, else (-1, -other),
/// as Python computes them (an int stays an int, a bool becomes one).
inline std::optional<std::pair<std::int64_t, Value>> number_sign(const Value& other) {
  if (const auto* b = other.get_if<bool>()) return std::pair{std::int64_t{1}, Value(std::int64_t{*b})};
  if (const auto* i = other.get_if<std::int64_t>()) {
    const std::int64_t s = *i >= 0 ? 1 : -1;
    return std::pair{s, Value(s * *i)};
  }
  if (const auto* d = other.get_if<double>()) {
    const std::int64_t s = *d >= 0 ? 1 : -1;
    return std::pair{s, Value(static_cast<double>(s) * *d)};
  }
  return std::nullopt;
}

/// The replacement Inductor traces (see the top); `scale` is aten.mul.Tensor or aten.div.Tensor.
template <bool ToDtype, class M>
NodeId stable_softmax_replace(const M& m, RewriteBuilder& b, OpId scale) {
  static const OpId mul = decltype(aten::mul.Tensor)::id(), sub = decltype(aten::sub.Tensor)::id(),
                    amax = decltype(ops::amax)::id(), convert = decltype(ops::convert_element_type)::id(),
                    scalar_tensor = decltype(aten::scalar_tensor)::id(), ge = decltype(aten::ge.Scalar)::id(),
                    neg = decltype(aten::neg)::id(), where = decltype(aten::where.self)::id();
  const Graph& g = b.graph();
  // Copies: the bound values live in the matched nodes' arguments, which new nodes may move.
  const Value inp = get<"inp">(m), other = get<"other">(m), dim = get<"dim">(m), keepdim = get<"keepdim">(m);
  if (!inp.is_node()) return m.root();  // inp.to() or inp * sign on a number: Inductor's trace fails
  const std::optional<std::pair<std::int64_t, Value>> by_number = number_sign(other);
  if (!by_number && !other.is_node()) return m.root();  // a symbolic number (see the top)
  std::optional<ScalarType> dtype = g[inp.node()].meta().dtype;
  const std::optional<Device> device = g[inp.node()].meta().device;
  NodeId x = inp.node();
  if constexpr (ToDtype) {
    const ScalarType to = get<"dtype">(m);
    if (dtype != to) x = b.call(convert, {NodeRef{x}, Value(to)});
    dtype = to;
  }
  if (!by_number && (!dtype || !device)) return m.root();
  Value sign;
  if (by_number) {
    sign = Value(by_number->first);
  } else {
    NodeId one = b.call(scalar_tensor, {Value(std::int64_t{1})},
                        {{"dtype", Value(*dtype)}, {"device", Value(*device)}, {"pin_memory", Value(false)}});
    NodeId non_negative = b.call(ge, {other, Value(std::int64_t{0})});
    NodeId minus_one = b.call(neg, {NodeRef{one}});
    sign = NodeRef{b.call(where, {NodeRef{non_negative}, NodeRef{one}, NodeRef{minus_one}})};
  }
  const NodeId signed_x = b.call(mul, {NodeRef{x}, sign});
  NodeArgs max_args{NodeRef{signed_x}, dim};
  if (keepdim != Value(false)) max_args.push_back(keepdim);
  const NodeId max = b.call(amax, std::move(max_args));
  const NodeId shifted = b.call(sub, {NodeRef{signed_x}, NodeRef{max}});
  const Value factor = by_number ? by_number->second : Value(NodeRef{b.call(mul, {sign, other})});
  const NodeId out = b.call(scale, {NodeRef{shifted}, factor});
  b.meta(out) = g[m.root()].meta();
  return out;
}

template <bool ToDtype>
inline constexpr auto mul_replace = [](const auto& m, RewriteBuilder& b) {
  return stable_softmax_replace<ToDtype>(m, b, decltype(aten::mul.Tensor)::id());
};
template <bool ToDtype>
inline constexpr auto div_replace = [](const auto& m, RewriteBuilder& b) {
  return stable_softmax_replace<ToDtype>(m, b, decltype(aten::div.Tensor)::id());
};

inline constexpr auto inp_slot = slot<"inp", Value>;
inline constexpr auto other_slot = slot<"other", Value>;
template <bool ToDtype>
inline constexpr auto mul_softmax =
    rewrite<"mul_softmax_pattern">(partial_softmax<ToDtype>(aten::mul.Tensor(inp_slot, other_slot)), mul_replace<ToDtype>);
template <bool ToDtype>
inline constexpr auto mul_softmax_reversed =
    rewrite<"mul_softmax_pattern">(partial_softmax<ToDtype>(aten::mul.Tensor(other_slot, inp_slot)), mul_replace<ToDtype>);
template <bool ToDtype>
inline constexpr auto div_softmax =
    rewrite<"div_softmax_pattern">(partial_softmax<ToDtype>(aten::div.Tensor(inp_slot, other_slot)), div_replace<ToDtype>);
}  // namespace inductor_joint_late_detail

/// The joint pass's pass_patterns[1], in Inductor's order: one sweep of it is Inductor's
/// pass_patterns[1].apply.
inline auto inductor_joint_late() {
  using namespace inductor_joint_late_detail;
  return rule_set(mul_softmax<false>, mul_softmax<true>, mul_softmax_reversed<false>, mul_softmax_reversed<true>,
                  div_softmax<false>, div_softmax<true>);
}

}  // namespace ctmatch::rules
