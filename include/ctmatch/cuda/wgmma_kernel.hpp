#pragma once
// The cuda::mm_wgmma kernel template (Hopper, sm_90a): C = epilogue(A @ B) with warpgroup MMAs
// fed by TMA through an mbarrier pipeline of num_stages, warp-specialized and persistent.
//   - Warpgroup 0 is the producer: it gives registers back (setmaxnreg) and one thread issues,
//     for every k-block of every tile this block owns, the TMA loads of A (block_m x 64 boxes)
//     and B (block_k x 64 boxes) into the next free stage, which completes its `full` barrier.
//   - Warpgroups 1..consumers take registers (setmaxnreg) and own wg_tile_m rows of the block
//     tile: per k-block they wait for `full`, issue block_k/16 x m_atoms wgmma m64nBNk16 (A
//     K-major, B N-major straight from row-major B), and release the previous stage to the
//     producer (`empty`) once its wgmmas have retired (wait_group 1 keeps one group in flight).
//   - Then the consumers run the epilogue from registers (masked stores), while the producer
//     is already loading the next tile's stages: the persistent loop overlaps them.
//   - Ping-pong (plan.pingpong): the two consumers take alternate work units of the block,
//     each a whole tile; a consumer skips the other's k-blocks in the stage ring, and each
//     stage is released by the one warpgroup that read it. A consumer starts a unit's mainloop
//     only when the other has waited for every stage of the unit before (the `turn`
//     barriers): a stage's `full` barrier is waited on by phase parity, which cannot tell
//     phase q from q - 2, so no consumer may wait more than one phase ahead of the barrier.
//     The turns also order the MMAs: one consumer's epilogue runs under the other's mainloop.
//   - Clusters (plan.cluster_m 2): the blocks of a cluster walk the same work units, each
//     taking its own row of tiles of a 2 block_m x block_n pair tile; each producer loads its
//     own A and half of B's boxes, multicast to both blocks (every block's `full` still expects
//     a whole stage), and each consumer warp hands a stage back to both blocks' `empty`, so that
//     neither producer overwrites a stage the other block still reads. The cluster synchronises
//     after the barriers' initialisation and before any block leaves.
//   - With K split (WgmmaSplit, slices > 1) a work unit is one slice of K of one tile. Its
//     consumers store the fp32 accumulators to the unit's partial tile, then draw a ticket for
//     the tile; the unit drawing the last one sums the slices' partials in slice order (the
//     same bits whichever finishes last), resets the ticket for the next launch and runs the
//     epilogue. No block waits on another, so any number of units per block is safe.
// Any M, N, K: TMA zero-fills loads past the edges, and the epilogue masks the stores. The
// operands' layouts are checked by the launcher (wgmma_operand_refusal), never here.
#include <cuda.h>

#include <cstdint>

#include "element.hpp"
#include "epilogue_store.hpp"
#include "tile_order.hpp"
#include "wgmma_plan.hpp"
#include "wgmma_ptx.hpp"

