#pragma once
// The configs cuda::mm instantiates. The full set is every config Inductor's default mm list
// can scale to (tune::reachable_default_mm_configs) that the mma.sync plan accepts: with it, any
// config the heuristic offers for any problem has a kernel. It costs minutes of nvcc time, so
// unless CTMATCH_CUDA_FULL_CONFIGS is defined the set is a handful of representative configs
// (one of each pipeline depth, warp count and tile size class) and the heuristic offers only
// configs that are instantiated.
#include <array>
#include <cstddef>

#include "../tune/config_generator.hpp"
#include "mma_sync_plan.hpp"
#include "wgmma_plan.hpp"

namespace ctmatch::cuda {

namespace detail {
template <std::size_t N>
constexpr std::size_t count_supported(const std::array<tune::GemmConfig, N>& in) {
  std::size_t n = 0;
  for (const auto& c : in) n += mma_sync_supported(c) ? 1 : 0;
  return n;
}
template <std::size_t Out, std::size_t N>
constexpr std::array<tune::GemmConfig, Out> keep_supported(const std::array<tune::GemmConfig, N>& in) {
  std::array<tune::GemmConfig, Out> out{};
  std::size_t i = 0;
  for (const auto& c : in)
    if (mma_sync_supported(c)) out[i++] = c;
  return out;
}
template <class List>
constexpr std::size_t count_wgmma_supported(const List& in) {
  std::size_t n = 0;
  for (const auto& c : in) n += wgmma_supported(c) ? 1 : 0;
  return n;
}
template <std::size_t Out, class List>
constexpr std::array<tune::GemmConfig, Out> keep_wgmma_supported(const List& in) {
  std::array<tune::GemmConfig, Out> out{};
  std::size_t i = 0;
  for (const auto& c : in)
    if (wgmma_supported(c)) out[i++] = c;
  return out;
}
}  // namespace detail

/// Whether a constexpr set holds config c (the run-time question the launcher asks).
template <const auto& Configs>
constexpr bool in_config_set(tune::GemmConfig c) {
  for (const auto& x : Configs)
    if (x == c) return true;
  return false;
}

/// Every reachable default config the mma.sync template can run (sorted, as the source).
inline constexpr std::size_t mma_sync_full_count =
    detail::count_supported(tune::reachable_default_mm_configs);
inline constexpr std::array<tune::GemmConfig, mma_sync_full_count> mma_sync_full_configs =
    detail::keep_supported<mma_sync_full_count>(tune::reachable_default_mm_configs);

/// The reduced set CI compiles. Each is a config the default list scales to.
inline constexpr std::array<tune::GemmConfig, 6> mma_sync_reduced_configs{{
    {32, 32, 16, 1, 2, 8},    // single stage (no pipelining), 2 warps: small problems
    {64, 64, 32, 2, 4, 8},    // double buffering
    {64, 128, 32, 3, 4, 8},   // skinny M (M <= 64)
    {128, 64, 32, 4, 8, 8},   // 8 warps
    {128, 128, 32, 3, 4, 8},  // large tiles, 64x64 warp tiles
    {128, 128, 64, 3, 4, 8},
}};

#ifdef CTMATCH_CUDA_FULL_CONFIGS
inline constexpr auto mma_sync_configs = mma_sync_full_configs;
#else
inline constexpr auto mma_sync_configs = mma_sync_reduced_configs;
#endif

static_assert([] {
  for (const auto& c : mma_sync_reduced_configs)
    if (!mma_sync_supported(c) || tune::index_of(tune::reachable_default_mm_configs, c) < 0) return false;
  return true;
}(), "every reduced config must be reachable from the default list and runnable");

// --- cuda::mm_wgmma ---------------------------------------------------------------------
// Its heuristic starts from Inductor's persistent TMA list (tune::persistent_mm_configs); the
// full set is every config that list scales to which the wgmma plan accepts, the reduced set
// (CI) the two large-tile configs that serve the big problems.

/// Every reachable persistent config the wgmma template can run (sorted, as the source).
inline constexpr std::size_t wgmma_full_count =
    detail::count_wgmma_supported(tune::reachable_mm_configs(tune::persistent_mm_configs));
inline constexpr std::array<tune::GemmConfig, wgmma_full_count> wgmma_full_configs =
    detail::keep_wgmma_supported<wgmma_full_count>(tune::reachable_mm_configs(tune::persistent_mm_configs));

inline constexpr std::array<tune::GemmConfig, 2> wgmma_reduced_configs{{
    {128, 256, 64, 3, 8, 8},  // two consumer warpgroups of m64n256k16: the large problems
    {128, 128, 64, 4, 8, 8},  // two consumers of m64n128k16, one more stage: more tiles for mid sizes
}};

#ifdef CTMATCH_CUDA_FULL_CONFIGS
inline constexpr auto wgmma_configs = wgmma_full_configs;
#else
inline constexpr auto wgmma_configs = wgmma_reduced_configs;
#endif

static_assert([] {
  for (const auto& c : wgmma_reduced_configs) {
    bool reachable = false;
    for (const auto& r : wgmma_full_configs) reachable = reachable || r == c;
    if (!reachable) return false;
  }
  return true;
}(), "every reduced wgmma config must be reachable from the persistent list and runnable");

}  // namespace ctmatch::cuda
