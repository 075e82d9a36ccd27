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
// Each op is a named type (op.hpp), `mm_op` for `mm`, so that pattern types and symbols name
// it without its schema text. An op not listed here is one line away:
// `constexpr auto my_op = op<"ns::name(...) -> Tensor">;`, or, for an op many patterns use,
// `struct my_op_t : Op<"ns::name(...) -> Tensor", my_op_t> {}; inline constexpr my_op_t my_op{};`.
// Declaring an op costs nothing at run time until a pattern using it is first matched.
#include "dsl.hpp"

namespace ctmatch::dsl {

/// `operator.getitem`: the k-th result of a multi-result node (an FX target, so its nodes have
/// no registered schema; they are read as written: (node, index)).
struct getitem_op : Op<"operator::getitem(Tensor self, int idx) -> Tensor", getitem_op> {};
inline constexpr getitem_op getitem{};

namespace aten {
// clang-format off
struct _assert_tensor_metadata_op : Op<"aten::_assert_tensor_metadata(Tensor a, SymInt[]? size=None, SymInt[]? stride=None, ScalarType? dtype=None, *, Device? device=None, Layout? layout=None) -> ()", _assert_tensor_metadata_op> {};
inline constexpr _assert_tensor_metadata_op _assert_tensor_metadata{};
struct _native_batch_norm_legit_no_training_op : Op<"aten::_native_batch_norm_legit_no_training(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean, Tensor running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor)", _native_batch_norm_legit_no_training_op> {};
inline constexpr _native_batch_norm_legit_no_training_op _native_batch_norm_legit_no_training{};
struct _softmax_op : Op<"aten::_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", _softmax_op> {};
inline constexpr _softmax_op _softmax{};
struct _to_copy_op : Op<"aten::_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor", _to_copy_op> {};
inline constexpr _to_copy_op _to_copy{};
struct add_ops {
  struct Tensor_op : Op<"aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", Tensor_op> {};
  static constexpr Tensor_op Tensor{};
  struct Scalar_op : Op<"aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", Scalar_op> {};
  static constexpr Scalar_op Scalar{};
};
inline constexpr add_ops add{};
inline constexpr auto add_Tensor = add_ops::Tensor;
inline constexpr auto add_Scalar = add_ops::Scalar;
struct addmm_op : Op<"aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", addmm_op> {};
inline constexpr addmm_op addmm{};
struct alias_op : Op<"aten::alias(Tensor(a) self) -> Tensor(a)", alias_op> {};
inline constexpr alias_op alias{};
struct arange_ops {
  struct start_step_op : Op<"aten::arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", start_step_op> {};
  static constexpr start_step_op start_step{};
};
inline constexpr arange_ops arange{};
inline constexpr auto arange_start_step = arange_ops::start_step;
struct bitwise_and_ops {
  struct Tensor_op : Op<"aten::bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor", Tensor_op> {};
  static constexpr Tensor_op Tensor{};
};
inline constexpr bitwise_and_ops bitwise_and{};
inline constexpr auto bitwise_and_Tensor = bitwise_and_ops::Tensor;
struct bmm_op : Op<"aten::bmm(Tensor self, Tensor mat2) -> Tensor", bmm_op> {};
inline constexpr bmm_op bmm{};
struct cat_op : Op<"aten::cat(Tensor[] tensors, int dim=0) -> Tensor", cat_op> {};
inline constexpr cat_op cat{};
struct clone_op : Op<"aten::clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor", clone_op> {};
inline constexpr clone_op clone{};
struct convolution_op : Op<"aten::convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor", convolution_op> {};
inline constexpr convolution_op convolution{};
struct cumsum_op : Op<"aten::cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", cumsum_op> {};
inline constexpr cumsum_op cumsum{};
struct div_ops {
  struct Tensor_op : Op<"aten::div.Tensor(Tensor self, Tensor other) -> Tensor", Tensor_op> {};
  static constexpr Tensor_op Tensor{};
};
inline constexpr div_ops div{};
inline constexpr auto div_Tensor = div_ops::Tensor;
struct embedding_op : Op<"aten::embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False) -> Tensor", embedding_op> {};
inline constexpr embedding_op embedding{};
struct eq_ops {
  struct Tensor_op : Op<"aten::eq.Tensor(Tensor self, Tensor other) -> Tensor", Tensor_op> {};
  static constexpr Tensor_op Tensor{};
};
inline constexpr eq_ops eq{};
inline constexpr auto eq_Tensor = eq_ops::Tensor;
struct exp_op : Op<"aten::exp(Tensor self) -> Tensor", exp_op> {};
inline constexpr exp_op exp{};
struct expand_op : Op<"aten::expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)", expand_op> {};
inline constexpr expand_op expand{};
struct full_op : Op<"aten::full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", full_op> {};
inline constexpr full_op full{};
struct gather_op : Op<"aten::gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor", gather_op> {};
inline constexpr gather_op gather{};
struct ge_ops {
  struct Scalar_op : Op<"aten::ge.Scalar(Tensor self, Scalar other) -> Tensor", Scalar_op> {};
  static constexpr Scalar_op Scalar{};
};
inline constexpr ge_ops ge{};
inline constexpr auto ge_Scalar = ge_ops::Scalar;
struct gelu_op : Op<"aten::gelu(Tensor self, *, str approximate='none') -> Tensor", gelu_op> {};
inline constexpr gelu_op gelu{};
struct index_ops {
  struct Tensor_op : Op<"aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", Tensor_op> {};
  static constexpr Tensor_op Tensor{};
};
inline constexpr index_ops index{};
inline constexpr auto index_Tensor = index_ops::Tensor;
struct le_ops {
  struct Tensor_op : Op<"aten::le.Tensor(Tensor self, Tensor other) -> Tensor", Tensor_op> {};
  static constexpr Tensor_op Tensor{};
};
inline constexpr le_ops le{};
inline constexpr auto le_Tensor = le_ops::Tensor;
struct max_pool2d_with_indices_op : Op<"aten::max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)", max_pool2d_with_indices_op> {};
inline constexpr max_pool2d_with_indices_op max_pool2d_with_indices{};
struct mean_ops {
  struct dim_op : Op<"aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", dim_op> {};
  static constexpr dim_op dim{};
};
inline constexpr mean_ops mean{};
inline constexpr auto mean_dim = mean_ops::dim;
struct mm_op : Op<"aten::mm(Tensor self, Tensor mat2) -> Tensor", mm_op> {};
inline constexpr mm_op mm{};
struct mul_ops {
  struct Tensor_op : Op<"aten::mul.Tensor(Tensor self, Tensor other) -> Tensor", Tensor_op> {};
  static constexpr Tensor_op Tensor{};
  struct Scalar_op : Op<"aten::mul.Scalar(Tensor self, Scalar other) -> Tensor", Scalar_op> {};
  static constexpr Scalar_op Scalar{};
};
inline constexpr mul_ops mul{};
inline constexpr auto mul_Tensor = mul_ops::Tensor;
inline constexpr auto mul_Scalar = mul_ops::Scalar;
struct native_layer_norm_op : Op<"aten::native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)", native_layer_norm_op> {};
inline constexpr native_layer_norm_op native_layer_norm{};
struct ne_ops {
  struct Scalar_op : Op<"aten::ne.Scalar(Tensor self, Scalar other) -> Tensor", Scalar_op> {};
  static constexpr Scalar_op Scalar{};
};
inline constexpr ne_ops ne{};
inline constexpr auto ne_Scalar = ne_ops::Scalar;
struct neg_op : Op<"aten::neg(Tensor self) -> Tensor", neg_op> {};
inline constexpr neg_op neg{};
struct permute_op : Op<"aten::permute(Tensor(a) self, int[] dims) -> Tensor(a)", permute_op> {};
inline constexpr permute_op permute{};
struct pow_ops {
  struct Tensor_Scalar_op : Op<"aten::pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor", Tensor_Scalar_op> {};
  static constexpr Tensor_Scalar_op Tensor_Scalar{};
};
inline constexpr pow_ops pow{};
inline constexpr auto pow_Tensor_Scalar = pow_ops::Tensor_Scalar;
struct relu_op : Op<"aten::relu(Tensor self) -> Tensor", relu_op> {};
inline constexpr relu_op relu{};
struct reshape_op : Op<"aten::reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)", reshape_op> {};
inline constexpr reshape_op reshape{};
struct rsqrt_op : Op<"aten::rsqrt(Tensor self) -> Tensor", rsqrt_op> {};
inline constexpr rsqrt_op rsqrt{};
struct scalar_tensor_op : Op<"aten::scalar_tensor(Scalar s, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", scalar_tensor_op> {};
inline constexpr scalar_tensor_op scalar_tensor{};
struct select_ops {
  struct int_op : Op<"aten::select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)", int_op> {};
  static constexpr int_op int_{};
};
inline constexpr select_ops select{};
inline constexpr auto select_int = select_ops::int_;
struct sigmoid_op : Op<"aten::sigmoid(Tensor self) -> Tensor", sigmoid_op> {};
inline constexpr sigmoid_op sigmoid{};
struct silu_op : Op<"aten::silu(Tensor self) -> Tensor", silu_op> {};
inline constexpr silu_op silu{};
struct slice_ops {
  struct Tensor_op : Op<"aten::slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)", Tensor_op> {};
  static constexpr Tensor_op Tensor{};
};
inline constexpr slice_ops slice{};
inline constexpr auto slice_Tensor = slice_ops::Tensor;
struct split_ops {
  struct Tensor_op : Op<"aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]", Tensor_op> {};
  static constexpr Tensor_op Tensor{};
};
inline constexpr split_ops split{};
inline constexpr auto split_Tensor = split_ops::Tensor;
struct split_with_sizes_op : Op<"aten::split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]", split_with_sizes_op> {};
inline constexpr split_with_sizes_op split_with_sizes{};
struct sqrt_op : Op<"aten::sqrt(Tensor self) -> Tensor", sqrt_op> {};
inline constexpr sqrt_op sqrt{};
struct squeeze_ops {
  struct dim_op : Op<"aten::squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)", dim_op> {};
  static constexpr dim_op dim{};
};
inline constexpr squeeze_ops squeeze{};
inline constexpr auto squeeze_dim = squeeze_ops::dim;
struct sub_ops {
  struct Tensor_op : Op<"aten::sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", Tensor_op> {};
  static constexpr Tensor_op Tensor{};
};
inline constexpr sub_ops sub{};
inline constexpr auto sub_Tensor = sub_ops::Tensor;
struct sum_ops : Op<"aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor", sum_ops> {
  struct dim_IntList_op : Op<"aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", dim_IntList_op> {};
  static constexpr dim_IntList_op dim_IntList{};
};
inline constexpr sum_ops sum{};
inline constexpr auto sum_dim_IntList = sum_ops::dim_IntList;
struct t_op : Op<"aten::t(Tensor(a) self) -> Tensor(a)", t_op> {};
inline constexpr t_op t{};
struct tanh_op : Op<"aten::tanh(Tensor self) -> Tensor", tanh_op> {};
inline constexpr tanh_op tanh{};
struct transpose_ops {
  struct int_op : Op<"aten::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", int_op> {};
  static constexpr int_op int_{};
};
inline constexpr transpose_ops transpose{};
inline constexpr auto transpose_int = transpose_ops::int_;
struct unsqueeze_op : Op<"aten::unsqueeze(Tensor(a) self, int dim) -> Tensor(a)", unsqueeze_op> {};
inline constexpr unsqueeze_op unsqueeze{};
struct view_op : Op<"aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)", view_op> {};
inline constexpr view_op view{};
struct where_ops {
  struct self_op : Op<"aten::where.self(Tensor condition, Tensor self, Tensor other) -> Tensor", self_op> {};
  static constexpr self_op self{};
};
inline constexpr where_ops where{};
inline constexpr auto where_self = where_ops::self;
// clang-format on
}  // namespace aten

}  // namespace ctmatch::dsl
