#pragma once
// The GPU choices for an mm-shaped op and how each one runs. A choice is a template uid and,
// for our templates, a GemmConfig:
//   aten::mm        (extern) cuBLAS; for an op with an epilogue, cuBLAS then our epilogue kernel
//   cuda::mm        our mma.sync template with the epilogue fused, one instantiation per config
//   cuda::mm_wgmma  our Hopper template (TMA + wgmma) with the epilogue fused, likewise
// `mm_choices` holds both templates' heuristics: Inductor's default list (cuda::mm) and its
// persistent TMA list (cuda::mm_wgmma) scaled to the problem (tune::preprocess_mm_configs),
// minus the configs the template cannot run, the layouts TMA cannot describe (wgmma) and,
// with the reduced config sets, the configs this build did not instantiate.
#include <string>
#include <string_view>
#include <vector>

#include "../tune/config_generator.hpp"
#include "config_sets.hpp"
#include "cublas_mm.hpp"
#include "mm_problem.hpp"
#include "mma_sync_launch.hpp"
#include "wgmma_launch.hpp"

namespace ctmatch::cuda {

inline constexpr std::string_view aten_mm_uid = "aten::mm";
inline constexpr std::string_view cuda_mm_uid = "cuda::mm";
inline constexpr std::string_view cuda_mm_wgmma_uid = "cuda::mm_wgmma";

struct MmChoice {
  std::string_view uid;
  tune::GemmConfig config{};  // cuda::mm and cuda::mm_wgmma only
  friend bool operator==(const MmChoice&, const MmChoice&) = default;
};

inline std::string to_string(const MmChoice& c) {
  return c.uid == aten_mm_uid ? std::string(c.uid) : std::string(c.uid) + " " + to_string(c.config);
}

/// Why cuda::mm cannot take this config for this problem; empty when it can.
template <const auto& Configs = mma_sync_configs>
std::string cuda_mm_refusal(tune::GemmConfig c) {
  const MmaSyncPlan p = mma_sync_plan(c);
  if (!p.ok) return p.why;
  if (!in_config_set<Configs>(c)) return "not instantiated in this build (reduced config set)";
  return {};
}

/// Why cuda::mm_wgmma cannot take this config for this problem; empty when it can. The
/// operands' addresses are checked at launch (wgmma_refusal), as is the device.
template <const auto& WConfigs = wgmma_configs>
std::string cuda_mm_wgmma_refusal(tune::GemmConfig c, int m, int n, int k, Strides2d a, Strides2d b) {
  const WgmmaPlan p = wgmma_plan(c);
  if (!p.ok) return p.why;
  if (!in_config_set<WConfigs>(c)) return "not instantiated in this build (reduced config set)";
  if (a.col != 1 || b.col != 1) return "operands must have unit column stride (row-major)";
  return wgmma_operand_refusal(m, n, k, a.row, b.row);
}

/// The choices for C[m,n] = A[m,k] @ B[k,n]: aten::mm first, then every cuda::mm config and
/// every cuda::mm_wgmma config the heuristics offer and the templates can run. `max_autotune`
/// false: the extern choice alone. A layout no GPU choice reads (see check_layout) gets no
/// choice at all.
template <const auto& Configs = mma_sync_configs, const auto& WConfigs = wgmma_configs>
std::vector<MmChoice> mm_choices(int m, int n, int k, Strides2d a, Strides2d b,
                                 bool max_autotune = true) {
  if (!check_layout(m, n, k, a, b).empty()) return {};
  std::vector<MmChoice> out{{aten_mm_uid, {}}};
  if (!max_autotune) return out;
  for (const tune::GemmConfig& c : tune::preprocess_mm_configs(m, n, k, tune::default_mm_configs))
    if (cuda_mm_refusal<Configs>(c).empty()) out.push_back({cuda_mm_uid, c});
  for (const tune::GemmConfig& c : tune::preprocess_mm_configs(m, n, k, tune::persistent_mm_configs))
    if (c.num_warps != 2 && cuda_mm_wgmma_refusal<WConfigs>(c, m, n, k, a, b).empty())
      out.push_back({cuda_mm_wgmma_uid, c});
  return out;
}

/// Buffers an extern choice needs besides the operands: the cuBLAS handle and, for the
/// unfused pair, the product before the epilogue.
struct MmWorkspace {
  CublasHandle cublas;
  void* tmp = nullptr;
  std::size_t tmp_bytes = 0;
  MmWorkspace() = default;
  MmWorkspace(const MmWorkspace&) = delete;
  MmWorkspace& operator=(const MmWorkspace&) = delete;
  ~MmWorkspace() { cudaFree(tmp); }
  void* scratch(std::size_t bytes) {
    if (bytes > tmp_bytes) {
      CTMATCH_CUDA_CHECK(cudaFree(tmp));
      tmp = nullptr;
      tmp_bytes = 0;
      CTMATCH_CUDA_CHECK(cudaMalloc(&tmp, bytes));
      tmp_bytes = bytes;
    }
    return tmp;
  }
};

/// Runs one choice of `epi(A @ B)`. For aten::mm with the identity epilogue into the input
/// type this is plain cuBLAS; otherwise cuBLAS into scratch, then the epilogue kernel.
template <class In, class Epi, const auto& Configs = mma_sync_configs, const auto& WConfigs = wgmma_configs>
void run_mm_choice(const MmChoice& choice, MmWorkspace& ws, const MmOperands<In>& op,
                   const Epi& epi, cudaStream_t stream) {
  using Out = typename Epi::out_type;
  if (choice.uid == aten_mm_uid) {
    if constexpr (std::is_same_v<Epi, epilogue::Identity<Out>>) {
      cublas_mm(ws.cublas, op, epi.out, epi.ldo, stream);
    } else {
      In* tmp = static_cast<In*>(ws.scratch(sizeof(In) * static_cast<std::size_t>(op.m) * op.n));
      cublas_mm_then_epilogue(ws.cublas, op, tmp, epi, stream);
    }
    return;
  }
  if (choice.uid == cuda_mm_uid) {
    if (auto why = cuda_mm_refusal<Configs>(choice.config); !why.empty())
      throw Error("cuda::mm refuses " + to_string(choice.config) + ": " + why);
    launch_mma_sync<Configs>(choice.config, op, epi, stream);
    return;
  }
  if (choice.uid == cuda_mm_wgmma_uid) {
    const Strides2d sa{op.lda, 1}, sb{op.ldb, 1};
    if (auto why = cuda_mm_wgmma_refusal<WConfigs>(choice.config, op.m, op.n, op.k, sa, sb); !why.empty())
      throw Error("cuda::mm_wgmma refuses " + to_string(choice.config) + ": " + why);
    launch_wgmma<WConfigs>(choice.config, op, epi, stream);
    return;
  }
  throw Error("unknown GPU mm choice uid '" + std::string(choice.uid) + "'");
}

}  // namespace ctmatch::cuda
