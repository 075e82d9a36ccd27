#pragma once
// The configs the CUDA templates instantiate, cuda::mm (mma.sync) and cuda::mm_wgmma (Hopper).
// Each template has a full set, every config its heuristic's list can scale to
// (tune::reachable_mm_configs) that the template's plan accepts: with it, any config the
// heuristic offers for any problem has a kernel. It costs minutes of nvcc time, so unless
// CTMATCH_CUDA_FULL_CONFIGS is defined each template instantiates a reduced set of a handful of
// representative configs from its full set, and the heuristics offer only configs that are
// instantiated. Both templates' sets are built by the same two templates below
// (runnable_subset, subset_of); only the lists and plans differ.
#include <array>
#include <cstddef>

#include "../tune/config_generator.hpp"
#include "mma_sync_plan.hpp"
#include "wgmma_plan.hpp"

namespace ctmatch::cuda {

/// Whether a constexpr set holds the kernel that runs config c (the run-time question the
/// launcher asks): the split of K is a launch parameter (tune::kernel_config).
template <const auto& Configs>
constexpr bool in_config_set(tune::GemmConfig c) {
  for (const auto& x : Configs)
    if (x == tune::kernel_config(c)) return true;
  return false;
}

namespace detail {
/// The plans as types, to pass one as a template argument.
struct MmaSyncRunnable {
  constexpr bool operator()(tune::GemmConfig c) const { return mma_sync_supported(c); }
};
struct WgmmaRunnable {
  constexpr bool operator()(tune::GemmConfig c) const { return wgmma_supported(c); }
};

template <class Runnable, class List>
constexpr std::size_t count_runnable(const List& list) {
  std::size_t n = 0;
  for (const auto& c : list) n += Runnable{}(c) ? 1 : 0;
  return n;
}

/// The configs of List that the plan Runnable accepts, in List's order, as an exact-size array
/// (the full set of a template).
template <class Runnable, const auto& List>
constexpr std::array<tune::GemmConfig, count_runnable<Runnable>(List)> runnable_subset() {
  std::array<tune::GemmConfig, count_runnable<Runnable>(List)> out{};
  std::size_t i = 0;
  for (const auto& c : List)
    if (Runnable{}(c)) out[i++] = c;
  return out;
}

/// Whether every config of Sub is in Set (a reduced set inside its full set: reachable from
/// the template's list and runnable).
template <const auto& Sub, const auto& Set>
constexpr bool subset_of() {
  for (const auto& c : Sub)
    if (!in_config_set<Set>(c)) return false;
  return true;
}

/// Inductor's persistent TMA list scaled to every problem (cuda::mm_wgmma's heuristic list),
/// with each config's deep twin (wgmma_deepest), then the cluster twin of each whose tiles have
/// 128 rows or more (64-row tiles serve M <= 64, where a pair has no second row), and each
/// config of two warpgroups followed by its ping-pong twin: the heuristic offers them all.
inline constexpr auto reachable_persistent_mm_configs = tune::with_pingpong_twins(tune::with_cluster_twins(
    tune::with_deep_twins(tune::reachable_mm_configs(tune::persistent_mm_configs),
                          [](tune::GemmConfig c) { return wgmma_deepest(c); }),
    [](tune::GemmConfig c) { return c.block_m >= 128 && wgmma_supported(c); }));
}  // namespace detail

// --- cuda::mm (mma.sync) -----------------------------------------------------------------
// Its heuristic starts from Inductor's default mm list (tune::default_mm_configs).

/// Every reachable default config the mma.sync template can run (sorted, as the source).
inline constexpr auto mma_sync_full_configs =
    detail::runnable_subset<detail::MmaSyncRunnable, tune::reachable_default_mm_configs>();
inline constexpr std::size_t mma_sync_full_count = mma_sync_full_configs.size();

/// The reduced set CI compiles. Each is a config the default list scales to.
inline constexpr std::array<tune::GemmConfig, 6> mma_sync_reduced_configs{{
    {32, 32, 16, 1, 2, 8},    // single stage (no pipelining), 2 warps: small problems
    {64, 64, 32, 2, 4, 8},    // double buffering
    {64, 128, 32, 3, 4, 8},   // skinny M (M <= 64)
    {128, 64, 32, 4, 8, 8},   // 8 warps
    {128, 128, 32, 3, 4, 8},  // large tiles, 64x64 warp tiles
    {128, 128, 64, 3, 4, 8},
}};
static_assert(detail::subset_of<mma_sync_reduced_configs, mma_sync_full_configs>(),
              "every reduced config must be reachable from the default list and runnable");

// --- cuda::mm_wgmma ---------------------------------------------------------------------
// Its heuristic starts from Inductor's persistent TMA list (tune::persistent_mm_configs).

/// Every reachable persistent config the wgmma template can run (sorted, as the source).
inline constexpr auto wgmma_full_configs =
    detail::runnable_subset<detail::WgmmaRunnable, detail::reachable_persistent_mm_configs>();
inline constexpr std::size_t wgmma_full_count = wgmma_full_configs.size();

/// The reduced set CI compiles: the two large-tile configs that serve the big problems, the
/// cluster twin of the larger and the ping-pong twin of the other, and two 64-row ones for
/// small M. When 32 < M <= 64 the heuristic scales every block_m to 64, so without them a
/// reduced build would offer no wgmma choice at all; {64, 128, 64, 9, 8, 8} is the deep twin of
/// what {128, 128, 64, 4, 8, 8} and {256, 128, 64, 4, 8, 8} scale to there (for N > 64, K > 32),
/// {64, 64, 64, 14, 8, 8} that of the 64-column tile the heuristic adds for one row of tiles.
/// (M <= 32 scales to block_m 16 or 32, which the plan refuses in every build.)
inline constexpr std::array<tune::GemmConfig, 6> wgmma_reduced_configs{{
    {128, 256, 64, 4, 8, 8},  // two consumer warpgroups of m64n256k16, the deep twin of Inductor's 3 stages: the large problems
    {128, 256, 64, 4, 8, 8, 1, false, 2},  // its cluster twin: pairs of blocks, B multicast to both
    {128, 128, 64, 4, 8, 8},  // two consumers of m64n128k16: more tiles for mid sizes
    {128, 128, 64, 4, 8, 8, 1, true},  // its ping-pong twin: each consumer a whole 128x128 tile, in turns
    {64, 128, 64, 9, 8, 8},   // small M: one consumer warpgroup takes the 64-row tile, 9 stages deep
    {64, 64, 64, 14, 8, 8},   // small M, narrow tiles: twice the blocks, each streaming K 14 stages deep (as cuBLAS does)
}};
static_assert(detail::subset_of<wgmma_reduced_configs, wgmma_full_configs>(),
              "every reduced wgmma config must be reachable from the persistent list and runnable");
static_assert([] {
  for (const auto& c : wgmma_reduced_configs)
    if (c.block_m == 64) return true;
  return false;
}(), "the reduced wgmma set must give small-M problems (M <= 64) a 64-row config");

// --- the sets this build instantiates ----------------------------------------------------
#ifdef CTMATCH_CUDA_FULL_CONFIGS
inline constexpr auto mma_sync_configs = mma_sync_full_configs;
inline constexpr auto wgmma_configs = wgmma_full_configs;
#else
inline constexpr auto mma_sync_configs = mma_sync_reduced_configs;
inline constexpr auto wgmma_configs = wgmma_reduced_configs;
#endif

}  // namespace ctmatch::cuda
