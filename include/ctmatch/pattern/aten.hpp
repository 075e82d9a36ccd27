#pragma once
// Ready-to-use ATen ops: every op of the reference graphs (ResNet-18, GPT-2, BERT and the seed
// MLP after torch.export) and of the benchmark rules, declared from their schemas (the same
// text as the built-in schema table, schema/builtin_table.hpp).
//
//   aten::mm(a, b)                  an op with only the default overload
//   aten::add.Tensor(a, b)          an overload, spelled as in PyTorch
//   aten::add_Tensor(a, b)          the same, as one name
//   aten::sum(x) / aten::sum.dim_IntList(x, list(1), true)   default and named overloads
//   aten::select.int_(x, 0, 1)      an overload named like a C++ keyword gets a trailing `_`
//   getitem(aten::native_layer_norm(...), 0)   output k of a multi-result node
//
// An op not listed here is one line away: `constexpr auto my_op = op<"ns::name(...) -> Tensor">;`.
// Declaring an op costs nothing at run time until a pattern using it is first matched.
#include "dsl.hpp"

namespace ctmatch::dsl {

/// `operator.getitem`: the k-th result of a multi-result node (an FX target, so its nodes have
/// no registered schema; they are read as written: (node, index)).
inline constexpr auto getitem = op<"operator::getitem(Tensor self, int idx) -> Tensor">;

namespace aten {
// clang-format off
inline constexpr auto _assert_tensor_metadata = op<"aten::_assert_tensor_metadata(Tensor a, SymInt[]? size=None, SymInt[]? stride=None, ScalarType? dtype=None, *, Device? device=None, Layout? layout=None) -> ()">;
inline constexpr auto _native_batch_norm_legit_no_training = op<"aten::_native_batch_norm_legit_no_training(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean, Tensor running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor)">;
inline constexpr auto _softmax = op<"aten::_softmax(Tensor self, int dim, bool half_to_float) -> Tensor">;
inline constexpr auto _to_copy = op<"aten::_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor">;
struct add_ops {
  static constexpr auto Tensor = op<"aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor">;
  static constexpr auto Scalar = op<"aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor">;
};
inline constexpr add_ops add{};
inline constexpr auto add_Tensor = add_ops::Tensor;
inline constexpr auto add_Scalar = add_ops::Scalar;
inline constexpr auto addmm = op<"aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor">;
inline constexpr auto alias = op<"aten::alias(Tensor(a) self) -> Tensor(a)">;
struct arange_ops {
  static constexpr auto start_step = op<"aten::arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor">;
};
inline constexpr arange_ops arange{};
inline constexpr auto arange_start_step = arange_ops::start_step;
struct bitwise_and_ops {
  static constexpr auto Tensor = op<"aten::bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor">;
};
inline constexpr bitwise_and_ops bitwise_and{};
inline constexpr auto bitwise_and_Tensor = bitwise_and_ops::Tensor;
inline constexpr auto bmm = op<"aten::bmm(Tensor self, Tensor mat2) -> Tensor">;
inline constexpr auto cat = op<"aten::cat(Tensor[] tensors, int dim=0) -> Tensor">;
inline constexpr auto clone = op<"aten::clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor">;
inline constexpr auto convolution = op<"aten::convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor">;
inline constexpr auto cumsum = op<"aten::cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor">;
struct div_ops {
  static constexpr auto Tensor = op<"aten::div.Tensor(Tensor self, Tensor other) -> Tensor">;
};
inline constexpr div_ops div{};
inline constexpr auto div_Tensor = div_ops::Tensor;
inline constexpr auto embedding = op<"aten::embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False) -> Tensor">;
struct eq_ops {
  static constexpr auto Tensor = op<"aten::eq.Tensor(Tensor self, Tensor other) -> Tensor">;
};
inline constexpr eq_ops eq{};
inline constexpr auto eq_Tensor = eq_ops::Tensor;
inline constexpr auto exp = op<"aten::exp(Tensor self) -> Tensor">;
inline constexpr auto expand = op<"aten::expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)">;
inline constexpr auto full = op<"aten::full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor">;
inline constexpr auto gather = op<"aten::gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor">;
struct ge_ops {
  static constexpr auto Scalar = op<"aten::ge.Scalar(Tensor self, Scalar other) -> Tensor">;
};
inline constexpr ge_ops ge{};
inline constexpr auto ge_Scalar = ge_ops::Scalar;
inline constexpr auto gelu = op<"aten::gelu(Tensor self, *, str approximate='none') -> Tensor">;
struct index_ops {
  static constexpr auto Tensor = op<"aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor">;
};
inline constexpr index_ops index{};
inline constexpr auto index_Tensor = index_ops::Tensor;
struct le_ops {
  static constexpr auto Tensor = op<"aten::le.Tensor(Tensor self, Tensor other) -> Tensor">;
};
inline constexpr le_ops le{};
inline constexpr auto le_Tensor = le_ops::Tensor;
inline constexpr auto max_pool2d_with_indices = op<"aten::max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)">;
struct mean_ops {
  static constexpr auto dim = op<"aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor">;
};
inline constexpr mean_ops mean{};
inline constexpr auto mean_dim = mean_ops::dim;
inline constexpr auto mm = op<"aten::mm(Tensor self, Tensor mat2) -> Tensor">;
struct mul_ops {
  static constexpr auto Tensor = op<"aten::mul.Tensor(Tensor self, Tensor other) -> Tensor">;
  static constexpr auto Scalar = op<"aten::mul.Scalar(Tensor self, Scalar other) -> Tensor">;
};
inline constexpr mul_ops mul{};
inline constexpr auto mul_Tensor = mul_ops::Tensor;
inline constexpr auto mul_Scalar = mul_ops::Scalar;
inline constexpr auto native_layer_norm = op<"aten::native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)">;
struct ne_ops {
  static constexpr auto Scalar = op<"aten::ne.Scalar(Tensor self, Scalar other) -> Tensor">;
};
inline constexpr ne_ops ne{};
inline constexpr auto ne_Scalar = ne_ops::Scalar;
inline constexpr auto neg = op<"aten::neg(Tensor self) -> Tensor">;
inline constexpr auto permute = op<"aten::permute(Tensor(a) self, int[] dims) -> Tensor(a)">;
struct pow_ops {
  static constexpr auto Tensor_Scalar = op<"aten::pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor">;
};
inline constexpr pow_ops pow{};
inline constexpr auto pow_Tensor_Scalar = pow_ops::Tensor_Scalar;
inline constexpr auto relu = op<"aten::relu(Tensor self) -> Tensor">;
inline constexpr auto reshape = op<"aten::reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)">;
inline constexpr auto rsqrt = op<"aten::rsqrt(Tensor self) -> Tensor">;
inline constexpr auto scalar_tensor = op<"aten::scalar_tensor(Scalar s, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor">;
struct select_ops {
  static constexpr auto int_ = op<"aten::select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)">;
};
inline constexpr select_ops select{};
inline constexpr auto select_int = select_ops::int_;
inline constexpr auto sigmoid = op<"aten::sigmoid(Tensor self) -> Tensor">;
inline constexpr auto silu = op<"aten::silu(Tensor self) -> Tensor">;
struct slice_ops {
  static constexpr auto Tensor = op<"aten::slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)">;
};
inline constexpr slice_ops slice{};
inline constexpr auto slice_Tensor = slice_ops::Tensor;
struct split_ops {
  static constexpr auto Tensor = op<"aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]">;
};
inline constexpr split_ops split{};
inline constexpr auto split_Tensor = split_ops::Tensor;
inline constexpr auto split_with_sizes = op<"aten::split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]">;
inline constexpr auto sqrt = op<"aten::sqrt(Tensor self) -> Tensor">;
struct squeeze_ops {
  static constexpr auto dim = op<"aten::squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)">;
};
inline constexpr squeeze_ops squeeze{};
inline constexpr auto squeeze_dim = squeeze_ops::dim;
struct sub_ops {
  static constexpr auto Tensor = op<"aten::sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor">;
};
inline constexpr sub_ops sub{};
inline constexpr auto sub_Tensor = sub_ops::Tensor;
struct sum_ops : decltype(op<"aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor">) {
  static constexpr auto dim_IntList = op<"aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor">;
};
inline constexpr sum_ops sum{};
inline constexpr auto sum_dim_IntList = sum_ops::dim_IntList;
inline constexpr auto t = op<"aten::t(Tensor(a) self) -> Tensor(a)">;
inline constexpr auto tanh = op<"aten::tanh(Tensor self) -> Tensor">;
struct transpose_ops {
  static constexpr auto int_ = op<"aten::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)">;
};
inline constexpr transpose_ops transpose{};
inline constexpr auto transpose_int = transpose_ops::int_;
inline constexpr auto unsqueeze = op<"aten::unsqueeze(Tensor(a) self, int dim) -> Tensor(a)">;
inline constexpr auto view = op<"aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)">;
struct where_ops {
  static constexpr auto self = op<"aten::where.self(Tensor condition, Tensor self, Tensor other) -> Tensor">;
};
inline constexpr where_ops where{};
inline constexpr auto where_self = where_ops::self;
// clang-format on
}  // namespace aten

}  // namespace ctmatch::dsl
