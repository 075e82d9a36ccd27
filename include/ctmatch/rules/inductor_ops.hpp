#pragma once
// The ops Inductor's pattern passes use that aten.hpp does not declare, for the ports
// (inductor_joint.hpp, inductor_post_grad.hpp). Named ops (op.hpp): pattern types carry
// `amax_op`, not the schema's text.
#include <cstddef>

#include "../graph/node.hpp"
#include "../pattern/aten.hpp"

namespace ctmatch::rules {

namespace inductor_ops {
using pattern::Op;
// clang-format off
struct iota_op : Op<"prims::iota(SymInt length, *, SymInt start, SymInt step, ScalarType dtype, Device device, bool requires_grad) -> Tensor", iota_op> {};
inline constexpr iota_op iota{};
struct convert_element_type_op : Op<"prims::convert_element_type(Tensor a, ScalarType dtype) -> Tensor", convert_element_type_op> {};
inline constexpr convert_element_type_op convert_element_type{};
inline constexpr auto squeeze_dim = dsl::aten::squeeze_dim;
inline constexpr auto unsqueeze = dsl::aten::unsqueeze;
struct amax_op : Op<"aten::amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", amax_op> {};
inline constexpr amax_op amax{};
struct sdpa_flash_cpu_op : Op<"aten::_scaled_dot_product_flash_attention_for_cpu(Tensor query, Tensor key, Tensor value, float dropout_p=0.0, bool is_causal=False, *, Tensor? attn_mask=None, float? scale=None) -> (Tensor output, Tensor logsumexp)", sdpa_flash_cpu_op> {};
inline constexpr sdpa_flash_cpu_op sdpa_flash_cpu{};
struct sdpa_flash_cpu_backward_op : Op<"aten::_scaled_dot_product_flash_attention_for_cpu_backward(Tensor grad_out, Tensor query, Tensor key, Tensor value, Tensor out, Tensor logsumexp, float dropout_p, bool is_causal, *, Tensor? attn_mask=None, float? scale=None) -> (Tensor grad_query, Tensor grad_key, Tensor grad_value)", sdpa_flash_cpu_backward_op> {};
inline constexpr sdpa_flash_cpu_backward_op sdpa_flash_cpu_backward{};
struct fma_op : Op<"prims::fma(Tensor a, Tensor b, Tensor c) -> Tensor", fma_op> {};
inline constexpr fma_op fma{};
struct eq_scalar_op : Op<"aten::eq.Scalar(Tensor self, Scalar other) -> Tensor", eq_scalar_op> {};
inline constexpr eq_scalar_op eq_scalar{};
struct amin_op : Op<"aten::amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", amin_op> {};
inline constexpr amin_op amin{};
struct max_op : Op<"aten::max(Tensor self) -> Tensor", max_op> {};
inline constexpr max_op max{};
struct min_op : Op<"aten::min(Tensor self) -> Tensor", min_op> {};
inline constexpr min_op min{};
struct scatter_value_op : Op<"aten::scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor", scatter_value_op> {};
inline constexpr scatter_value_op scatter_value{};
struct randperm_op : Op<"aten::randperm(SymInt n, *, ScalarType? dtype=long, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", randperm_op> {};
inline constexpr randperm_op randperm{};
struct index_put_op : Op<"aten::index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor", index_put_op> {};
inline constexpr index_put_op index_put{};
struct unsafe_index_op : Op<"aten::_unsafe_index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", unsafe_index_op> {};
inline constexpr unsafe_index_op unsafe_index{};
// clang-format on

/// The node writes exactly `N` positional arguments: Inductor's trees fail a node whose
/// positional arity differs from theirs (`amax(x, [1])` is not the partial reduction
/// `amax(input, reduced_dims, keepdim)`).
template <std::size_t N>
inline constexpr auto positional_args = [](const Node& n) { return n.args().size() == N; };
/// `call` as Inductor's trees match it: exactly N positional arguments and no kwargs (a
/// CallFunction of N args fails a node with other arguments; a kwarg changes the args' spec).
template <std::size_t N, class Call>
constexpr auto exactly(Call call) {
  return call.exact_kwargs().where(positional_args<N>);
}
}  // namespace inductor_ops

}  // namespace ctmatch::rules
