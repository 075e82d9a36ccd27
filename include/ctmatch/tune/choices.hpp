#pragma once
// get_mm_configs: the list of choices for a stack of templates (Inductor's
// InductorChoices.get_template_configs / get_ktc / _finalize_template_configs, choices.py).
//
//   1. for each template, in order: its heuristic (registry lookup by uid, device, op) gives
//      the per-config kwargs and the extra kwargs; kwarg_overrides[uid] is merged into each
//      config's kwargs ({**config, **override}); extra kwargs are not overridden;
//   2. finalize_template_configs (virtual: subclass Choices to override) sees every template's
//      KernelTemplateChoices and returns the ones to keep — nothing has been generated yet;
//   3. the caller generates only what it keeps: KernelTemplateChoice::choice(), or make_choices.
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "builtin_heuristics.hpp"
#include "kernel_template_choice.hpp"

namespace ctmatch::tune {

/// Per-template kwarg overrides, by template uid.
using KwargOverrides = std::map<std::string, Kwargs, std::less<>>;
/// A stack of templates, in the order their choices come out.
using TemplateStack = std::vector<const KernelTemplate*>;

/// One template's choices, as the finalize hook receives them.
struct TemplateChoices {
  const KernelTemplate* kernel_template = nullptr;
  std::vector<KernelTemplateChoice> choices;
  [[nodiscard]] std::string_view uid() const { return kernel_template->uid(); }
};

class Choices {
 public:
  explicit Choices(TuneOptions options = {}, const HeuristicRegistry& registry = default_heuristic_registry())
      : options_(options), registry_(&registry) {}
  virtual ~Choices() = default;
  Choices(const Choices&) = default;
  Choices& operator=(const Choices&) = default;

  [[nodiscard]] const TuneOptions& options() const { return options_; }
  [[nodiscard]] const HeuristicRegistry& registry() const { return *registry_; }

  /// Every kept choice for `templates`, lazily (nothing generated).
  [[nodiscard]] std::vector<KernelTemplateChoice> get_mm_configs(const MMKernelInputs& kernel_inputs,
                                                                 const TemplateStack& templates,
                                                                 std::string_view op_name,
                                                                 const KwargOverrides& kwarg_overrides = {}) const {
    std::vector<TemplateChoices> template_choices;
    template_choices.reserve(templates.size());
    for (const KernelTemplate* t : templates) {
      if (t == nullptr) throw std::invalid_argument("ctmatch: null template in the template stack");
      auto it = kwarg_overrides.find(t->uid());
      template_choices.push_back(
          TemplateChoices{t, get_ktc(kernel_inputs, *t, op_name, it == kwarg_overrides.end() ? Kwargs{} : it->second)});
    }
    return finalize_template_configs(template_choices, kernel_inputs, templates, op_name, kwarg_overrides);
  }

  /// One template's choices (per template and op; get_mm_configs is per op).
  [[nodiscard]] std::vector<KernelTemplateChoice> get_ktc(const MMKernelInputs& kernel_inputs,
                                                          const KernelTemplate& kernel_template,
                                                          std::string_view op_name,
                                                          const Kwargs& overrides = {}) const {
    const HeuristicContext ctx{kernel_inputs, op_name, options_};
    const TemplateConfigHeuristic& h = registry_->get(kernel_template.uid(), kernel_inputs.device_type(), op_name);
    std::vector<Kwargs> configs = h.template_configs(ctx);
    std::vector<KernelTemplateChoice> out;
    if (configs.empty()) return out;
    auto inputs = std::make_shared<const MMKernelInputs>(h.adjust_kernel_inputs(ctx));
    auto extra = std::make_shared<const Kwargs>(h.extra_kwargs(ctx));
    auto layout = std::make_shared<const OutputLayout>(kernel_inputs.output_layout());
    out.reserve(configs.size());
    for (Kwargs& c : configs) out.emplace_back(kernel_template, c.merged(overrides), extra, layout, inputs);
    return out;
  }

 protected:
  /// The hook: receives every template's choices (cheap, nothing generated) and returns the
  /// ones to keep, in order. The default keeps all, template by template.
  [[nodiscard]] virtual std::vector<KernelTemplateChoice> finalize_template_configs(
      std::vector<TemplateChoices>& template_choices, const MMKernelInputs& kernel_inputs,
      const TemplateStack& templates, std::string_view op_name, const KwargOverrides& kwarg_overrides) const {
    (void)kernel_inputs, (void)templates, (void)op_name, (void)kwarg_overrides;
    std::vector<KernelTemplateChoice> out;
    for (auto& tc : template_choices)
      for (auto& c : tc.choices) out.push_back(std::move(c));
    return out;
  }

 private:
  TuneOptions options_;
  const HeuristicRegistry* registry_;
};

/// get_mm_configs with the default Choices for `options`.
[[nodiscard]] inline std::vector<KernelTemplateChoice> get_mm_configs(const MMKernelInputs& kernel_inputs,
                                                                      const TemplateStack& templates,
                                                                      std::string_view op_name,
                                                                      const KwargOverrides& kwarg_overrides = {},
                                                                      const TuneOptions& options = {}) {
  return Choices(options).get_mm_configs(kernel_inputs, templates, op_name, kwarg_overrides);
}

/// Generates the kept choices (Inductor's third pass), skipping those a template declines.
[[nodiscard]] inline std::vector<std::shared_ptr<ChoiceCaller>> make_choices(
    const std::vector<KernelTemplateChoice>& choices) {
  std::vector<std::shared_ptr<ChoiceCaller>> out;
  for (const auto& c : choices)
    if (auto made = c.choice()) out.push_back(std::move(made));
  return out;
}

}  // namespace ctmatch::tune