namespace ctmatch::cuda {

/// The plan's numbers as integral constants, readable from device code.
template <tune::GemmConfig C>
struct WgmmaShape {
  static constexpr WgmmaPlan plan = wgmma_plan(C);
  static constexpr bool ok = plan.ok;
  static constexpr int consumers = plan.consumers;
  static constexpr int wg_tile_m = plan.wg_tile_m;
  static constexpr int m_atoms = plan.m_atoms;
  static constexpr int threads = plan.threads;
  static constexpr int stage_bytes = plan.stage_bytes;
  static constexpr int smem_bytes = plan.smem_bytes;
  static constexpr bool pingpong = plan.pingpong;
  static constexpr int cluster_m = plan.cluster_m;
};

/// How a launch splits K (wgmma_slices): `slices` units per tile, each of k_blocks_per_slice
/// k-blocks (the last one fewer); with slices > 1, scratch for every unit's fp32 partial tile
/// (block_m x block_n floats each, in the consumers' fragment order) and a ticket per tile,
/// zero before the launch and left at zero after it.
struct WgmmaSplit {
  int slices = 1;
  int k_blocks_per_slice = 0;
  float* partials = nullptr;
  unsigned* tickets = nullptr;
};

/// Registers per thread after setmaxnreg: the producer keeps few, the consumers take the rest
/// of the 64K register file (128 * 40 + 256 * 232 <= 65536).
inline constexpr int wgmma_producer_regs = 40;
inline constexpr int wgmma_consumer_regs = 232;

/// The instantiated config (tune::kernel_config) spelled as integers, as for mma_sync_mm_kernel
/// (nvcc's host stubs cannot name a class-type template argument).
template <int BM_, int BN_, int BK_, int S_, int W_, int G_, int PP_, int CL_, class In, class Epi>
__global__ void __launch_bounds__(WgmmaShape<tune::GemmConfig{BM_, BN_, BK_, S_, W_, G_, 1, PP_ != 0, CL_}>::threads, 1)
    wgmma_mm_kernel(const __grid_constant__ CUtensorMap tma_a, const __grid_constant__ CUtensorMap tma_b,
                    int m, int n, int k, Epi epi, bool pair_stores, bool row_chunk_stores, WgmmaSplit split) {
  constexpr tune::GemmConfig C{BM_, BN_, BK_, S_, W_, G_, 1, PP_ != 0, CL_};
  using P = WgmmaShape<C>;
  static_assert(P::ok, "this GemmConfig is not supported by the wgmma template");
  static_assert(is_mma_input_v<In>, "wgmma template takes bf16 or f16 operands");
  static_assert(C.block_n % 32 == 0, "the epilogue stores 32-column groups");
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr int BM = C.block_m, BN = C.block_n, BK = C.block_k, S = C.num_stages, CL = P::cluster_m;
  constexpr int SW = wgmma_swizzle_elems;        // 64 elements = one 128-byte row
  constexpr int A_BOX_BYTES = BM * SW * 2;       // one 64-column box of A: BM rows x 128 bytes
  constexpr int B_BOX_BYTES = BK * SW * 2;       // one 64-column box of B: BK rows x 128 bytes
  constexpr int A_STAGE_BYTES = A_BOX_BYTES * (BK / SW);
  constexpr int STAGE_BYTES = P::stage_bytes;
  static_assert(STAGE_BYTES == A_STAGE_BYTES + B_BOX_BYTES * (BN / SW));

  extern __shared__ __align__(16) unsigned char smem_raw[];
  // Stage buffers 1024-byte aligned (128-byte swizzle atoms), then the barriers.
  const std::uint32_t raw = sm90::smem_u32(smem_raw);
  unsigned char* smem = smem_raw + ((wgmma_smem_align - raw % wgmma_smem_align) % wgmma_smem_align);
  auto* full = reinterpret_cast<std::uint64_t*>(smem + S * STAGE_BYTES);
  std::uint64_t* empty = full + S;
  auto* ticket = reinterpret_cast<unsigned*>(empty + S);  // the consumers' drawn ticket
  // ping-pong: turn[c] completes a phase each time the other consumer has waited for all of
  // its unit's stages, letting consumer c start its next unit (past the ticket's bytes)
  auto* turn = reinterpret_cast<std::uint64_t*>(reinterpret_cast<unsigned char*>(ticket) + wgmma_ticket_bytes);
  auto stage_a = [&](int s) { return smem + s * STAGE_BYTES; };
  auto stage_b = [&](int s) { return smem + s * STAGE_BYTES + A_STAGE_BYTES; };

  const int tid = static_cast<int>(threadIdx.x);
  if (tid == 0) {
    sm90::tma_prefetch_descriptor(&tma_a);
    sm90::tma_prefetch_descriptor(&tma_b);
#pragma unroll
    for (int s = 0; s < S; ++s) {
      sm90::mbar_init(&full[s], 1);                       // the producer's expect_tx arrival
      // per warp reading it, in each block of the cluster
      sm90::mbar_init(&empty[s], (P::pingpong ? 1 : P::consumers) * 4 * CL);
    }
    if constexpr (P::pingpong) {
      sm90::mbar_init(&turn[0], 1);
      sm90::mbar_init(&turn[1], 1);
    }
    sm90::mbar_init_fence();
  }
  if constexpr (CL > 1) sm90::cluster_sync();
  else __syncthreads();

  // The work: pair tiles of CL x BM rows (one tile each without a cluster), in grouped order,
  // each in split.slices units; the cluster's blocks take the same units, block `rank` the
  // tile at row rank * BM of the pair (a tile past M loads zeros and stores nothing).
  const int rank = CL > 1 ? static_cast<int>(sm90::cluster_rank()) : 0;
  const int cluster = static_cast<int>(blockIdx.x) / CL, clusters = static_cast<int>(gridDim.x) / CL;
  const int grid_m = (m + BM - 1) / BM, grid_n = (n + BN - 1) / BN;
  const int pair_rows = (grid_m + CL - 1) / CL;
  const int k_blocks = (k + BK - 1) / BK;
  const int units = pair_rows * grid_n * split.slices;
  auto origin = [&](int u) {
    TileOrigin o = grouped_tile_origin(u / split.slices, pair_rows, grid_n, C.group_m > CL ? C.group_m / CL : 1,
                                       CL * BM, BN);
    o.m0 += rank * BM;
    return o;
  };
  // The k-blocks of unit u: its tile's slice u % slices.
  auto k_range = [&](int u, int& kb_begin, int& kb_end) {
    kb_begin = (u % split.slices) * split.k_blocks_per_slice;
    kb_end = min(k_blocks, kb_begin + split.k_blocks_per_slice);
  };

  const int wg = tid / 128;
  if (wg == 0) {
    sm90::setmaxnreg_dec<wgmma_producer_regs>();
    if (tid == 0) {
      int it = 0;
      for (int u = cluster; u < units; u += clusters) {
        const auto [m0, n0] = origin(u);
        int kb_begin, kb_end;
        k_range(u, kb_begin, kb_end);
        for (int kb = kb_begin; kb < kb_end; ++kb, ++it) {
          const int s = it % S;
          sm90::mbar_wait(&empty[s], ((it / S) & 1) ^ 1);
          sm90::mbar_arrive_expect_tx(&full[s], STAGE_BYTES);
#pragma unroll
          for (int j = 0; j < BK / SW; ++j)
            sm90::tma_load_2d(stage_a(s) + j * A_BOX_BYTES, &tma_a, &full[s], kb * BK + j * SW, m0);
          // B: every box, or in a cluster this block's share of them, multicast to all
          constexpr int B_BOXES = BN / SW / CL;
#pragma unroll
          for (int i = 0; i < B_BOXES; ++i) {
            const int j = rank * B_BOXES + i;
            if constexpr (CL > 1)
              sm90::tma_load_2d_multicast(stage_b(s) + j * B_BOX_BYTES, &tma_b, &full[s], n0 + j * SW, kb * BK,
                                          static_cast<std::uint16_t>((1u << CL) - 1));
            else
              sm90::tma_load_2d(stage_b(s) + j * B_BOX_BYTES, &tma_b, &full[s], n0 + j * SW, kb * BK);
          }
        }
      }
    }
  } else {
    sm90::setmaxnreg_inc<wgmma_consumer_regs>();
    const int cw = wg - 1;                      // consumer index
    const int t = tid % 128, warp = t / 32, lane = t % 32;
    const int wg_row0 = P::pingpong ? 0 : cw * P::wg_tile_m;  // this consumer's first row of a tile
    float acc[P::m_atoms][BN / 2];
    // The block's units in the producer's order; ping-pong consumer cw takes every other one,
    // from its cw-th, and counts the other's k-blocks (no split: k_blocks each) in `it` unread.
    // (Ping-pong runs without clusters: there `cluster` is the block and `clusters` the grid.)
    int it = P::pingpong ? cw * k_blocks : 0;
    int turns = 0;  // ping-pong: units this consumer has run
    // A stage read: lane 0 hands it back to the producer of every block of the cluster.
    auto release = [&](int s) {
      if (lane != 0) return;
      if constexpr (CL > 1) {
#pragma unroll
        for (int r = 0; r < CL; ++r) sm90::mbar_arrive_cluster(&empty[s], static_cast<std::uint32_t>(r));
      } else {
        sm90::mbar_arrive(&empty[s]);
      }
    };
    for (int u = cluster + (P::pingpong ? cw * clusters : 0); u < units;
         u += P::pingpong ? 2 * clusters : clusters, it += P::pingpong ? k_blocks : 0, ++turns) {
      // Consumer 0's j-th unit follows consumer 1's (j-1)-th (turn[0] phase j-1), consumer 1's
      // j-th follows consumer 0's j-th (turn[1] phase j).
      if (P::pingpong && (cw == 1 || turns > 0)) sm90::mbar_wait(&turn[cw], (turns - (cw == 0 ? 1 : 0)) & 1);
      const int tile = u / split.slices * CL + rank;  // the split's partials and ticket
      const auto [m0, n0] = origin(u);
#pragma unroll
      for (int a = 0; a < P::m_atoms; ++a)
#pragma unroll
        for (int i = 0; i < BN / 2; ++i) acc[a][i] = 0.0f;
      int prev_s = -1;
      int kb_begin, kb_end;
      k_range(u, kb_begin, kb_end);
      for (int kb = kb_begin; kb < kb_end; ++kb, ++it) {
        const int s = it % S;
        sm90::mbar_wait(&full[s], (it / S) & 1);
        const std::uint32_t a_base = sm90::smem_u32(stage_a(s)) + wg_row0 * SW * 2;
        const std::uint32_t b_base = sm90::smem_u32(stage_b(s));
#pragma unroll
        for (int a = 0; a < P::m_atoms; ++a) sm90::fence_accumulators(acc[a]);
        sm90::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < BK / 16; ++kk) {
          // A: box kk/4, 16 columns = 32 bytes along the swizzled row; B: 16 rows = 2048 bytes.
          const std::uint64_t db = sm90::desc_sw128(b_base + kk * 16 * SW * 2, B_BOX_BYTES, 1024);
#pragma unroll
          for (int a = 0; a < P::m_atoms; ++a) {
            const std::uint64_t da = sm90::desc_sw128(
                a_base + (kk / 4) * A_BOX_BYTES + a * 64 * SW * 2 + (kk % 4) * 32, 16, 1024);
            sm90::wgmma_m64k16<BN, In>(acc[a], da, db);
          }
        }
        sm90::wgmma_commit();
#pragma unroll
        for (int a = 0; a < P::m_atoms; ++a) sm90::fence_accumulators(acc[a]);
        // The group before this one has retired (wait_group is warp-synchronous, so for every
        // lane of this warp): lane 0 hands its stage back to the producer for the warp.
        sm90::wgmma_wait<1>();
        if (prev_s >= 0) release(prev_s);
        prev_s = s;
      }
      // This warp has waited for every stage of the unit, and warp 0 speaks for the warpgroup:
      // each warp waits for the same phases in the same order.
      if (P::pingpong && t == 0) sm90::mbar_arrive(&turn[1 - cw]);
      sm90::wgmma_wait<0>();
#pragma unroll
      for (int a = 0; a < P::m_atoms; ++a) sm90::fence_accumulators(acc[a]);
      if (prev_s >= 0) release(prev_s);

      if (!P::pingpong && split.slices > 1) {  // (the plan refuses pingpong with a split)
        // The unit's partial tile in fragment order: register group q (4 floats) of consumer
        // thread t at float4 index q * 128 + t of the consumer's part, so that a warpgroup's
        // stores and loads are contiguous; only this kernel reads it, with the same mapping.
        constexpr int VEC = P::m_atoms * BN / 8;  // float4 per consumer thread
        auto part = [&](int slice) {
          return reinterpret_cast<float4*>(split.partials) +
                 (static_cast<long>(tile) * split.slices + slice) * (VEC * 128 * P::consumers) + cw * VEC * 128 + t;
        };
        float4* mine = part(u % split.slices);
#pragma unroll
        for (int a = 0; a < P::m_atoms; ++a)
#pragma unroll
          for (int q = 0; q < BN / 8; ++q)
            mine[(a * (BN / 8) + q) * 128] =
                make_float4(acc[a][4 * q], acc[a][4 * q + 1], acc[a][4 * q + 2], acc[a][4 * q + 3]);
        // Every consumer thread's stores are visible device-wide before the ticket is drawn.
        __threadfence();
        sm90::named_barrier_sync(1, P::consumers * 128);
        if (cw == 0 && t == 0) *ticket = atomicAdd(&split.tickets[tile], 1u);
        sm90::named_barrier_sync(1, P::consumers * 128);
        // (The next unit writes *ticket only after its first barrier, which every consumer
        // thread reaches after this read.)
        if (*ticket != static_cast<unsigned>(split.slices - 1)) continue;
        __threadfence();
        // The sum in slice order, this unit's own partial read back too: the result does not
        // depend on which slice finished last (the same bits on every run).
#pragma unroll
        for (int a = 0; a < P::m_atoms; ++a)
#pragma unroll
          for (int i = 0; i < BN / 2; ++i) acc[a][i] = 0.0f;
        for (int slice = 0; slice < split.slices; ++slice) {
          const float4* theirs = part(slice);
#pragma unroll
          for (int a = 0; a < P::m_atoms; ++a)
#pragma unroll
            for (int q = 0; q < BN / 8; ++q) {
              const float4 v = __ldcg(theirs + (a * (BN / 8) + q) * 128);  // from L2: written by other SMs
              acc[a][4 * q] += v.x;
              acc[a][4 * q + 1] += v.y;
              acc[a][4 * q + 2] += v.z;
              acc[a][4 * q + 3] += v.w;
            }
        }
        if (cw == 0 && t == 0) split.tickets[tile] = 0;  // every slice of this launch has drawn
      }

      // Epilogue from the m64nBN fragments: per 8 columns j, registers 4j..4j+3 hold rows
      // lane/4 (+8) and columns 2*(lane%4) + {0, 1} of the warp's 16 rows. Two-byte outputs
      // go out in 16-byte row chunks (store_row_chunks) where 32 columns lie inside the
      // problem and the rows are aligned for them; the rest pair by pair, masked.
#pragma unroll
      for (int a = 0; a < P::m_atoms; ++a) {
        const int row = m0 + wg_row0 + a * 64 + warp * 16 + lane / 4;
#pragma unroll
        for (int g = 0; g < BN / 32; ++g) {
          if constexpr (sizeof(typename Epi::out_type) == 2) {
            if (row_chunk_stores && n0 + 32 * g + 32 <= n) {  // the same for the whole warp
              store_row_chunks(epi, row, n0 + 32 * g, &acc[a][16 * g], m, lane);
              continue;
            }
          }
#pragma unroll
          for (int j = 4 * g; j < 4 * g + 4; ++j) {
            const int col = n0 + j * 8 + (lane % 4) * 2;
            store_pair(epi, row, col, acc[a][4 * j], acc[a][4 * j + 1], m, n, pair_stores);
            store_pair(epi, row + 8, col, acc[a][4 * j + 2], acc[a][4 * j + 3], m, n, pair_stores);
          }
        }
      }
    }
  }
  if constexpr (CL > 1) sm90::cluster_sync();
#else
  // Built for a target without wgmma/setmaxnreg (not sm_90a): the launcher refuses such devices.
  (void)tma_a; (void)tma_b; (void)m; (void)n; (void)k; (void)epi; (void)pair_stores; (void)row_chunk_stores; (void)split;
  __trap();
#endif
}

}  // namespace ctmatch::cuda
