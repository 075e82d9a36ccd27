#pragma once
// TuneOptions: the settings Inductor reads from its process-wide config module, as one explicit
// object passed to get_mm_configs and the heuristics. No globals: two compilations in one
// process can tune differently.
#include <cstdint>

#include "config_generator.hpp"
#include "device_facts.hpp"

namespace ctmatch::tune {

enum class SearchSpace : std::uint8_t { Default, Exhaustive };

struct TuneOptions {
  bool max_autotune = false;       ///< offer template choices for every op (Inductor: max_autotune)
  bool max_autotune_gemm = false;  ///< offer template choices for GEMMs (max_autotune_gemm)
  SearchSpace search_space = SearchSpace::Default;  ///< max_autotune_gemm_search_space
  bool prune_by_shared_memory = false;  ///< max_autotune_prune_choices_based_on_shared_mem
  /// Shared memory per block the device offers, bytes; 0 = unknown (then nothing is pruned).
  std::int64_t shared_memory_limit = 0;
  bool autotune_cublaslt = true;  ///< triton.autotune_cublasLt: allow the bias_addmm extern choice
  int max_mm_configs = -1;        ///< test_configs.max_mm_configs (-1 = no limit)

  [[nodiscard]] constexpr bool gemm_max_autotune() const { return max_autotune || max_autotune_gemm; }

  /// Preset for an sm_90 device: its 227 KB shared-memory limit.
  static constexpr TuneOptions sm90(bool max_autotune = true) {
    TuneOptions o;
    o.max_autotune = max_autotune;
    o.shared_memory_limit = sm90_shared_memory_bytes;
    return o;
  }
};

}  // namespace ctmatch::tune
