#pragma once
// The ops Inductor's pattern passes use that aten.hpp does not declare, for the ports
// (inductor_joint.hpp, inductor_post_grad.hpp).
#include <cstddef>

#include "../graph/node.hpp"
#include "../pattern/op.hpp"

namespace ctmatch::rules {

namespace inductor_ops {
using pattern::op;
inline constexpr auto iota = op<
    "prims::iota(SymInt length, *, SymInt start, SymInt step, ScalarType dtype, Device device, bool requires_grad) -> Tensor">;
inline constexpr auto convert_element_type = op<"prims::convert_element_type(Tensor a, ScalarType dtype) -> Tensor">;
inline constexpr auto squeeze_dim = op<"aten::squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)">;
inline constexpr auto unsqueeze = op<"aten::unsqueeze(Tensor(a) self, int dim) -> Tensor(a)">;
inline constexpr auto amax = op<"aten::amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor">;
inline constexpr auto sdpa_flash_cpu = op<
    "aten::_scaled_dot_product_flash_attention_for_cpu(Tensor query, Tensor key, Tensor value, float dropout_p=0.0, "
    "bool is_causal=False, *, Tensor? attn_mask=None, float? scale=None) -> (Tensor output, Tensor logsumexp)">;
inline constexpr auto eq_scalar = op<"aten::eq.Scalar(Tensor self, Scalar other) -> Tensor">;
inline constexpr auto amin = op<"aten::amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor">;
inline constexpr auto max = op<"aten::max(Tensor self) -> Tensor">;
inline constexpr auto min = op<"aten::min(Tensor self) -> Tensor">;
inline constexpr auto scatter_value = op<"aten::scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor">;
inline constexpr auto randperm = op<
    "aten::randperm(SymInt n, *, ScalarType? dtype=long, Layout? layout=None, Device? device=None, bool? pin_memory=None) "
    "-> Tensor">;
inline constexpr auto index_put =
    op<"aten::index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor">;
inline constexpr auto unsafe_index = op<"aten::_unsafe_index.Tensor(Tensor self, Tensor?[] indices) -> Tensor">;

/// The node writes exactly `N` positional arguments: Inductor's trees fail a node whose
/// positional arity differs from theirs (`amax(x, [1])` is not the partial reduction
/// `amax(input, reduced_dims, keepdim)`).
template <std::size_t N>
inline constexpr auto positional_args = [](const Node& n) { return n.args().size() == N; };
}  // namespace inductor_ops

}  // namespace ctmatch::rules
