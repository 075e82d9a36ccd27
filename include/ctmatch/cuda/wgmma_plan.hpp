#pragma once
// What a GemmConfig means for the Hopper cuda::mm_wgmma kernel template, decided in a constant
// expression: how many consumer warpgroups share the block tile, how many m64 wgmma atoms each
// issues per k16 step, the shared memory of the TMA pipeline and the accumulator registers. A
// config the template cannot run gets `ok == false` and a reason; the heuristic refuses it and
// the launcher never instantiates it. The operand checks (`wgmma_operand_refusal`) say which
// layouts TMA can describe. Plain C++ (no CUDA headers): host code that only lists choices,
// and CI without a GPU, can ask the same questions.
//
// Mapping of the config (Inductor's persistent TMA list, tune::persistent_mm_configs):
//   num_warps 4 -> one consumer warpgroup, 8 -> two (Triton's warpgroups), plus one producer
//   warpgroup that only issues TMA loads; with block_m == 64 one consumer takes the whole tile.
//   block_k: a multiple of 64, each 64 columns one 128-byte swizzled TMA box of A.
//   block_n: 64..256 in steps of 64, each 64 columns one 128-byte swizzled TMA box of B (read
//   by wgmma as an N-major operand, the transpose bit of 16-bit types).
//   split_k: K in that many slices, one work unit each; every slice stores its fp32 partial
//   tile and the block finishing a tile's last slice sums them and runs the epilogue
//   (wgmma_split_k says when a problem gets a split).
//   pingpong (num_warps 8, no split): each of the two consumer warpgroups computes whole
//   block tiles, the two taking alternate tiles of the block's walk and their mainloops in
//   turn, so that one's epilogue runs under the other's MMAs (a cooperative tile idles the
//   tensor cores in its epilogue). A warpgroup then holds block_m x block_n accumulators:
//   64 x 256 or 128 x 128.
//   cluster_m 2 (not with pingpong; an even number of B's 64-column boxes): blocks run in
//   pairs, a thread-block cluster taking the tiles (m0, n0) and (m0 + block_m, n0) together;
//   each block loads its own A and half of B's boxes, multicast into both blocks' shared
//   memory, and a stage is reused once both blocks' consumers have read it. Each block still
//   receives a whole stage, but L2 serves B once per pair: at 4096^3 in 128 x 256 tiles the
//   blocks read 48 KB per k-block, 8-9 TB/s at cuBLAS's speed, near what L2 delivers; cuBLAS
//   runs its kernels for the large anchor shapes in clusters of 2.
#include <cstdint>

#include "../tune/device_facts.hpp"
#include "../tune/gemm_config.hpp"
#include "mma_sync_plan.hpp"  // sm90_max_smem_per_block

