#pragma once
// The constexpr GEMM config generator: Inductor's config lists and its `preprocess_mm_configs`
// (torch/_inductor/template_heuristics/triton.py), step for step, as constant expressions:
//   1. scale (`_scale_mm_configs`): each block is clamped to the next power of two of its
//      problem dimension, never below 16 (BLOCK_K: 32 for int8);
//   2. optionally drop configs that need more shared memory than the device has;
//   3. for the exhaustive search space, drop configs that must spill registers;
//   4. finalize (`_finalize_mm_configs`): num_warps = min(num_warps, BLOCK_M*BLOCK_N // 256)
//      (one warp per 16x16 tile; no lower bound, exactly as Inductor), then deduplicate in order.
// Being constexpr, it also enumerates every config scaling can ever produce, so each one can
// instantiate a kernel template (see host/mm_template.hpp and the CUDA backend).
#include <algorithm>
#include <array>
#include <cstddef>
#include <stdexcept>
#include <cstdint>
#include <span>

#include "config_list.hpp"
#include "gemm_config.hpp"

namespace ctmatch::tune {

/// Inductor's `BaseConfigHeuristic.mm_configs` (BLOCK_M, BLOCK_N, BLOCK_K, num_stages,
/// num_warps; GROUP_M 8), in Inductor's order.
inline constexpr std::array<GemmConfig, 20> default_mm_configs{{
    {32, 32, 16, 1, 2, 8},    {32, 32, 128, 2, 4, 8},   {32, 64, 32, 5, 8, 8},
    {64, 32, 32, 5, 8, 8},    {64, 32, 128, 5, 4, 8},   {64, 64, 16, 2, 4, 8},
    {64, 64, 32, 2, 4, 8},    {64, 64, 64, 3, 8, 8},    {64, 64, 128, 5, 4, 8},
    {64, 128, 32, 3, 4, 8},   {64, 128, 32, 4, 8, 8},   {64, 128, 64, 3, 4, 8},
    {64, 128, 128, 4, 4, 8},  {128, 64, 32, 3, 4, 8},   {128, 64, 32, 4, 8, 8},
    {128, 128, 32, 2, 8, 8},  {128, 128, 32, 3, 4, 8},  {128, 128, 64, 3, 4, 8},
    {128, 128, 64, 5, 8, 8},  {128, 128, 128, 4, 8, 8},
}};

/// Inductor's `persistent_mm_configs` (its TMA/persistent templates): the list ctmatch's
/// Hopper `cuda::mm_wgmma` template starts from.
inline constexpr std::array<GemmConfig, 8> persistent_mm_configs{{
    {128, 256, 64, 3, 8, 8},
    {128, 128, 64, 3, 8, 8},
    {128, 128, 128, 3, 8, 8},
    {128, 128, 128, 3, 4, 8},
    {128, 128, 64, 4, 8, 8},
    {128, 128, 64, 5, 8, 8},
    {256, 128, 64, 4, 8, 8},
    {128, 128, 64, 5, 4, 8},
}};

/// Inductor's exhaustive search space (`max_autotune_gemm_search_space="EXHAUSTIVE"`):
/// blocks 16..256 for M, N and K, stages 1..5, warps 2/4/8, GROUP_M 8, in Inductor's order.
constexpr std::array<GemmConfig, 1875> make_exhaustive_mm_configs() {
  constexpr int blocks[] = {16, 32, 64, 128, 256};
  std::array<GemmConfig, 1875> out{};
  std::size_t i = 0;
  for (int bm : blocks)
    for (int bn : blocks)
      for (int bk : blocks)
        for (int stages = 1; stages <= 5; ++stages)
          for (int warps : {2, 4, 8}) out[i++] = GemmConfig{bm, bn, bk, stages, warps, 8};
  return out;
}
inline constexpr std::array<GemmConfig, 1875> exhaustive_mm_configs = make_exhaustive_mm_configs();

/// Inductor's `next_power_of_2`: the smallest power of two >= n (0 for n <= 0, as its bit trick),
/// saturating at 2^62 for n past it (2^63 does not fit; every use clamps the hint to a block
/// size far below, so the saturated value decides the same).
constexpr std::int64_t next_power_of_2(std::int64_t n) {
  if (n <= 0) return 0;
  constexpr std::int64_t top = std::int64_t{1} << 62;
  std::int64_t p = 1;
  while (p < n && p < top) p <<= 1;
  return p;
}

/// Shared memory a config's pipelined A and B tiles need: (BM*BK + BK*BN) * stages * bytes.
constexpr std::int64_t shared_memory_bytes(const GemmConfig& c, int dtype_size) {
  return (std::int64_t{c.block_m} * c.block_k + std::int64_t{c.block_k} * c.block_n) *
         c.num_stages * dtype_size;
}

/// `exclude(block_m, block_n, block_k)` of `_scale_mm_configs` (Inductor's CPU heuristic uses one).
using ExcludeFn = bool (*)(int, int, int);

/// Everything `preprocess_mm_configs` reads besides the problem and the list. The defaults are
/// Inductor's defaults: scale 1, no exclusion, no shared-memory pruning, default search space.
struct PreprocessOptions {
  double scale = 1.0;
  bool has_int8_tensor = false;
  ExcludeFn exclude = nullptr;
  int dtype_size = 0;                        ///< bytes per input element (0: unknown)
  bool prune_shared_memory = false;          ///< max_autotune_prune_choices_based_on_shared_mem
  std::int64_t shared_memory_limit = 0;      ///< bytes; 0: the device did not say (no pruning)
  bool exhaustive_prune = false;             ///< search space EXHAUSTIVE: prune spills too
  int max_configs = -1;                      ///< test_configs.max_mm_configs (-1: no limit)
};

/// `_scale_mm_configs` (no multi-kernel hints): clamp every block to the problem.
/// `N` is the capacity of the result (at least configs.size()).
template <std::size_t N>
constexpr ConfigList<N> scale_mm_configs(std::int64_t m, std::int64_t n, std::int64_t k,
                                         std::span<const GemmConfig> configs,
                                         const PreprocessOptions& opt = {}) {
  constexpr std::int64_t min_block = 16;
  const std::int64_t min_block_k = opt.has_int8_tensor ? 32 : 16;
  auto hint = [](std::int64_t dim, std::int64_t lo) {  // max(next_power_of_2(dim), lo)
    const std::int64_t p = next_power_of_2(dim);
    return p > lo ? p : lo;
  };
  auto clamp = [](std::int64_t lo, std::int64_t v, std::int64_t hi) {  // max(min(v, hi), lo)
    const std::int64_t t = v < hi ? v : hi;
    return t > lo ? t : lo;
  };
  const std::int64_t m_hint = hint(m, min_block);
  const std::int64_t n_hint = hint(n, min_block);
  const std::int64_t k_hint = hint(k, min_block_k);
  ConfigList<N> out;
  for (const GemmConfig& c : configs) {
    GemmConfig s = c;
    s.block_m = static_cast<int>(clamp(min_block, static_cast<std::int64_t>(c.block_m * opt.scale), m_hint));
    s.block_n = static_cast<int>(clamp(min_block, static_cast<std::int64_t>(c.block_n * opt.scale), n_hint));
    s.block_k = static_cast<int>(clamp(min_block_k, static_cast<std::int64_t>(c.block_k * opt.scale), k_hint));
    if (opt.exclude == nullptr || !opt.exclude(s.block_m, s.block_n, s.block_k)) out.push_back(s);
  }
  return out;
}

/// `_prune_exceeding_max_shared_mem_configs`: only when both the dtype size and the device's
/// limit are known, as in Inductor.
template <std::size_t N>
constexpr ConfigList<N> prune_shared_memory(const ConfigList<N>& in, int dtype_size,
                                            std::int64_t limit) {
  if (dtype_size <= 0 || limit <= 0) return in;
  ConfigList<N> out;
  for (const GemmConfig& c : in)
    if (shared_memory_bytes(c, dtype_size) <= limit) out.push_back(c);
  return out;
}

/// `_prune_exhaustive_configs`: shared memory (when known) and a lower bound on accumulator
/// registers per thread, ceil(BM*BN / (warps*32)) > 255 certainly spills.
template <std::size_t N>
constexpr ConfigList<N> prune_exhaustive(const ConfigList<N>& in, int dtype_size,
                                         std::int64_t limit) {
  ConfigList<N> out;
  for (const GemmConfig& c : in) {
    if (limit > 0 && shared_memory_bytes(c, dtype_size) > limit) continue;
    const std::int64_t threads = std::int64_t{c.num_warps} * 32;
    const std::int64_t acc_regs = (std::int64_t{c.block_m} * c.block_n + threads - 1) / threads;
    if (acc_regs > 255) continue;
    out.push_back(c);
  }
  return out;
}

/// `_finalize_mm_configs`: clamp num_warps to one warp per 16x16 tile, dedupe in order.
template <std::size_t N>
constexpr ConfigList<N> finalize_mm_configs(const ConfigList<N>& in, int max_configs = -1) {
  ConfigList<N> out;
  for (GemmConfig c : in) {
    const int tiles = c.block_m * c.block_n / 256;
    c.num_warps = c.num_warps < tiles ? c.num_warps : tiles;
    if (out.contains(c)) continue;
    if (max_configs >= 0 && out.size() >= static_cast<std::size_t>(max_configs)) continue;
    out.push_back(c);
  }
  return out;
}

/// `preprocess_mm_configs(m, n, k, configs, ...)`: the list a template offers for one problem.
/// `N` is the capacity of the result (at least configs.size()).
template <std::size_t N>
constexpr ConfigList<N> preprocess_mm_configs(std::int64_t m, std::int64_t n, std::int64_t k,
                                              std::span<const GemmConfig> configs,
                                              const PreprocessOptions& opt = {}) {
  ConfigList<N> scaled = scale_mm_configs<N>(m, n, k, configs, opt);
  if (opt.prune_shared_memory) scaled = prune_shared_memory(scaled, opt.dtype_size, opt.shared_memory_limit);
  if (opt.exhaustive_prune) scaled = prune_exhaustive(scaled, opt.dtype_size, opt.shared_memory_limit);
  return finalize_mm_configs(scaled, opt.max_configs);
}
template <std::size_t N>
constexpr ConfigList<N> preprocess_mm_configs(std::int64_t m, std::int64_t n, std::int64_t k,
                                              const std::array<GemmConfig, N>& configs,
                                              const PreprocessOptions& opt = {}) {
  return preprocess_mm_configs<N>(m, n, k, std::span<const GemmConfig>(configs), opt);
}

/// The largest block of a list (at least 16).
template <std::size_t N>
constexpr int largest_block(const std::array<GemmConfig, N>& configs) {
  int b = 16;
  for (const GemmConfig& c : configs) {
    b = c.block_m > b ? c.block_m : b;
    b = c.block_n > b ? c.block_n : b;
    b = c.block_k > b ? c.block_k : b;
  }
  return b;
}

/// A config of a kernel (split_k 1) as one integer that sorts like the config (fields are
/// small: blocks < 4096, stages and warps < 256, group < 1024, clusters of 1 or 2 blocks).
/// Cheap to compare in constant expressions.
constexpr std::uint64_t sort_key(const GemmConfig& c) {
  return (std::uint64_t(c.block_m) << 52) | (std::uint64_t(c.block_n) << 40) |
         (std::uint64_t(c.block_k) << 28) | (std::uint64_t(c.num_stages & 0xff) << 20) |
         (std::uint64_t(c.num_warps & 0xff) << 12) | (std::uint64_t(c.group_m & 0x3ff) << 2) |
         (std::uint64_t(c.cluster_m > 1) << 1) | std::uint64_t(c.pingpong);
}

/// The values one block of size `b` takes under scaling, over all problem sizes:
/// max(min(b, h), 16) for every hint h = 16, 32, 64, ... (at most 8 values for b <= 2048).
struct BlockValues {
  int value[8] = {};
  int count = 0;
};
constexpr BlockValues scaled_block_values(int b) {
  BlockValues out;
  for (int h = 16;; h *= 2) {
    const int v = (b < h ? b : h) > 16 ? (b < h ? b : h) : 16;
    if (out.count == 0 || out.value[out.count - 1] != v) out.value[out.count++] = v;
    if (h >= b || out.count == 8) break;
  }
  return out;
}

/// The first `count` configs of `all` in sort_key order, each once.
template <std::size_t Capacity>
constexpr ConfigList<Capacity> sorted_unique(std::array<GemmConfig, Capacity>& all, std::size_t count) {
  std::sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(count),
            [](const GemmConfig& a, const GemmConfig& b) { return sort_key(a) < sort_key(b); });
  ConfigList<Capacity> out;
  for (std::size_t i = 0; i < count; ++i)
    if (out.empty() || !(out[out.size() - 1] == all[i])) out.push_back(all[i]);
  return out;
}

