#pragma once
// GemmConfig: one GEMM tiling, as Inductor's mm configs name it (BLOCK_M, BLOCK_N, BLOCK_K,
// num_stages, num_warps, GROUP_M), plus how many slices K is split into (SPLIT_K), whether two
// consumer warpgroups take alternate tiles (PINGPONG) and how many blocks along M form a
// thread-block cluster (CLUSTER_M); Inductor's generator makes none of them. A
// structural type, so that a config can be a template argument: every config the constexpr
// generator produces instantiates a kernel template. The split is a launch parameter of one
// kernel, not a kernel of its own: `kernel_config` is the config a kernel is instantiated for.
#include <compare>

namespace ctmatch::tune {

struct GemmConfig {
  int block_m = 0;
  int block_n = 0;
  int block_k = 0;
  int num_stages = 0;
  int num_warps = 0;
  int group_m = 8;
  int split_k = 1;  // K in this many slices, each a block's work, summed before the epilogue
  // Each of two consumer warpgroups computes a whole tile, the two taking turns (one's epilogue
  // overlaps the other's MMAs) instead of sharing each tile's rows.
  bool pingpong = false;
  // Blocks of vertically adjacent tiles in one thread-block cluster: 2 share each k-block of B,
  // each block loading half of it into both blocks' shared memory (TMA multicast), which halves
  // the traffic of B from L2.
  int cluster_m = 1;
  friend constexpr bool operator==(const GemmConfig&, const GemmConfig&) = default;
  friend constexpr auto operator<=>(const GemmConfig&, const GemmConfig&) = default;
};

/// The instantiated kernel that runs config c: the same tiling, K not split.
constexpr GemmConfig kernel_config(GemmConfig c) {
  c.split_k = 1;
  return c;
}

}  // namespace ctmatch::tune