namespace ctmatch::cuda {

/// 2-byte elements in one 128-byte swizzle row: the TMA box width and wgmma's swizzle atom.
inline constexpr int wgmma_swizzle_elems = 64;
/// More fp32 accumulators per consumer thread than this leaves too few of the 232 registers a
/// consumer warpgroup gets after setmaxnreg.
inline constexpr int wgmma_max_acc_regs = 128;
/// Alignment slack for the 1024-byte aligned stage buffers (128-byte swizzle atoms).
inline constexpr int wgmma_smem_align = 1024;
/// Past the barriers: the ticket a split's arrival draws, shared by the consumer warpgroups.
inline constexpr int wgmma_ticket_bytes = 16;
/// Then ping-pong's two turn barriers (a consumer's mainloop starts when the other's has waited
/// for all its stages).
inline constexpr int wgmma_turn_bytes = 16;
/// The most slices K is split into: beyond it the partial tiles' traffic outgrows the gain.
inline constexpr int wgmma_max_split_k = 16;
/// The deepest pipeline the plan takes. Shared memory binds first for every tile (the narrowest,
/// 64x64x64, fits 14 stages): small tiles stream K as deep as they fit. cuBLAS runs 16 stages
/// for 64 x 4096 x 4096; there 64x64x64 with 13 stages, unsplit, came within 2% of it on an
/// H100, where 8 stages (the bound before) fell 16% short.
inline constexpr int wgmma_max_stages = 16;

struct WgmmaPlan {
  bool ok = false;
  const char* why = "";
  int consumers = 0;    // consumer warpgroups (each 128 threads)
  int wg_tile_m = 0;    // rows of the block tile each consumer owns
  int m_atoms = 0;      // m64nBNk16 wgmmas per consumer per k16 step
  int threads = 0;      // (consumers + 1) * 128: the producer warpgroup first
  int stage_bytes = 0;  // A and B tiles of one pipeline stage
  int smem_bytes = 0;   // all stages + barriers + alignment slack
  int acc_regs = 0;     // fp32 accumulators per consumer thread
  bool pingpong = false;  // consumers take alternate tiles (wg_tile_m == block_m)
  int cluster_m = 1;      // blocks per thread-block cluster, along M
};

/// The most blocks in a cluster the template runs: pairs (multicast of B to two blocks).
inline constexpr int wgmma_max_cluster_m = 2;

constexpr WgmmaPlan wgmma_plan(tune::GemmConfig c, int elem_bytes = 2,
                               int max_smem = sm90_max_smem_per_block) {
  WgmmaPlan p;
  auto refuse = [&](const char* why) { p.ok = false; p.why = why; return p; };
  if (elem_bytes != 2) return refuse("wgmma template takes 2-byte operands (bf16, f16)");
  if (c.block_m < 64 || c.block_m > 256 || c.block_m % 64)
    return refuse("block_m must be 64, 128, 192 or 256 (m64 wgmma atoms, TMA box <= 256 rows)");
  if (c.block_n < 64 || c.block_n > 256 || c.block_n % wgmma_swizzle_elems)
    return refuse("block_n must be 64, 128, 192 or 256 (64-column swizzled TMA boxes, wgmma n <= 256)");
  if (c.block_k < 64 || c.block_k > 256 || c.block_k % wgmma_swizzle_elems)
    return refuse("block_k must be a multiple of 64 up to 256 (one 128-byte swizzle row per box)");
  if (c.num_stages < 1 || c.num_stages > wgmma_max_stages) return refuse("num_stages must be in [1, 16]");
  if (c.num_warps != 4 && c.num_warps != 8)
    return refuse("num_warps must be 4 or 8 (one or two consumer warpgroups)");
  if (c.group_m < 1) return refuse("group_m must be at least 1");
  if (c.split_k < 1 || c.split_k > wgmma_max_split_k) return refuse("split_k must be in [1, 16]");
  if (c.cluster_m < 1 || c.cluster_m > wgmma_max_cluster_m) return refuse("cluster_m must be 1 or 2");
  if (c.cluster_m > 1 && c.pingpong) return refuse("pingpong runs without clusters (cluster_m must be 1)");
  if (c.cluster_m > 1 && (c.block_n / wgmma_swizzle_elems) % c.cluster_m)
    return refuse("with cluster_m 2 each block multicasts half of B's 64-column boxes: block_n must be 128 or 256");
  p.consumers = c.num_warps / 4;
  p.pingpong = c.pingpong;
  p.cluster_m = c.cluster_m;
  if (c.pingpong) {
    if (c.num_warps != 8) return refuse("pingpong takes two consumer warpgroups (num_warps 8)");
    if (c.split_k != 1) return refuse("pingpong does not split K (split_k must be 1)");
    p.wg_tile_m = c.block_m;  // each consumer the whole tile
  } else {
    if (c.block_m / p.consumers < 64) p.consumers = c.block_m / 64;
    if (c.block_m % (p.consumers * 64)) return refuse("block_m does not split into m64 atoms per warpgroup");
    p.wg_tile_m = c.block_m / p.consumers;
  }
  p.m_atoms = p.wg_tile_m / 64;
  p.threads = (p.consumers + 1) * 128;
  p.acc_regs = p.wg_tile_m * c.block_n / 128;
  if (p.acc_regs > wgmma_max_acc_regs)
    return refuse("a consumer warpgroup's tile needs more than 128 accumulator registers");
  const long stage = (static_cast<long>(c.block_m) * c.block_k + static_cast<long>(c.block_k) * c.block_n) * elem_bytes;
  const long smem = stage * c.num_stages + wgmma_smem_align + 2L * 8 * c.num_stages + wgmma_ticket_bytes +
                    (c.pingpong ? wgmma_turn_bytes : 0);
  p.stage_bytes = static_cast<int>(stage);
  p.smem_bytes = static_cast<int>(smem);
  if (smem > max_smem) return refuse("shared memory of all stages exceeds the per-block limit");
  p.ok = true;
  p.why = "";
  return p;
}

constexpr bool wgmma_supported(tune::GemmConfig c, int elem_bytes = 2) {
  return wgmma_plan(c, elem_bytes).ok;
}

/// Config c with the most pipeline stages its tiles fit (c itself when the plan refuses c or
/// no more fit). The grid is persistent, one block per multiprocessor, so shared memory that
/// the stages leave unused is wasted, and every further stage hides more of a load's latency:
/// on an H100, 128x256x64 with 4 stages instead of Inductor's 3 ran the anchor shapes 1-8%
/// faster, 64x128x64 with 6 instead of 4 the 64-row one 3% faster (RESULTS.md).
constexpr tune::GemmConfig wgmma_deepest(tune::GemmConfig c) {
  if (!wgmma_supported(c)) return c;
  for (tune::GemmConfig t = c; ++t.num_stages, wgmma_supported(t);) c = t;
  return c;
}

/// How many slices to split K into for config c (split_k 1) on an m x n x k problem, on a GPU
/// of `sms` multiprocessors; 1 for no split (always for pingpong, which needs many tiles). A persistent grid of at most half as many tiles
/// as multiprocessors leaves most idle (64 x 4096 x 4096 in 64 x 128 tiles: 32 of 132 busy):
/// splitting K makes tiles x slices units, one wave of them, while every slice keeps at least
/// wgmma_min_split_k_blocks k-blocks to pipeline. With more tiles the partial tiles' traffic
/// costs more than the idle multiprocessors (H100, 1024 x 4096 x 1024 in 128 tiles of
/// 128 x 256: 0.025 ms whole, 0.044 ms in two slices). The autotuner decides whether the split
/// pays: the heuristic offers it beside the config.
inline constexpr int wgmma_min_split_k_blocks = 4;
constexpr int wgmma_split_k(tune::GemmConfig c, std::int64_t m, std::int64_t n, std::int64_t k,
                            int sms = tune::sm90_sm_count) {
  if (c.pingpong || c.block_m <= 0 || c.block_n <= 0 || c.block_k <= 0 || m < 1 || n < 1 || k < 1) return 1;
  const std::int64_t tiles = ((m + c.block_m - 1) / c.block_m) * ((n + c.block_n - 1) / c.block_n);
  const std::int64_t k_blocks = (k + c.block_k - 1) / c.block_k;
  if (2 * tiles > sms) return 1;
  std::int64_t split = sms / tiles;
  if (split > k_blocks / wgmma_min_split_k_blocks) split = k_blocks / wgmma_min_split_k_blocks;
  if (split > wgmma_max_split_k) split = wgmma_max_split_k;
  return split < 2 ? 1 : static_cast<int>(split);
}

/// The slices a launch of config c really runs for k: each of ceil(k_blocks / split_k) k-blocks
/// (`k_blocks_per_slice`), so that no slice is empty (`slices` <= split_k).
struct WgmmaSlices {
  int slices = 1;
  int k_blocks_per_slice = 0;
};
constexpr WgmmaSlices wgmma_slices(tune::GemmConfig c, std::int64_t k) {
  const int k_blocks = c.block_k > 0 && k > 0 ? static_cast<int>((k + c.block_k - 1) / c.block_k) : 0;
  if (k_blocks == 0) return {};
  const int split = c.split_k < 1 ? 1 : (c.split_k > k_blocks ? k_blocks : c.split_k);
  WgmmaSlices s;
  s.k_blocks_per_slice = (k_blocks + split - 1) / split;
  s.slices = (k_blocks + s.k_blocks_per_slice - 1) / s.k_blocks_per_slice;
  return s;
}

/// Why TMA cannot describe these row-major operands (A m x k with row stride lda, B k x n with
/// row stride ldb, in 2-byte elements, at byte addresses a_addr and b_addr); empty when it can.
/// TMA needs 16-byte aligned base addresses and row strides (a multiple of 8 elements) below
/// 2^40 bytes, and at least one element in each dimension. Pass 0 for an address not yet known.
constexpr const char* wgmma_operand_refusal(std::int64_t m, std::int64_t n, std::int64_t k,
                                            std::int64_t lda, std::int64_t ldb,
                                            std::uintptr_t a_addr = 0, std::uintptr_t b_addr = 0) {
  if (m < 1 || n < 1 || k < 1) return "TMA cannot describe an empty operand (M, N and K must be >= 1)";
  if (m > 0x7fffffff || n > 0x7fffffff || k > 0x7fffffff) return "sizes beyond 2^31 - 1";
  if (lda < k || ldb < n) return "row stride smaller than the row (overlapping rows)";
  if (lda % 8 || ldb % 8) return "TMA needs row strides that are multiples of 16 bytes (8 elements)";
  if (lda >= (std::int64_t{1} << 39) || ldb >= (std::int64_t{1} << 39)) return "row stride beyond TMA's 2^40 bytes";
  if (a_addr % 16 || b_addr % 16) return "TMA needs 16-byte aligned operand addresses";
  return "";
}

}  // namespace ctmatch::cuda
