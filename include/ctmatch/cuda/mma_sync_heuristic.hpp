#pragma once
// The cuda::mm heuristic as the mma.sync template needs it: tune's GEMM heuristic (Inductor's
// default list scaled to the problem), minus every config the template cannot run
// (mma_sync_plan: warp layout, shared memory over 227 KB, accumulator registers) and, in a
// build with the reduced config set, every config that has no kernel. Plain C++ (no CUDA
// headers), so choices can be listed on a machine without a GPU.
//
// tune/'s built-in registry registers the unfiltered GemmTemplateHeuristic under
// (cuda::mm, "cuda"); `cuda_heuristic_registry()` is the same registry with this heuristic in
// its place. (The CUDA template also declines a refused config in choice_or_none, so the
// built-in registry is safe too: it only offers choices that are then dropped.)
#include <vector>

#include "../tune/builtin_heuristics.hpp"
#include "../tune/heuristics/aten.hpp"
#include "../tune/heuristics/gemm.hpp"
#include "../tune/kwargs.hpp"
#include "config_sets.hpp"

namespace ctmatch::cuda {

/// Whether this build can launch cuda::mm with config c (the plan accepts it, it is instantiated).
constexpr bool cuda_mm_runnable(tune::GemmConfig c) {
  return mma_sync_supported(c) && in_config_set<mma_sync_configs>(c);
}

template <class Base>
class MmaSyncFiltered : public Base {
 protected:
  [[nodiscard]] std::vector<tune::Kwargs> template_configs_impl(const tune::HeuristicContext& ctx) const override {
    std::vector<tune::Kwargs> out;
    if (ctx.inputs.dtype() != tune::DType::bf16 && ctx.inputs.dtype() != tune::DType::f16) return out;
    for (const tune::GemmConfig& c : this->configs_for(ctx))
      if (cuda_mm_runnable(c)) out.push_back(tune::to_kwargs(c));
    return out;
  }
};
using MmaSyncTemplateHeuristic = MmaSyncFiltered<tune::MmTemplateHeuristic>;

using CudaHeuristics = tune::StaticHeuristics<
    tune::HeuristicRegistration<tune::uids::aten_mm, tune::any, tune::any, tune::AtenHeuristic>,
    tune::HeuristicRegistration<tune::uids::aten_addmm, tune::any, "addmm", tune::AtenAddmmHeuristic>,
    tune::HeuristicRegistration<tune::uids::aten_bias_addmm, tune::any, "addmm", tune::AtenBiasAddmmHeuristic>,
    tune::HeuristicRegistration<tune::uids::cuda_mm, "cuda", tune::any, MmaSyncTemplateHeuristic>,
    tune::HeuristicRegistration<tune::uids::cuda_mm_wgmma, "cuda", tune::any, tune::WgmmaTemplateHeuristic>,
    tune::HeuristicRegistration<tune::uids::host_mm, "host", tune::any, tune::MmTemplateHeuristic>,
    tune::HeuristicRegistration<tune::uids::host_mm, "host", "addmm", tune::AddmmMmTemplateHeuristic>>;

/// The built-in registrations with cuda::mm's filtered heuristic.
inline tune::HeuristicRegistry& cuda_heuristic_registry() {
  static tune::HeuristicRegistry registry;
  static const bool installed = [] {
    CudaHeuristics::install(registry);
    return true;
  }();
  (void)installed;
  return registry;
}

}  // namespace ctmatch::cuda
