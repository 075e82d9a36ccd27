#pragma once
// KernelTemplateChoice: everything needed to make one choice — template, params (per-config
// kwargs, overrides applied), extra kwargs, output layout, inputs — without making it.
// choice() calls the template's choice_or_none on first use and caches the result (nullptr
// too), so a finalize hook can drop choices before any of the expensive generation runs.
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "kernel_template.hpp"

namespace ctmatch::tune {

class KernelTemplateChoice {
 public:
  KernelTemplateChoice(const KernelTemplate& kernel_template, Kwargs params, std::shared_ptr<const Kwargs> extra_kwargs,
                       std::shared_ptr<const OutputLayout> layout, std::shared_ptr<const MMKernelInputs> inputs)
      : template_(&kernel_template),
        params_(std::move(params)),
        extra_kwargs_(std::move(extra_kwargs)),
        layout_(std::move(layout)),
        inputs_(std::move(inputs)),
        state_(std::make_shared<Lazy>()) {}

  [[nodiscard]] const KernelTemplate& kernel_template() const { return *template_; }
  [[nodiscard]] std::string_view uid() const { return template_->uid(); }
  [[nodiscard]] const Kwargs& params() const { return params_; }
  [[nodiscard]] const Kwargs& extra_kwargs() const { return *extra_kwargs_; }
  [[nodiscard]] const OutputLayout& layout() const { return *layout_; }
  [[nodiscard]] const MMKernelInputs& inputs() const { return *inputs_; }
  /// The GEMM config the params name, if they name one (extern choices do not).
  [[nodiscard]] std::optional<GemmConfig> config() const { return gemm_config_of(params_); }
  /// Params then extra kwargs, as the template is called.
  [[nodiscard]] Kwargs all_kwargs() const { return params_.merged(*extra_kwargs_); }

  /// Replaces the layout (Inductor fixes a flexible layout here); a choice made before is dropped.
  void set_layout(OutputLayout layout) {
    layout_ = std::make_shared<const OutputLayout>(std::move(layout));
    state_ = std::make_shared<Lazy>();
  }

  /// The runnable choice, made on first call (nullptr when the template declines).
  /// Copies of a KernelTemplateChoice share the made choice.
  [[nodiscard]] std::shared_ptr<ChoiceCaller> choice() const {
    if (!state_->made) {
      state_->choice = template_->choice_or_none(ChoiceRequest{params_, *extra_kwargs_, *layout_, *inputs_});
      state_->made = true;
    }
    return state_->choice;
  }
  /// Whether choice() has run.
  [[nodiscard]] bool generated() const { return state_->made; }

 private:
  struct Lazy {
    bool made = false;
    std::shared_ptr<ChoiceCaller> choice;
  };
  const KernelTemplate* template_;
  Kwargs params_;
  std::shared_ptr<const Kwargs> extra_kwargs_;
  std::shared_ptr<const OutputLayout> layout_;
  std::shared_ptr<const MMKernelInputs> inputs_;
  std::shared_ptr<Lazy> state_;
};

}  // namespace ctmatch::tune
