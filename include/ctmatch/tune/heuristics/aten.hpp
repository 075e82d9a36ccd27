#pragma once
// Heuristics of the extern (aten::) choices, as Inductor's template_heuristics/aten.py: an
// extern choice goes through the same flow as a template, with one config and no kwargs.
#include <vector>

#include "../heuristic.hpp"

namespace ctmatch::tune {

/// One empty config: the library call takes no tuning kwargs.
class AtenHeuristic : public TemplateConfigHeuristic {
 protected:
  [[nodiscard]] std::vector<Kwargs> template_configs_impl(const HeuristicContext&) const override { return {Kwargs{}}; }
};

/// addmm: alpha and beta are extra kwargs (the same for every config).
class AtenAddmmHeuristic : public AtenHeuristic {
 public:
  [[nodiscard]] Kwargs extra_kwargs(const HeuristicContext& ctx) const override {
    Kwargs k = AtenHeuristic::extra_kwargs(ctx);
    k.set("alpha", ctx.inputs.get_scalar("alpha"));
    k.set("beta", ctx.inputs.get_scalar("beta"));
    return k;
  }
};

/// bias_addmm: cuBLASLt's fused bias epilogue, offered only under max-autotune (a GEMM
/// max-autotune heuristic in Inductor) and only when the bias (input 0) is 2-d and broadcast
/// along rows (stride 0 on dim 0) and triton.autotune_cublasLt is on.
class AtenBiasAddmmHeuristic : public AtenAddmmHeuristic {
 public:
  [[nodiscard]] bool should_run(const HeuristicContext& ctx) const override { return ctx.options.gemm_max_autotune(); }

 protected:
  [[nodiscard]] std::vector<Kwargs> template_configs_impl(const HeuristicContext& ctx) const override {
    const TensorDesc& bias = ctx.inputs.nodes().front();
    const bool broadcast = bias.sizes.size() == 2 && bias.strides.size() == 2 && bias.strides[0] == 0;
    if (!broadcast || !ctx.options.autotune_cublaslt) return {};
    return AtenAddmmHeuristic::template_configs_impl(ctx);
  }
};

}  // namespace ctmatch::tune