/// Capacity for the reachable set of a list: per config at most 5 values per block for
/// blocks <= 256 (16, 32, 64, 128, 256).
template <std::size_t N>
inline constexpr std::size_t reachable_capacity = N * 5 * 5 * 5;

/// Every config `preprocess_mm_configs` can return for `configs` under default options, over
/// all problem sizes, sorted and unique: the set a backend instantiates its kernel for.
/// Scaling treats each config on its own (a block becomes max(min(block, hint), 16)), so the
/// union over problems is, per config, the product of its blocks' scaled values, each one
/// reached by the problem whose dimensions are those values; finalize then clamps num_warps.
template <std::size_t N, std::size_t Capacity = reachable_capacity<N>>
constexpr ConfigList<Capacity> reachable_mm_configs(const std::array<GemmConfig, N>& configs) {
  std::array<GemmConfig, Capacity> all{};
  std::size_t count = 0;
  for (const GemmConfig& c : configs) {
    const BlockValues ms = scaled_block_values(c.block_m), ns = scaled_block_values(c.block_n),
                      ks = scaled_block_values(c.block_k);
    for (int i = 0; i < ms.count; ++i)
      for (int j = 0; j < ns.count; ++j)
        for (int l = 0; l < ks.count; ++l) {
          if (count == Capacity) throw std::length_error("ctmatch: reachable_capacity too small");
          GemmConfig s = c;
          s.block_m = ms.value[i];
          s.block_n = ns.value[j];
          s.block_k = ks.value[l];
          const int tiles = s.block_m * s.block_n / 256;
          s.num_warps = s.num_warps < tiles ? s.num_warps : tiles;
          all[count++] = s;
        }
  }
  return sorted_unique(all, count);
}

