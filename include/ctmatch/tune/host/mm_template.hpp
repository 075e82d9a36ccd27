#pragma once
// host::mm, the CPU kernel template, and the host's extern choices (aten::mm, aten::addmm,
// aten::bias_addmm as plain loop GEMMs).
//
// host::mm is instantiated at compile time for every config the default list can scale to
// (reachable_default_mm_configs) and for f32 and bf16 inputs; a run-time choice looks its
// kernel up in that table. The static_asserts below prove every problem's selection is there.
#include <array>
#include <cstddef>
#include <memory>
#include <utility>

#include "../config_generator.hpp"
#include "mm_kernel.hpp"
#include "../kernel_template.hpp"
#include "../uids.hpp"

namespace ctmatch::tune::host {

/// The configs host::mm is instantiated for (sorted; see reachable_mm_configs).
inline constexpr const auto& instantiated_configs = reachable_default_mm_configs;

static_assert(covers_every_problem(default_mm_configs, instantiated_configs),
              "ctmatch: host::mm lacks an instantiation for a config the default heuristic can select");

template <class T>
using KernelFn = void (*)(const GemmArgs<T>&);

template <class T, std::size_t... I>
constexpr std::array<KernelFn<T>, sizeof...(I)> make_kernel_table(std::index_sequence<I...>) {
  return {&HostMmKernel<instantiated_configs[I], T>::run...};
}
/// One kernel per instantiated config, same order.
template <class T>
inline constexpr auto kernel_table = make_kernel_table<T>(std::make_index_sequence<instantiated_configs.size()>{});
static_assert(kernel_table<float>.size() == instantiated_configs.size());

/// The instantiation of host::mm for `c`, or nullptr when `c` was never instantiated.
template <class T>
KernelFn<T> find_kernel(const GemmConfig& c) {
  const int i = index_of(instantiated_configs, c);
  return i < 0 ? nullptr : kernel_table<T>[static_cast<std::size_t>(i)];
}

namespace detail {
/// GemmArgs for a request, pointers filled in at run time from Buffers (op order:
/// [bias,] mat1, mat2).
template <class T>
GemmArgs<T> shape_of(const ChoiceRequest& r, bool with_bias) {
  const MMKernelInputs& in = r.inputs;
  GemmArgs<T> g;
  g.m = in.m();
  g.n = in.n();
  g.k = in.k();
  g.a_row = in.mat1().strides[0];
  g.a_col = in.mat1().strides[1];
  g.b_row = in.mat2().strides[0];
  g.b_col = in.mat2().strides[1];
  g.out_row = r.layout.strides.size() == 2 ? r.layout.strides[0] : g.n;
  g.out_col = r.layout.strides.size() == 2 ? r.layout.strides[1] : 1;
  if (with_bias) {
    const TensorDesc& bias = in.nodes().front();
    g.bias_row = bias.strides.size() == 2 ? bias.strides[0] : 0;
    g.bias_col = bias.strides.empty() ? 0 : bias.strides.back();
    g.alpha = static_cast<float>(r.extra_kwargs.get_double("alpha").value_or(1.0));
    g.beta = static_cast<float>(r.extra_kwargs.get_double("beta").value_or(1.0));
  }
  return g;
}

template <class T>
std::shared_ptr<ChoiceCaller> make_choice(std::string_view uid, const ChoiceRequest& r, bool with_bias, KernelFn<T> fn) {
  const GemmArgs<T> shape = shape_of<T>(r, with_bias);
  const int a = r.inputs.mat1_index(), b = r.inputs.mat2_index();
  return std::make_shared<FunctionChoiceCaller>(
      std::string(uid), r.params.merged(r.extra_kwargs), [shape, a, b, with_bias, fn](const Buffers& buf) {
        GemmArgs<T> g = shape;
        g.a = static_cast<const T*>(buf.inputs.at(static_cast<std::size_t>(a)));
        g.b = static_cast<const T*>(buf.inputs.at(static_cast<std::size_t>(b)));
        g.bias = with_bias ? static_cast<const T*>(buf.inputs.at(0)) : nullptr;
        g.out = static_cast<T*>(buf.output);
        fn(g);
      });
}

/// Dispatch on the input dtype: f32 and bf16 are served; others decline.
template <class Make>
std::shared_ptr<ChoiceCaller> by_dtype(DType t, Make&& make) {
  if (t == DType::f32) return make(float{});
  if (t == DType::bf16) return make(BFloat16{});
  return nullptr;
}

inline bool has_bias(const ChoiceRequest& r) {
  return r.extra_kwargs.get_int("prefix_args").value_or(0) == 1 && r.inputs.nodes().size() >= 3;
}
}  // namespace detail

/// host::mm: declines params that name no config or a config without an instantiation (only
/// possible with the exhaustive search space), and dtypes other than f32 and bf16.
class HostMmTemplate final : public KernelTemplateBase<uids::host_mm> {
 public:
  [[nodiscard]] std::shared_ptr<ChoiceCaller> choice_or_none(const ChoiceRequest& r) const override {
    const auto cfg = gemm_config_of(r.params);
    if (!cfg) return nullptr;
    const bool bias = detail::has_bias(r);
    return detail::by_dtype(r.inputs.dtype(), [&](auto tag) -> std::shared_ptr<ChoiceCaller> {
      using T = decltype(tag);
      KernelFn<T> fn = find_kernel<T>(*cfg);
      if (fn == nullptr) return nullptr;
      return detail::make_choice<T>(uid(), r, bias, fn);
    });
  }
};

/// aten::mm on the host: the untiled loop GEMM.
class HostAtenMm final : public ExternKernelChoiceBase<uids::aten_mm> {
 public:
  [[nodiscard]] std::shared_ptr<ChoiceCaller> choice_or_none(const ChoiceRequest& r) const override {
    return detail::by_dtype(r.inputs.dtype(), [&](auto tag) {
      using T = decltype(tag);
      return detail::make_choice<T>(uid(), r, false, &loop_gemm<T>);
    });
  }
};

/// aten::addmm and aten::bias_addmm on the host: the loop GEMM with the bias epilogue
/// (alpha and beta from the extra kwargs).
template <fixed_string Uid>
class HostAtenAddmmT final : public ExternKernelChoiceBase<Uid> {
 public:
  [[nodiscard]] std::shared_ptr<ChoiceCaller> choice_or_none(const ChoiceRequest& r) const override {
    if (r.inputs.nodes().size() < 3) return nullptr;
    return detail::by_dtype(r.inputs.dtype(), [&](auto tag) {
      using T = decltype(tag);
      return detail::make_choice<T>(this->uid(), r, true, &loop_gemm<T>);
    });
  }
};
using HostAtenAddmm = HostAtenAddmmT<uids::aten_addmm>;
using HostAtenBiasAddmm = HostAtenAddmmT<uids::aten_bias_addmm>;

}  // namespace ctmatch::tune::host
