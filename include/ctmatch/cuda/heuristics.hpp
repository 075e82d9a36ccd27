#pragma once
// The CUDA templates' heuristics and refusals. The cuda::mm heuristic as the mma.sync template
// needs it: tune's GEMM heuristic (Inductor's default list scaled to the problem), minus every
// config the template cannot run (mma_sync_plan: warp layout, shared memory over 227 KB,
// accumulator registers) and, in a build with the reduced config set, every config that has no
// kernel; and the same for cuda::mm_wgmma (wgmma_plan, and operands TMA can describe). The
// refusals below are the one place that decides what the templates can run: the heuristics,
// the templates' choice_or_none (tune_backend.hpp) and the launch dispatch (mm_dispatch.hpp)
// all ask them.
// Plain C++ (no CUDA headers), so choices can be listed, and refusals tested, without a GPU.
//
// tune/'s built-in registry registers the unfiltered GemmTemplateHeuristic under
// (cuda::mm, "cuda"); `cuda_heuristic_registry()` is the same registry with this heuristic in
// its place. (The CUDA template also declines a refused config in choice_or_none, so the
// built-in registry is safe too: it only offers choices that are then dropped.)
#include <algorithm>
#include <cstdint>
#include <vector>

#include "../tune/builtin_heuristics.hpp"
#include "../tune/heuristics/aten.hpp"
#include "../tune/heuristics/gemm.hpp"
#include "../tune/kwargs.hpp"
#include "config_sets.hpp"
#include "mm_problem.hpp"

