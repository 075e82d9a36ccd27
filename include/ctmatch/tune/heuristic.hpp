#pragma once
// TemplateConfigHeuristic: what configs a template offers for a problem, and with which extra
// kwargs (Inductor's TemplateConfigHeuristics, torch/_inductor/template_heuristics/base.py).
// The base offers nothing: it is also the "empty heuristic" a registry miss returns.
#include <string_view>
#include <vector>

#include "kernel_inputs.hpp"
#include "kwargs.hpp"
#include "options.hpp"

namespace ctmatch::tune {

/// What a heuristic is asked about: the op's inputs, the op's name ("mm", "addmm") and the
/// tuning options (max-autotune gating, search space, shared-memory limit).
struct HeuristicContext {
  const MMKernelInputs& inputs;
  std::string_view op_name;
  const TuneOptions& options;
};

class TemplateConfigHeuristic {
 public:
  virtual ~TemplateConfigHeuristic() = default;

  /// Whether this heuristic offers anything at all here (e.g. only under max-autotune).
  [[nodiscard]] virtual bool should_run(const HeuristicContext&) const { return true; }

  /// The per-config kwargs, in order; nothing when should_run says no.
  [[nodiscard]] std::vector<Kwargs> template_configs(const HeuristicContext& ctx) const {
    if (!should_run(ctx)) return {};
    return template_configs_impl(ctx);
  }

  /// Kwargs the same for every config of this template and op (alpha/beta for addmm).
  [[nodiscard]] virtual Kwargs extra_kwargs(const HeuristicContext&) const { return {}; }

  /// The inputs the template is given, when it needs them reshaped; by default unchanged.
  [[nodiscard]] virtual MMKernelInputs adjust_kernel_inputs(const HeuristicContext& ctx) const { return ctx.inputs; }

 protected:
  /// Override this (not template_configs) so that should_run keeps gating.
  [[nodiscard]] virtual std::vector<Kwargs> template_configs_impl(const HeuristicContext&) const { return {}; }
};

}  // namespace ctmatch::tune
