#pragma once
// What a GemmConfig means for the mma.sync kernel template, decided in a constant expression:
// the warp grid, each warp's tile, the shared memory it needs and the accumulator registers.
// A config the template cannot run gets `ok == false` and a reason; the heuristic refuses it
// and the launcher never instantiates it. Plain C++ (no CUDA headers): host code that only
// lists choices can ask the same question.
#include <cstddef>

#include "../tune/device_facts.hpp"
#include "../tune/gemm_config.hpp"

namespace ctmatch::cuda {

/// The sm_90 opt-in limit of dynamic shared memory per block (227 KB).
inline constexpr int sm90_max_smem_per_block = static_cast<int>(tune::sm90_shared_memory_bytes);
/// Each shared-memory row is padded by one 16-byte vector: ldmatrix then reads 8 rows at 8
/// different 16-byte bank groups for every power-of-two row length (no swizzle needed).
inline constexpr int smem_pad_elems = 8;
/// More fp32 accumulators per thread than this and the kernel spills (255 registers in all).
inline constexpr int max_acc_regs = 128;

struct MmaSyncPlan {
  bool ok = false;
  const char* why = "";
  int warps_m = 0, warps_n = 0;          // warp grid over the block tile
  int warp_tile_m = 0, warp_tile_n = 0;  // each warp's share of the block tile
  int threads = 0;
  int smem_bytes = 0;                    // all num_stages stages of A and B tiles
  int acc_regs = 0;                      // fp32 accumulators per thread
};

constexpr bool is_pow2(int v) { return v > 0 && (v & (v - 1)) == 0; }

/// elem_bytes: 2 for bf16/f16 operands.
constexpr MmaSyncPlan mma_sync_plan(tune::GemmConfig c, int elem_bytes = 2,
                                    int max_smem = sm90_max_smem_per_block) {
  MmaSyncPlan p;
  auto refuse = [&](const char* why) { p.ok = false; p.why = why; return p; };
  if (elem_bytes != 2) return refuse("mma.sync template takes 2-byte operands (bf16, f16)");
  if (c.block_m < 16 || c.block_m > 256 || c.block_m % 16)
    return refuse("block_m must be a multiple of 16 in [16, 256]");
  if (c.block_n < 16 || c.block_n > 256 || c.block_n % 16)
    return refuse("block_n must be a multiple of 16 in [16, 256]");
  if (c.block_k < 16 || c.block_k > 256 || c.block_k % 16)
    return refuse("block_k must be a multiple of 16 in [16, 256]");
  if (c.num_stages < 1 || c.num_stages > 8) return refuse("num_stages must be in [1, 8]");
  if (c.num_warps < 1 || c.num_warps > 16 || !is_pow2(c.num_warps))
    return refuse("num_warps must be a power of two in [1, 16]");
  if (c.group_m < 1) return refuse("group_m must be at least 1");
  if (c.split_k != 1) return refuse("the mma.sync template does not split K (split_k must be 1)");
  if (c.pingpong) return refuse("the mma.sync template has no ping-pong schedule (pingpong must be false)");
  if (c.cluster_m != 1) return refuse("the mma.sync template runs no thread-block clusters (cluster_m must be 1)");
  // Warp grid: warp tiles must be multiples of 16x16 (one ldmatrix.x4 of A, one .x4.trans of
  // B); among the grids that fit, take the squarest warp tile (fewest shared-memory reads).
  int best_wm = 0, best_cost = 1 << 30;
  for (int wm = 1; wm <= c.num_warps; wm *= 2) {
    const int wn = c.num_warps / wm;
    if (c.block_m % (wm * 16) || c.block_n % (wn * 16)) continue;
    const int tm = c.block_m / wm, tn = c.block_n / wn;
    const int cost = tm + tn;  // shared-memory reads per mma, up to a constant
    if (cost < best_cost) { best_cost = cost; best_wm = wm; }
  }
  if (best_wm == 0) return refuse("no warp grid tiles the block in 16x16 warp tiles");
  p.warps_m = best_wm;
  p.warps_n = c.num_warps / best_wm;
  p.warp_tile_m = c.block_m / p.warps_m;
  p.warp_tile_n = c.block_n / p.warps_n;
  p.threads = c.num_warps * 32;
  p.acc_regs = p.warp_tile_m * p.warp_tile_n / 32;
  if (p.acc_regs > max_acc_regs) return refuse("warp tile needs more than 128 accumulator registers");
  const long smem = static_cast<long>(c.num_stages) *
                    (static_cast<long>(c.block_m) * (c.block_k + smem_pad_elems) +
                     static_cast<long>(c.block_k) * (c.block_n + smem_pad_elems)) * elem_bytes;
  p.smem_bytes = static_cast<int>(smem);
  if (smem > max_smem) return refuse("shared memory of all stages exceeds the per-block limit");
  p.ok = true;
  p.why = "";
  return p;
}

constexpr bool mma_sync_supported(tune::GemmConfig c, int elem_bytes = 2) {
  return mma_sync_plan(c, elem_bytes).ok;
}

}  // namespace ctmatch::cuda