/// `configs` with, after each config of two consumer warpgroups (num_warps 8), its ping-pong
/// twin (GemmConfig::pingpong): the same tiling under the schedule where the two warpgroups
/// take alternate tiles. Sorted input stays sorted (a twin's sort_key is its config's plus 1).
template <std::size_t Capacity>
constexpr ConfigList<2 * Capacity> with_pingpong_twins(const ConfigList<Capacity>& configs) {
  ConfigList<2 * Capacity> out;
  for (GemmConfig c : configs) {
    out.push_back(c);
    if (c.num_warps == 8 && !c.pingpong && c.cluster_m == 1) {
      c.pingpong = true;
      out.push_back(c);
    }
  }
  return out;
}

/// `configs` with, after each config that `wanted` takes, its cluster twin (GemmConfig::
/// cluster_m 2): the same tiling run by pairs of blocks that share B's loads. Sorted input stays
/// sorted (a twin's sort_key is its config's plus 2, past a ping-pong twin's plus 1, which
/// with_pingpong_twins adds afterwards).
template <std::size_t Capacity, class Wanted>
constexpr ConfigList<2 * Capacity> with_cluster_twins(const ConfigList<Capacity>& configs, Wanted wanted) {
  ConfigList<2 * Capacity> out;
  for (GemmConfig c : configs) {
    out.push_back(c);
    if (c.cluster_m != 1 || c.pingpong) continue;
    c.cluster_m = 2;
    if (wanted(c)) out.push_back(c);
  }
  return out;
}

