#pragma once
// Launching the cuda::mm_wgmma template: one instantiation per (config, operand type,
// epilogue), chosen at run time from a constexpr set. Before a launch the launcher checks what
// the kernel cannot: a device that is not sm_90 (wgmma, setmaxnreg and TMA as compiled here),
// operands TMA cannot describe (wgmma_operand_refusal), a config outside the instantiated set,
// more shared memory than the device grants; each is a cuda::Error, never a blind launch.
// The grid is persistent: one block per multiprocessor at most, each walking its work units
// (tiles, or with K split, slices of tiles: wgmma_slices, scratch from split_k_scratch.hpp);
// with cluster_m 2, as many pairs of blocks as the device can run at once.
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>

#include "config_sets.hpp"
#include "error.hpp"
#include "mma_sync_launch.hpp"  // to_string(GemmConfig), device_max_smem_per_block, ConfigSet
#include "split_k_scratch.hpp"
#include "tma.hpp"
#include "wgmma_kernel.hpp"

namespace ctmatch::cuda {

struct DeviceFacts {
  int major = 0, minor = 0, sms = 0;
};
/// Compute capability and multiprocessor count of the current device.
inline DeviceFacts current_device_facts() {
  int dev = 0;
  CTMATCH_CUDA_CHECK(cudaGetDevice(&dev));
  DeviceFacts f;
  CTMATCH_CUDA_CHECK(cudaDeviceGetAttribute(&f.major, cudaDevAttrComputeCapabilityMajor, dev));
  CTMATCH_CUDA_CHECK(cudaDeviceGetAttribute(&f.minor, cudaDevAttrComputeCapabilityMinor, dev));
  CTMATCH_CUDA_CHECK(cudaDeviceGetAttribute(&f.sms, cudaDevAttrMultiProcessorCount, dev));
  return f;
}

/// Why the wgmma template cannot run these operands on the current device; empty when it can.
template <class In>
std::string wgmma_refusal(const MmOperands<In>& op) {
  const DeviceFacts d = current_device_facts();
  if (d.major != 9)
    return "cuda::mm_wgmma needs an sm_90 (Hopper) device; this one is sm_" + std::to_string(d.major * 10 + d.minor);
  return wgmma_operand_refusal(op.m, op.n, op.k, op.lda, op.ldb, reinterpret_cast<std::uintptr_t>(op.a),
                               reinterpret_cast<std::uintptr_t>(op.b));
}

/// A launch of `grid` blocks in clusters of `cluster_m` along x; `attr` (the launch points to
/// it) holds the cluster's size.
inline cudaLaunchConfig_t cluster_launch(int grid, int cluster_m, int threads, int smem_bytes, cudaStream_t stream,
                                         cudaLaunchAttribute& attr) {
  attr = cudaLaunchAttribute{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = static_cast<unsigned>(cluster_m);
  attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
  cudaLaunchConfig_t launch{};
  launch.gridDim = dim3(static_cast<unsigned>(grid));
  launch.blockDim = dim3(static_cast<unsigned>(threads));
  launch.dynamicSmemBytes = static_cast<std::size_t>(smem_bytes);
  launch.stream = stream;
  launch.attrs = &attr;
  launch.numAttrs = 1;
  return launch;
}

/// Launches the instantiation for config C with K split into `split_k` slices (C's kernel
/// splits at run time: the set instantiates split_k 1). Throws for what the kernel cannot run.
template <tune::GemmConfig C, class In, class Epi>
void launch_wgmma(const MmOperands<In>& op, const Epi& epi, cudaStream_t stream, int split_k = 1) {
  using P = WgmmaShape<C>;
  static_assert(P::ok, "config refused by wgmma_plan: the launcher never instantiates it");
  if (auto why = wgmma_refusal(op); !why.empty())
    throw Error("cuda::mm_wgmma " + to_string(C) + ": " + why);
  tune::GemmConfig split_config = C;
  split_config.split_k = split_k;
  if (const WgmmaPlan p = wgmma_plan(split_config); !p.ok) throw Error("cuda::mm_wgmma " + to_string(split_config) + ": " + p.why);
  static_assert(C == tune::kernel_config(C), "a set instantiates kernels: split_k 1");
  auto kernel = &wgmma_mm_kernel<C.block_m, C.block_n, C.block_k, C.num_stages, C.num_warps, C.group_m,
                                 C.pingpong ? 1 : 0, C.cluster_m, In, Epi>;
  constexpr int CL = C.cluster_m;
  static std::once_flag attr_once;  // per instantiation; the attribute is per function
  std::call_once(attr_once, [&] {
    if (P::smem_bytes > device_max_smem_per_block())
      throw Error("cuda::mm_wgmma " + to_string(C) + " needs " + std::to_string(P::smem_bytes) +
                  " bytes of shared memory, more than the device grants");
    CTMATCH_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, P::smem_bytes));
  });
  const CUtensorMap ta = make_tensor_map_sw128(op.a, op.m, op.k, op.lda, C.block_m);
  const CUtensorMap tb = make_tensor_map_sw128(op.b, op.k, op.n, op.ldb, C.block_k);
  // Tiles as the kernel counts them: CL rows of tiles per pair (the last pair's second row may
  // lie past M), each with its partials and ticket when K is split.
  const long pairs = static_cast<long>((op.m + CL * C.block_m - 1) / (CL * C.block_m)) *
                     ((op.n + C.block_n - 1) / C.block_n);
  const long tiles = pairs * CL;
  const WgmmaSlices slices = wgmma_slices(split_config, op.k);
  WgmmaSplit split{slices.slices, slices.k_blocks_per_slice, nullptr, nullptr};
  if (split.slices > 1) {
    const SplitKScratch s = split_k_scratch(
        stream, static_cast<std::size_t>(tiles) * split.slices * C.block_m * C.block_n, static_cast<std::size_t>(tiles));
    split.partials = s.partials;
    split.tickets = s.tickets;
  }
  const long units = pairs * split.slices;  // each taken by all blocks of a cluster
  // Clusters that fit on the device at once (a persistent grid must not wait for a second wave).
  static const int resident_clusters = [&] {
    const int sms = current_device_facts().sms;
    if constexpr (CL == 1) {
      return sms;
    } else {
      cudaLaunchAttribute cluster{};
      const cudaLaunchConfig_t probe = cluster_launch(sms - sms % CL, CL, P::threads, P::smem_bytes, nullptr, cluster);
      int count = 0;
      CTMATCH_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&count, kernel, &probe));
      if (count < 1) throw Error("cuda::mm_wgmma " + to_string(C) + ": the device runs no cluster of this kernel");
      return count;
    }
  }();
  const long grid = (units < resident_clusters ? units : resident_clusters) * CL;
  using Out = typename Epi::out_type;
  const bool pair_stores = op.n % 2 == 0 && epi.ldo % 2 == 0 &&
                           reinterpret_cast<std::uintptr_t>(epi.out) % (2 * sizeof(Out)) == 0;
  // 16-byte row chunks of 2-byte outputs: rows and the output 16-byte aligned
  const bool row_chunk_stores = sizeof(Out) == 2 && op.n % 8 == 0 && epi.ldo % 8 == 0 &&
                                reinterpret_cast<std::uintptr_t>(epi.out) % 16 == 0;
  if constexpr (CL == 1) {
    kernel<<<static_cast<unsigned>(grid), P::threads, P::smem_bytes, stream>>>(ta, tb, op.m, op.n, op.k, epi,
                                                                                pair_stores, row_chunk_stores, split);
    CTMATCH_CUDA_CHECK_LAUNCH();
  } else {
    cudaLaunchAttribute cluster{};
    const cudaLaunchConfig_t launch =
        cluster_launch(static_cast<int>(grid), CL, P::threads, P::smem_bytes, stream, cluster);
    CTMATCH_CUDA_CHECK(cudaLaunchKernelEx(&launch, kernel, ta, tb, op.m, op.n, op.k, epi, pair_stores,
                                          row_chunk_stores, split));
  }
}

/// Run-time dispatch over the instantiated set: launches the instantiation of `c`'s kernel
/// (tune::kernel_config) with c's split of K.
template <const auto& Configs, class In, class Epi>
void launch_wgmma(tune::GemmConfig c, const MmOperands<In>& op, const Epi& epi, cudaStream_t stream) {
  const tune::GemmConfig kernel = tune::kernel_config(c);
  const bool launched = [&]<std::size_t... I>(std::index_sequence<I...>) {
    return ((Configs[I] == kernel ? (launch_wgmma<Configs[I], In, Epi>(op, epi, stream, c.split_k), true) : false) || ...);
  }(std::make_index_sequence<Configs.size()>{});
  if (!launched) throw Error("cuda::mm_wgmma: config " + to_string(c) + " is not in the instantiated set");
}

}  // namespace ctmatch::cuda
