#pragma once
// The Hopper (sm_90a) instructions the cuda::mm_wgmma kernel is built from, one thin inline-PTX
// wrapper each: mbarriers (the pipeline's full/empty handshakes), the TMA tile load that
// completes on an mbarrier (and its multicast to a thread-block cluster, with the cluster's
// rank, barrier and remote arrival), the wgmma shared-memory matrix descriptor, the warpgroup MMA
// itself (m64nNk16, bf16/f16 in, fp32 accumulate, B read N-major) with its fence / commit /
// wait, and setmaxnreg. The encodings follow the PTX ISA ("Asynchronous Warpgroup Level Matrix
// Multiply-Accumulate", "Matrix Descriptor Format") and CUTLASS's canonical GMMA layouts.
#include <boost/preprocessor/arithmetic/add.hpp>
#include <boost/preprocessor/arithmetic/div.hpp>
#include <boost/preprocessor/control/if.hpp>
#include <boost/preprocessor/punctuation/comma_if.hpp>
#include <boost/preprocessor/repetition/repeat.hpp>
#include <boost/preprocessor/stringize.hpp>

#include <cstdint>
#include <type_traits>

#include "element.hpp"

namespace ctmatch::cuda::sm90 {

__device__ inline std::uint32_t smem_u32(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// --- mbarrier ------------------------------------------------------------------------------
__device__ inline void mbar_init(std::uint64_t* bar, std::uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(arrivals) : "memory");
}
/// Makes the barrier initialisation visible to the async proxy (TMA) before any use.
__device__ inline void mbar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
/// One arrival that also announces `bytes` of TMA traffic the phase must wait for.
__device__ inline void mbar_arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(bytes)
               : "memory");
}
__device__ inline void mbar_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_u32(bar)) : "memory");
}
/// One arrival on the barrier at the same shared-memory offset in block `rank` of this
/// thread-block cluster (this block's own for its own rank): a consumer handing a stage back
/// to both producers that write it.
__device__ inline void mbar_arrive_cluster(std::uint64_t* bar, std::uint32_t rank) {
  asm volatile(
      "{\n.reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(smem_u32(bar)),
      "r"(rank)
      : "memory");
}
/// Waits until the phase with this parity has completed. A fresh barrier is in phase 0, so
/// waiting for parity 1 returns at once (the producer's first pass over empty stages).
__device__ inline void mbar_wait(std::uint64_t* bar, std::uint32_t parity) {
  const std::uint32_t addr = smem_u32(bar);
  std::uint32_t done = 0;
  do {
    asm volatile(
        "{\n.reg .pred p;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(addr), "r"(parity)
        : "memory");
  } while (!done);
}

// --- TMA -----------------------------------------------------------------------------------
/// Loads the box at (c0 = column, c1 = row) of a 2-d tensor map into shared memory; elements
/// outside the tensor are written as zeros. Completes `bytes` of the barrier's transaction count.
__device__ inline void tma_load_2d(void* dst, const void* tensor_map, std::uint64_t* bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n"
      ::"r"(smem_u32(dst)), "l"(reinterpret_cast<std::uint64_t>(tensor_map)), "r"(smem_u32(bar)), "r"(c0), "r"(c1)
      : "memory");
}
/// tma_load_2d into the same shared-memory offset of every block of the cluster in `mask` (bit
/// r: rank r), completing the transaction bytes on each block's barrier at `bar`'s offset.
__device__ inline void tma_load_2d_multicast(void* dst, const void* tensor_map, std::uint64_t* bar, int c0, int c1,
                                             std::uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%4, %5}], [%2], %3;\n" ::"r"(smem_u32(dst)),
      "l"(reinterpret_cast<std::uint64_t>(tensor_map)), "r"(smem_u32(bar)), "h"(mask), "r"(c0), "r"(c1)
      : "memory");
}
__device__ inline void tma_prefetch_descriptor(const void* tensor_map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<std::uint64_t>(tensor_map)) : "memory");
}

// --- wgmma ---------------------------------------------------------------------------------
/// The 64-bit shared-memory matrix descriptor of a 128-byte swizzled operand: start address,
/// leading and stride byte offsets (all >> 4, 14 bits each at bits 0, 16, 32), base offset 0
/// (every swizzle atom is 1024-byte aligned), swizzle mode 1 = 128B at bits 62-63.
///   K-major (A): rows of 64 elements, 8-row groups 1024 bytes apart (SBO); LBO unused (1).
///   N-major (B, transposed): 64-column boxes `lbo` bytes apart (LBO), 8-row K groups 1024
///   bytes apart (SBO).
__device__ inline std::uint64_t desc_sw128(std::uint32_t smem_addr, std::uint32_t lbo, std::uint32_t sbo) {
  return static_cast<std::uint64_t>((smem_addr & 0x3FFFF) >> 4) |
         (static_cast<std::uint64_t>((lbo >> 4) & 0x3FFF) << 16) |
         (static_cast<std::uint64_t>((sbo >> 4) & 0x3FFF) << 32) | (std::uint64_t{1} << 62);
}