/// Each config beside its deep twin `deepest(c)`: the same tiles with as many pipeline stages
/// as the template fits (Inductor's lists size num_stages for Triton's use of shared memory,
/// which another template's may not share; the template's plan says how deep it can go).
/// Sorted and unique: a twin may be a config of the list already.
template <std::size_t Capacity, class Deepest>
constexpr ConfigList<2 * Capacity> with_deep_twins(const ConfigList<Capacity>& configs, Deepest deepest) {
  std::array<GemmConfig, 2 * Capacity> all{};
  std::size_t count = 0;
  for (const GemmConfig& c : configs) {
    all[count++] = c;
    all[count++] = deepest(c);
  }
  return sorted_unique(all, count);
}

/// Shrinks a ConfigList to an exact-size std::array (for template-argument packs).
template <std::size_t Size, std::size_t Capacity>
constexpr std::array<GemmConfig, Size> to_array(const ConfigList<Capacity>& list) {
  std::array<GemmConfig, Size> out{};
  for (std::size_t i = 0; i < Size; ++i) out[i] = list[i];
  return out;
}

/// Index of a config in a sorted constexpr array (binary search), or -1.
template <std::size_t N>
constexpr int index_of(const std::array<GemmConfig, N>& sorted, const GemmConfig& c) {
  const std::uint64_t key = sort_key(c);
  std::size_t lo = 0, hi = N;
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (sort_key(sorted[mid]) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo < N && sort_key(sorted[lo]) == key ? static_cast<int>(lo) : -1;
}

/// The static proof that run-time selection stays inside an instantiated set: for every
/// problem-size class (and so every problem: sizes up to 16 scale as 16 does, and sizes past
/// the largest block as the next power of two above it), every config `preprocess_mm_configs` can return (scaled,
/// num_warps clamped; deduplication only removes) is in `instantiated` (sorted).
template <std::size_t N, std::size_t M>
constexpr bool covers_every_problem(const std::array<GemmConfig, N>& configs,
                                    const std::array<GemmConfig, M>& instantiated) {
  const std::int64_t top = 2 * next_power_of_2(largest_block(configs));
  for (std::int64_t mh = 16; mh <= top; mh *= 2)
    for (std::int64_t nh = 16; nh <= top; nh *= 2)
      for (std::int64_t kh = 16; kh <= top; kh *= 2)
        for (GemmConfig c : scale_mm_configs<N>(mh, nh, kh, configs)) {
          const int tiles = c.block_m * c.block_n / 256;
          c.num_warps = c.num_warps < tiles ? c.num_warps : tiles;
          if (index_of(instantiated, c) < 0) return false;
        }
  return true;
}

/// Every config the default mm list can scale to (the instantiated set of `cuda::mm` and
/// `host::mm`), sorted, as an exact-size constexpr array.
inline constexpr std::size_t reachable_default_count = reachable_mm_configs(default_mm_configs).size();
inline constexpr std::array<GemmConfig, reachable_default_count> reachable_default_mm_configs =
    to_array<reachable_default_count>(reachable_mm_configs(default_mm_configs));

}  // namespace ctmatch::tune
