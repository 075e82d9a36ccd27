#pragma once
// Kernel templates and extern kernel choices with static uids.
//
// A KernelTemplate is anything that can turn (params, extra kwargs, layout, inputs) into a
// runnable ChoiceCaller: a real template (`cuda::mm`, `host::mm`: one kernel per config) or an
// extern choice (`aten::mm`: a library call, one config). Its uid is a compile-time string
// `backend::name`, part of its type (KernelTemplateBase<"cuda::mm">), so registries made of
// types can reject duplicates with a static_assert and look templates up without strings.
// `choice_or_none` is the expensive step (Inductor renders and compiles a kernel there), which
// is why get_mm_configs hands out lazy KernelTemplateChoices that call it only when asked.
#include <concepts>
#include <memory>
#include <string_view>
#include <type_traits>

#include "choice_caller.hpp"
#include "uid.hpp"
#include "kernel_inputs.hpp"
#include "kwargs.hpp"

namespace ctmatch::tune {

enum class TemplateKind : std::uint8_t { Template, Extern };

/// Everything a choice is made from (Inductor: `template.choice_or_none(**kwargs,
/// **extra_kwargs, layout=..., input_nodes=...)`).
struct ChoiceRequest {
  const Kwargs& params;
  const Kwargs& extra_kwargs;
  const OutputLayout& layout;
  const MMKernelInputs& inputs;
};

class KernelTemplate {
 public:
  virtual ~KernelTemplate() = default;
  [[nodiscard]] virtual std::string_view uid() const = 0;
  [[nodiscard]] virtual TemplateKind kind() const = 0;
  /// Makes the runnable choice, or nullptr when this template cannot serve the request
  /// (unsupported config or dtype, backend not built in).
  [[nodiscard]] virtual std::shared_ptr<ChoiceCaller> choice_or_none(const ChoiceRequest& request) const = 0;
  [[nodiscard]] bool is_extern() const { return kind() == TemplateKind::Extern; }
};

/// Base of every template with a static uid: `struct MyMm : KernelTemplateBase<"mylib::mm"> {...}`.
template <fixed_string Uid, TemplateKind Kind = TemplateKind::Template>
class KernelTemplateBase : public KernelTemplate {
  static_assert(is_valid_uid(Uid.view()),
                "ctmatch: a template uid must read 'backend::name' (e.g. \"cuda::mm\", \"aten::addmm\")");

 public:
  static constexpr auto static_uid = Uid;
  static constexpr TemplateKind static_kind = Kind;
  [[nodiscard]] std::string_view uid() const final { return Uid.view(); }
  [[nodiscard]] TemplateKind kind() const final { return Kind; }
};

/// Base of extern kernel choices (library calls such as cuBLAS): `ExternKernelChoiceBase<"aten::mm">`.
template <fixed_string Uid>
using ExternKernelChoiceBase = KernelTemplateBase<Uid, TemplateKind::Extern>;

/// A uid whose kernels this build does not provide: choices can be listed (their params come
/// from the heuristic) but never made. tune/ declares `cuda::mm` this way so that listing works
/// without a GPU; the CUDA backend supplies the real template under the same uid.
template <fixed_string Uid, TemplateKind Kind = TemplateKind::Template>
class DeclaredKernelTemplate final : public KernelTemplateBase<Uid, Kind> {
 public:
  [[nodiscard]] std::shared_ptr<ChoiceCaller> choice_or_none(const ChoiceRequest&) const override { return nullptr; }
};

/// A kernel template or extern choice with a static uid.
template <class T>
concept StaticKernelTemplate = std::derived_from<T, KernelTemplate> && requires {
  { T::static_uid.view() } -> std::same_as<std::string_view>;
  { T::static_kind } -> std::convertible_to<TemplateKind>;
};

}  // namespace ctmatch::tune