__device__ inline void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ inline void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ inline void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
/// Keeps the compiler from moving accumulator reads or writes across a wgmma fence or wait.
template <int R>
__device__ inline void fence_accumulators(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

/// bar.sync on named barrier `id` (1..15; 0 is __syncthreads) for `threads` threads (a multiple
/// of 32): a barrier of some warpgroups that the others never wait on.
__device__ inline void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// --- thread-block clusters ------------------------------------------------------------------
/// This block's rank in its cluster.
__device__ inline std::uint32_t cluster_rank() {
  std::uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
/// Every thread of every block of the cluster arrives, then waits for all (release / acquire):
/// barriers initialised before it are visible cluster-wide after it, and no block leaves while
/// another may still write its shared memory or arrive on its barriers.
__device__ inline void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

template <int Regs>
__device__ inline void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Regs));
}
template <int Regs>
__device__ inline void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Regs));
}

// D[64 x N] += A[64 x 16] (K-major, descriptor) * B[16 x N] (N-major, descriptor), fp32
// accumulators in the m64nNk16 fragment layout (per 8 columns: rows lane/4 and lane/4 + 8 of
// the warp's 16, columns 2 * (lane % 4) + {0, 1}). Operands: %0 .. %(N/2 - 1) the N/2
// accumulators d[] (read and written), then desc_a, desc_b and the scale-d flag (1:
// accumulate); after the descriptors the instruction takes scale-d, scale-a 1, scale-b 1,
// transpose-a 0 (K-major), transpose-b 1 (N-major).
//
// Why a macro: an inline-asm template must be one string literal, so the shape (n64 ..
// n256), the input type suffix (bf16 / f16) and the N/2 + 3 operand numbers can only be
// pasted into it by the preprocessor; no template parameter reaches into the string. One
// generator writes all eight (4 shapes x 2 types) instructions: Boost.Preprocessor counts out
// the accumulator list, so each asm block is exactly the one a hand-written version would be.
#define CTMATCH_SM90_WGMMA_ACC_NAME(z, i, unused) BOOST_PP_IF(i, ", ", "") "%" BOOST_PP_STRINGIZE(i)
#define CTMATCH_SM90_WGMMA_ACC_OPERAND(z, i, unused) BOOST_PP_COMMA_IF(i) "+f"(d[i])
/// "%M" for the operand M = N/2 + k after the accumulators: desc_a (k 0), desc_b (1), scale-d (2).
#define CTMATCH_SM90_WGMMA_AFTER_ACC(N, k) "%" BOOST_PP_STRINGIZE(BOOST_PP_ADD(BOOST_PP_DIV(N, 2), k))
/// `asm volatile` of wgmma.mma_async m64nNk16 with TYPE ("bf16" or "f16") inputs on the
/// accumulators `d` and the descriptors `desc_a`, `desc_b` of the enclosing function.
#define CTMATCH_SM90_WGMMA_M64NK16(N, TYPE)                                                       \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " CTMATCH_SM90_WGMMA_AFTER_ACC(N, 2) ", 0;\n"      \
               "wgmma.mma_async.sync.aligned.m64n" BOOST_PP_STRINGIZE(N) "k16.f32." TYPE "." TYPE " "   \
               "{" BOOST_PP_REPEAT(BOOST_PP_DIV(N, 2), CTMATCH_SM90_WGMMA_ACC_NAME, ~) "}, "          \
               CTMATCH_SM90_WGMMA_AFTER_ACC(N, 0) ", " CTMATCH_SM90_WGMMA_AFTER_ACC(N, 1)               \
               ", p, 1, 1, 0, 1;\n}\n"                                                             \
               : BOOST_PP_REPEAT(BOOST_PP_DIV(N, 2), CTMATCH_SM90_WGMMA_ACC_OPERAND, ~)             \
               : "l"(desc_a), "l"(desc_b), "r"(1)                                                   \
               : "memory")

/// The m64nNk16 instruction for a block n of N: bf16 inputs, otherwise f16.
template <int N, class In>
__device__ inline void wgmma_m64k16(float (&d)[N / 2], std::uint64_t desc_a, std::uint64_t desc_b) {
  constexpr bool bf = std::is_same_v<In, bf16>;
  if constexpr (N == 64) {
    if constexpr (bf) CTMATCH_SM90_WGMMA_M64NK16(64, "bf16"); else CTMATCH_SM90_WGMMA_M64NK16(64, "f16");
  } else if constexpr (N == 128) {
    if constexpr (bf) CTMATCH_SM90_WGMMA_M64NK16(128, "bf16"); else CTMATCH_SM90_WGMMA_M64NK16(128, "f16");
  } else if constexpr (N == 192) {
    if constexpr (bf) CTMATCH_SM90_WGMMA_M64NK16(192, "bf16"); else CTMATCH_SM90_WGMMA_M64NK16(192, "f16");
  } else {
    static_assert(N == 256, "wgmma n must be 64, 128, 192 or 256 here");
    if constexpr (bf) CTMATCH_SM90_WGMMA_M64NK16(256, "bf16"); else CTMATCH_SM90_WGMMA_M64NK16(256, "f16");
  }
}

#undef CTMATCH_SM90_WGMMA_M64NK16
#undef CTMATCH_SM90_WGMMA_AFTER_ACC
#undef CTMATCH_SM90_WGMMA_ACC_OPERAND
#undef CTMATCH_SM90_WGMMA_ACC_NAME

}  // namespace ctmatch::cuda::sm90
