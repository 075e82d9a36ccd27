#pragma once
// GemmConfig: one GEMM tiling, as Inductor's mm configs name it (BLOCK_M, BLOCK_N, BLOCK_K,
// num_stages, num_warps, GROUP_M). A structural type, so that a config can be a template
// argument: every config the constexpr generator produces instantiates a kernel template.
#include <compare>

namespace ctmatch::tune {

struct GemmConfig {
  int block_m = 0;
  int block_n = 0;
  int block_k = 0;
  int num_stages = 0;
  int num_warps = 0;
  int group_m = 8;
  friend constexpr bool operator==(const GemmConfig&, const GemmConfig&) = default;
  friend constexpr auto operator<=>(const GemmConfig&, const GemmConfig&) = default;
};

}  // namespace ctmatch::tune
