#pragma once
// Launching the cuda::mm template: one instantiation per (config, operand type, epilogue),
// chosen at run time from a constexpr set of configs. A config outside the instantiated set,
// a layout the kernel cannot read, or more shared memory than the device grants is an error
// (cuda::Error), never a blind launch.
#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>

#include "config_sets.hpp"
#include "error.hpp"
#include "mma_sync_kernel.hpp"

namespace ctmatch::cuda {

inline std::string to_string(tune::GemmConfig c) {
  return std::to_string(c.block_m) + "x" + std::to_string(c.block_n) + "x" +
         std::to_string(c.block_k) + " s" + std::to_string(c.num_stages) + " w" +
         std::to_string(c.num_warps) + " g" + std::to_string(c.group_m) +
         (c.split_k != 1 ? " k" + std::to_string(c.split_k) : std::string()) + (c.pingpong ? " pp" : "") +
         (c.cluster_m != 1 ? " c" + std::to_string(c.cluster_m) : std::string());
}

/// The opt-in shared-memory limit of the current device (cached per device).
inline int device_max_smem_per_block() {
  int dev = 0;
  CTMATCH_CUDA_CHECK(cudaGetDevice(&dev));
  int v = 0;
  CTMATCH_CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  return v;
}

template <class In, class Epi>
MmFlags mm_flags(const MmOperands<In>& op, const Epi& epi) {
  auto aligned = [](const void* p, std::uintptr_t a) {
    return reinterpret_cast<std::uintptr_t>(p) % a == 0;
  };
  MmFlags f;
  f.vec_loads = op.k % 8 == 0 && op.n % 8 == 0 && op.lda % 8 == 0 && op.ldb % 8 == 0 &&
                aligned(op.a, 16) && aligned(op.b, 16);
  using Out = typename Epi::out_type;
  f.pair_stores = op.n % 2 == 0 && epi.ldo % 2 == 0 && aligned(epi.out, 2 * sizeof(Out));
  return f;
}

/// Launches the instantiation for config C. Throws if the device lacks the shared memory.
template <tune::GemmConfig C, class In, class Epi>
void launch_mma_sync(const MmOperands<In>& op, const Epi& epi, cudaStream_t stream) {
  constexpr MmaSyncPlan P = mma_sync_plan(C);
  static_assert(P.ok, "config refused by mma_sync_plan: the launcher never instantiates it");
  if (op.m == 0 || op.n == 0) return;
  auto kernel = &mma_sync_mm_kernel<C.block_m, C.block_n, C.block_k, C.num_stages, C.num_warps,
                                    C.group_m, In, Epi>;
  static std::once_flag attr_once;  // per instantiation; the attribute is per function
  std::call_once(attr_once, [&] {
    if (P.smem_bytes > device_max_smem_per_block())
      throw Error("cuda::mm " + to_string(C) + " needs " + std::to_string(P.smem_bytes) +
                  " bytes of shared memory, more than the device grants");
    CTMATCH_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            P.smem_bytes));
  });
  const long grid = static_cast<long>((op.m + C.block_m - 1) / C.block_m) *
                    ((op.n + C.block_n - 1) / C.block_n);
  if (grid > 0x7fffffffL) throw Error("cuda::mm: problem too large for a 1-d grid");
  kernel<<<static_cast<unsigned>(grid), P.threads, P.smem_bytes, stream>>>(op, epi,
                                                                            mm_flags(op, epi));
  CTMATCH_CUDA_CHECK_LAUNCH();
}

/// A constexpr set of configs, each instantiated for the (In, Epi) pairs it is launched with.
template <std::size_t N>
using ConfigSet = std::array<tune::GemmConfig, N>;

/// Run-time dispatch over the instantiated set: launches the instantiation equal to `c`.
template <const auto& Configs, class In, class Epi>
void launch_mma_sync(tune::GemmConfig c, const MmOperands<In>& op, const Epi& epi,
                     cudaStream_t stream) {
  const bool launched = [&]<std::size_t... I>(std::index_sequence<I...>) {
    return ((Configs[I] == c ? (launch_mma_sync<Configs[I], In, Epi>(op, epi, stream), true)
                             : false) || ...);
  }(std::make_index_sequence<Configs.size()>{});
  if (!launched)
    throw Error("cuda::mm: config " + to_string(c) + " is not in the instantiated set");
}

}  // namespace ctmatch::cuda