namespace ctmatch::cuda {

/// Why cuda::mm cannot run config c when it instantiates `Configs`; "" when it can.
template <const auto& Configs = mma_sync_configs>
constexpr const char* cuda_mm_refusal(tune::GemmConfig c) {
  const MmaSyncPlan p = mma_sync_plan(c);
  if (!p.ok) return p.why;
  if (!in_config_set<Configs>(c)) return "not instantiated in this build (reduced config set)";
  return "";
}

/// Why cuda::mm_wgmma cannot run config c on these operands (A m x k, B k x n, strides in
/// elements) when it instantiates `Configs`; "" when it can. The operands' addresses and the
/// device are checked again at launch (wgmma_refusal).
template <const auto& Configs = wgmma_configs>
constexpr const char* cuda_mm_wgmma_refusal(tune::GemmConfig c, std::int64_t m, std::int64_t n, std::int64_t k,
                                            Strides2d a, Strides2d b) {
  const WgmmaPlan p = wgmma_plan(c);
  if (!p.ok) return p.why;
  if (!in_config_set<Configs>(c)) return "not instantiated in this build (reduced config set)";
  if (a.col != 1 || b.col != 1) return "operands must have unit column stride (row-major)";
  return wgmma_operand_refusal(m, n, k, a.row, b.row);
}

/// Whether this build can launch cuda::mm with config c (the plan accepts it, it is instantiated).
constexpr bool cuda_mm_runnable(tune::GemmConfig c) { return *cuda_mm_refusal(c) == '\0'; }

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

/// Whether this build can launch cuda::mm_wgmma with config c on some operands (the plan
/// accepts it, it is instantiated).
constexpr bool cuda_mm_wgmma_runnable(tune::GemmConfig c) {
  return wgmma_supported(c) && in_config_set<wgmma_configs>(c);
}

/// The kernels cuda::mm_wgmma's heuristic builds on config c of its list for a problem of m
/// rows, in order, before any refusal: c, its deep twin (wgmma_deepest) and, where m is one row
/// of c's tiles, c 64 columns wide as deep as it goes. That narrow tile gives twice the tiles or
/// more to the multiprocessors without splitting K (cuBLAS runs 64 x 4096 x 4096 in 32x64
/// tiles, 16 stages; 64x64x64 s13 came within 2% of it on an H100, where 64x128x64 split in 2
/// stayed 12% short).
constexpr tune::ConfigList<3> wgmma_offered_kernels(tune::GemmConfig c, std::int64_t m) {
  tune::ConfigList<3> out;
  out.push_back(c);
  out.push_back(wgmma_deepest(c));
  if (m <= c.block_m && c.block_n > 64) {
    c.block_n = 64;
    out.push_back(wgmma_deepest(c));
  }
  return out;
}

/// The twins offered after kernel c for a problem of m rows, before any refusal: its ping-pong
/// twin (GemmConfig::pingpong), and where m has a second row of its tiles its cluster twin
/// (GemmConfig::cluster_m: pairs of blocks sharing B's loads).
constexpr tune::ConfigList<2> wgmma_twins(tune::GemmConfig c, std::int64_t m) {
  tune::ConfigList<2> out;
  if (!c.pingpong) {
    tune::GemmConfig twin = c;
    twin.pingpong = true;
    out.push_back(twin);
  }
  if (c.cluster_m == 1 && m > c.block_m) {
    tune::GemmConfig pair = c;
    pair.cluster_m = 2;
    out.push_back(pair);
  }
  return out;
}

/// cuda::mm_wgmma's heuristic (Inductor's persistent TMA list, tune::WgmmaTemplateHeuristic)
/// minus the configs the wgmma template cannot run or this build did not instantiate, and
/// nothing at all for operands TMA cannot describe (row strides not a multiple of 16 bytes,
/// not row-major) or other dtypes than bf16 and f16. For each config, the kernels of
/// wgmma_offered_kernels that this build runs, each once; after each, where its tiles leave
/// multiprocessors idle, the same kernel with K split (wgmma_split_k, then half as many
/// slices), then its twins (wgmma_twins) that this build runs. The autotuner measures them all.
template <class Base>
class WgmmaFiltered : public Base {
 protected:
  [[nodiscard]] std::vector<tune::Kwargs> template_configs_impl(const tune::HeuristicContext& ctx) const override {
    std::vector<tune::Kwargs> out;
    const auto& in = ctx.inputs;
    if (in.dtype() != tune::DType::bf16 && in.dtype() != tune::DType::f16) return out;
    const Strides2d a{in.mat1().strides[0], in.mat1().strides[1]}, b{in.mat2().strides[0], in.mat2().strides[1]};
    auto runs = [&](const tune::GemmConfig& c) { return *cuda_mm_wgmma_refusal(c, in.m(), in.n(), in.k(), a, b) == '\0'; };
    std::vector<tune::GemmConfig> offered;  // a deep twin may be a config of the list too
    auto offer = [&](const tune::GemmConfig& c) {
      if (!runs(c) || std::find(offered.begin(), offered.end(), c) != offered.end()) return;
      offered.push_back(c);
      out.push_back(tune::to_kwargs(c));
      // The same kernel and operands: only the split differs, within the plan's bound. The
      // split that fills the multiprocessors, and half of it: half the partial tiles to store
      // and sum, on half as many multiprocessors. Which pays depends on K and the pipeline's
      // depth (64x4096x4096 on an H100: 64x128x64 s4 0.865x cuBLAS in 4 slices, s6 0.891x in 2).
      tune::GemmConfig split = c;
      split.split_k = wgmma_split_k(c, in.m(), in.n(), in.k());
      if (split.split_k > 1) out.push_back(tune::to_kwargs(split));
      split.split_k /= 2;
      if (split.split_k > 1) out.push_back(tune::to_kwargs(split));
      for (const tune::GemmConfig& twin : wgmma_twins(c, in.m()))
        if (runs(twin)) out.push_back(tune::to_kwargs(twin));
    };
    for (const tune::GemmConfig& c : this->configs_for(ctx))
      for (const tune::GemmConfig& kernel : wgmma_offered_kernels(c, in.m())) offer(kernel);
    return out;
  }
};
using WgmmaTemplateHeuristic = WgmmaFiltered<tune::WgmmaTemplateHeuristic>;

using CudaHeuristics = tune::StaticHeuristics<
    tune::HeuristicRegistration<tune::uids::aten_mm, tune::any, tune::any, tune::AtenHeuristic>,
    tune::HeuristicRegistration<tune::uids::aten_addmm, tune::any, "addmm", tune::AtenAddmmHeuristic>,
    tune::HeuristicRegistration<tune::uids::aten_bias_addmm, tune::any, "addmm", tune::AtenBiasAddmmHeuristic>,
    tune::HeuristicRegistration<tune::uids::cuda_mm, "cuda", tune::any, MmaSyncTemplateHeuristic>,
    tune::HeuristicRegistration<tune::uids::cuda_mm_wgmma, "cuda", tune::any, WgmmaTemplateHeuristic>,
    tune::HeuristicRegistration<tune::uids::host_mm, "host", tune::any, tune::MmTemplateHeuristic>,
    tune::HeuristicRegistration<tune::uids::host_mm, "host", "addmm", tune::AddmmMmTemplateHeuristic>>;

/// The built-in registrations with cuda::mm's filtered heuristic.
inline tune::HeuristicRegistry& cuda_heuristic_registry() { return CudaHeuristics::registry(); }

}  // namespace ctmatch::cuda
