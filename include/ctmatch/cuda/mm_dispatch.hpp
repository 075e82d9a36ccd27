#pragma once
// Launching one GPU choice of an mm-shaped op with an epilogue. A choice is a template uid and,
// for our templates, a GemmConfig:
//   aten::mm        (extern) cuBLAS; for an op with an epilogue, cuBLAS then our epilogue kernel
//   cuda::mm        our mma.sync template with the epilogue fused, one instantiation per config
//   cuda::mm_wgmma  our Hopper template (TMA + wgmma) with the epilogue fused, likewise
// Which choices there are for a problem is tune::get_mm_configs' answer (with the CUDA
// heuristics and templates of tune_backend.hpp); this header only runs one. A config the
// template refuses (heuristics.hpp says why) throws cuda::Error and is never launched.
#include <string>
#include <string_view>
#include <type_traits>

#include "../tune/uids.hpp"
#include "cublas_mm.hpp"
#include "mm_problem.hpp"
#include "heuristics.hpp"
#include "mma_sync_launch.hpp"
#include "wgmma_launch.hpp"

namespace ctmatch::cuda {

inline constexpr std::string_view aten_mm_uid = tune::uids::aten_mm.view();
inline constexpr std::string_view cuda_mm_uid = tune::uids::cuda_mm.view();
inline constexpr std::string_view cuda_mm_wgmma_uid = tune::uids::cuda_mm_wgmma.view();

struct MmChoice {
  std::string_view uid;
  tune::GemmConfig config{};  // cuda::mm and cuda::mm_wgmma only
  friend bool operator==(const MmChoice&, const MmChoice&) = default;
};

inline std::string to_string(const MmChoice& c) {
  return c.uid == aten_mm_uid ? std::string(c.uid) : std::string(c.uid) + " " + to_string(c.config);
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

/// aten::mm with `epi`: plain cuBLAS for the identity epilogue into the input type; otherwise
/// cuBLAS into scratch, then the epilogue kernel (the unfused pair).
template <class In, class Epi>
void run_aten_mm(MmWorkspace& ws, const MmOperands<In>& op, const Epi& epi, cudaStream_t stream) {
  if constexpr (std::is_same_v<Epi, epilogue::Identity<In>>) {
    cublas_mm(ws.cublas, op, epi.out, epi.ldo, stream);
  } else {
    In* tmp = static_cast<In*>(ws.scratch(sizeof(In) * static_cast<std::size_t>(op.m) * op.n));
    cublas_mm_then_epilogue(ws.cublas, op, tmp, epi, stream);
  }
}

/// cuda::mm with config c, or cuda::Error with the reason it is refused.
template <const auto& Configs, class In, class Epi>
void run_cuda_mm(tune::GemmConfig c, const MmOperands<In>& op, const Epi& epi, cudaStream_t stream) {
  if (const char* why = cuda_mm_refusal<Configs>(c); *why != '\0')
    throw Error("cuda::mm refuses " + to_string(c) + ": " + why);
  launch_mma_sync<Configs>(c, op, epi, stream);
}

/// cuda::mm_wgmma with config c, or cuda::Error with the reason it is refused.
template <const auto& Configs, class In, class Epi>
void run_cuda_mm_wgmma(tune::GemmConfig c, const MmOperands<In>& op, const Epi& epi, cudaStream_t stream) {
  if (const char* why = cuda_mm_wgmma_refusal<Configs>(c, op.m, op.n, op.k, {op.lda, 1}, {op.ldb, 1}); *why != '\0')
    throw Error("cuda::mm_wgmma refuses " + to_string(c) + ": " + why);
  launch_wgmma<Configs>(c, op, epi, stream);
}

/// Runs one choice of `epi(A @ B)`, whichever template it names.
template <class In, class Epi, const auto& Configs = mma_sync_configs, const auto& WConfigs = wgmma_configs>
void run_mm_choice(const MmChoice& choice, MmWorkspace& ws, const MmOperands<In>& op, const Epi& epi,
                   cudaStream_t stream) {
  if (choice.uid == aten_mm_uid) return run_aten_mm(ws, op, epi, stream);
  if (choice.uid == cuda_mm_uid) return run_cuda_mm<Configs>(choice.config, op, epi, stream);
  if (choice.uid == cuda_mm_wgmma_uid) return run_cuda_mm_wgmma<WConfigs>(choice.config, op, epi, stream);
  throw Error("unknown GPU mm choice uid '" + std::string(choice.uid) + "'");
}

}  // namespace ctmatch::cuda
