// The host side of cuda::mm, which needs no GPU and runs in CI: what the mma.sync plan accepts
// and refuses, and the proof that the instantiated sets cover the heuristic's output.
#include <doctest/doctest.h>

#include <ctmatch/cuda/config_sets.hpp>

using namespace ctmatch::cuda;
using ctmatch::tune::GemmConfig;

TEST_CASE("mma_sync_plan: warp grid, shared memory and accumulators of a config") {
  const auto p = mma_sync_plan({128, 128, 32, 3, 4, 8});
  REQUIRE(p.ok);
  CHECK(p.warps_m * p.warps_n == 4);
  CHECK(p.warp_tile_m == 64);
  CHECK(p.warp_tile_n == 64);
  CHECK(p.acc_regs == 128);
  CHECK(p.threads == 128);
  CHECK(p.smem_bytes == 3 * (128 * (32 + 8) + 32 * (128 + 8)) * 2);
  const auto q = mma_sync_plan({64, 16, 32, 2, 4, 8});
  REQUIRE(q.ok);
  CHECK(q.warps_m == 4);
  CHECK(q.warps_n == 1);
}

TEST_CASE("mma_sync_plan refuses what the template cannot run, and says why") {
  CHECK(!mma_sync_plan({128, 128, 128, 4, 8, 8}).ok);  // 278 KB of shared memory
  CHECK(std::string(mma_sync_plan({128, 128, 128, 4, 8, 8}).why).find("shared memory") != std::string::npos);
  CHECK(!mma_sync_plan({24, 32, 32, 2, 2, 8}).ok);     // not a multiple of 16
  CHECK(!mma_sync_plan({32, 32, 8, 2, 2, 8}).ok);      // block_k below one mma
  CHECK(!mma_sync_plan({32, 32, 32, 0, 2, 8}).ok);     // no stage
  CHECK(!mma_sync_plan({32, 32, 32, 2, 3, 8}).ok);     // 3 warps
  CHECK(!mma_sync_plan({16, 16, 16, 1, 2, 8}).ok);     // 2 warps cannot split a 16x16 tile
  CHECK(!mma_sync_plan({256, 256, 32, 2, 4, 8}).ok);   // 128x128 warp tiles spill
  CHECK(!mma_sync_plan({64, 64, 32, 2, 4, 8}, 4).ok);  // fp32 operands: not this template
  CHECK(!mma_sync_plan({64, 64, 32, 2, 4, 0}).ok);     // group_m 0
}

TEST_CASE("the full set is every reachable default config the plan accepts") {
  std::size_t refused = 0;
  for (const GemmConfig& c : ctmatch::tune::reachable_default_mm_configs) {
    const bool in_full = in_config_set<mma_sync_full_configs>(c);
    CHECK(in_full == mma_sync_supported(c));
    refused += !in_full;
  }
  CHECK(mma_sync_full_configs.size() + refused == ctmatch::tune::reachable_default_mm_configs.size());
  for (const GemmConfig& c : mma_sync_reduced_configs) CHECK(in_config_set<mma_sync_full_configs>(c));
  MESSAGE("full set: ", mma_sync_full_configs.size(), " configs; refused by the plan: ", refused);
}

// Whatever preprocess_mm_configs offers for a problem is either in the full set or refused by
// the plan (so the heuristic never hands the launcher a missing kernel): at compile time for a
// few size classes (clang's constexpr step limit), at run time for every class up to 512.
constexpr bool offers_only_instantiated(std::int64_t m, std::int64_t n, std::int64_t k) {
  for (const GemmConfig& c : ctmatch::tune::preprocess_mm_configs(m, n, k, ctmatch::tune::default_mm_configs))
    if (mma_sync_supported(c) != (ctmatch::tune::index_of(mma_sync_full_configs, c) >= 0)) return false;
  return true;
}
static_assert(offers_only_instantiated(16, 16, 16) && offers_only_instantiated(64, 4096, 4096) &&
              offers_only_instantiated(4096, 4096, 4096) && offers_only_instantiated(1024, 32, 128));

TEST_CASE("every config the heuristic can offer is instantiated or refused") {
  for (std::int64_t m = 16; m <= 512; m *= 2)
    for (std::int64_t n = 16; n <= 512; n *= 2)
      for (std::int64_t k = 16; k <= 512; k *= 2) CHECK(offers_only_instantiated(m, n, k));
}
