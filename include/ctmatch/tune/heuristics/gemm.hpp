#pragma once
// Heuristics of the GEMM kernel templates (cuda::mm, cuda::mm_wgmma, host::mm), as Inductor's
// MMTemplateConfigMixin over BaseConfigHeuristic: offered only under max-autotune; the config
// list (default, or exhaustive when asked) goes through preprocess_mm_configs for the problem,
// and each config becomes the kwargs BLOCK_M, BLOCK_N, BLOCK_K, num_stages, num_warps, GROUP_M.
#include <span>
#include <stdexcept>
#include <vector>

#include "../config_generator.hpp"
#include "../heuristic.hpp"

namespace ctmatch::tune {

class GemmTemplateHeuristic : public TemplateConfigHeuristic {
 public:
  [[nodiscard]] bool should_run(const HeuristicContext& ctx) const override { return ctx.options.gemm_max_autotune(); }

  /// The configs for a problem, before they become kwargs (what template_configs returns).
  [[nodiscard]] std::vector<GemmConfig> configs_for(const HeuristicContext& ctx) const {
    const bool exhaustive = ctx.options.search_space == SearchSpace::Exhaustive;
    std::span<const GemmConfig> list = exhaustive ? exhaustive_configs() : mm_configs();
    PreprocessOptions opt;
    opt.dtype_size = dtype_size(ctx.inputs.dtype());
    opt.has_int8_tensor = ctx.inputs.dtype() == DType::i8;
    opt.prune_shared_memory = ctx.options.prune_by_shared_memory;
    opt.shared_memory_limit = ctx.options.shared_memory_limit;
    opt.exhaustive_prune = exhaustive;
    opt.max_configs = ctx.options.max_mm_configs;
    // The constexpr generator works on fixed capacities: a small one for ordinary lists (cheap
    // to copy), the exhaustive space's size for big ones.
    if (list.size() <= 64) return run<64>(ctx, list, opt);
    if (list.size() <= exhaustive_mm_configs.size()) return run<exhaustive_mm_configs.size()>(ctx, list, opt);
    throw std::length_error("ctmatch: a GEMM config list longer than the exhaustive search space");
  }

 protected:
  /// Inductor's `mm_configs` for this template.
  [[nodiscard]] virtual std::span<const GemmConfig> mm_configs() const { return default_mm_configs; }
  /// The exhaustive search space.
  [[nodiscard]] virtual std::span<const GemmConfig> exhaustive_configs() const { return exhaustive_mm_configs; }
  /// `_filter_configs`: drop configs this template cannot run, before scaling.
  [[nodiscard]] virtual bool keep_config(const GemmConfig&) const { return true; }

  [[nodiscard]] std::vector<Kwargs> template_configs_impl(const HeuristicContext& ctx) const override {
    std::vector<Kwargs> out;
    for (const GemmConfig& c : configs_for(ctx)) out.push_back(to_kwargs(c));
    return out;
  }

 private:
  template <std::size_t Cap>
  std::vector<GemmConfig> run(const HeuristicContext& ctx, std::span<const GemmConfig> list,
                              const PreprocessOptions& opt) const {
    ConfigList<Cap> kept;  // _filter_configs
    for (const GemmConfig& c : list)
      if (keep_config(c)) kept.push_back(c);
    const auto out = preprocess_mm_configs<Cap>(ctx.inputs.m(), ctx.inputs.n(), ctx.inputs.k(),
                                                std::span<const GemmConfig>(kept.begin(), kept.size()), opt);
    return {out.begin(), out.end()};
  }
};

/// The addmm flavour of a GEMM template: the bias is a prefix input and the epilogue computes
/// beta * bias + alpha * (a @ b) (Inductor's addmm template: prefix_args=1, addmm_epilogue).
template <class Base>
class AddmmTemplateHeuristic : public Base {
 public:
  [[nodiscard]] Kwargs extra_kwargs(const HeuristicContext& ctx) const override {
    Kwargs k = Base::extra_kwargs(ctx);
    k.set("prefix_args", 1);
    k.set("alpha", ctx.inputs.get_scalar("alpha"));
    k.set("beta", ctx.inputs.get_scalar("beta"));
    return k;
  }
};

/// cuda::mm (and host::mm, which runs the same configs on the CPU): the default list.
using MmTemplateHeuristic = GemmTemplateHeuristic;
using AddmmMmTemplateHeuristic = AddmmTemplateHeuristic<GemmTemplateHeuristic>;

/// cuda::mm_wgmma, ctmatch's Hopper (sm_90) warpgroup-MMA template: Inductor's persistent
/// TMA config list, with its TMA filter (num_warps == 2 is not safe with TMA).
class WgmmaTemplateHeuristic : public GemmTemplateHeuristic {
 protected:
  [[nodiscard]] std::span<const GemmConfig> mm_configs() const override { return persistent_mm_configs; }
  [[nodiscard]] bool keep_config(const GemmConfig& c) const override { return c.num_warps != 2; }
};
using AddmmWgmmaTemplateHeuristic = AddmmTemplateHeuristic<WgmmaTemplateHeuristic>;

}  // namespace ctmatch::tune
