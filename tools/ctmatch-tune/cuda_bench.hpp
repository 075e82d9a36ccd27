#pragma once
// `ctmatch-tune mm ... --device cuda --bench`: the GPU half of the tool, compiled by nvcc into
// the tool when CUDA is detected (cuda_bench.cu). The interface is plain C++ over tune/'s
// types, so main.cpp stays a host translation unit.
#include <string>
#include <vector>

#include <ctmatch/tune/autotune/autotuner.hpp>
#include <ctmatch/tune/choices.hpp>
#include <ctmatch/tune/kernel_inputs.hpp>
#include <ctmatch/tune/options.hpp>

namespace ctmatch_tune {

/// What was timed: the choices in table order (the ones the CUDA backend builds), and the
/// autotuner's result (median_ms per choice, or a cache hit).
struct CudaBench {
  std::vector<ctmatch::tune::KernelTemplateChoice> choices;
  ctmatch::tune::AutotuneResult result;
  std::string device;
  std::size_t declined = 0;  // offered by the heuristics, declined by the kernels (not launched)
};

/// Offers the GPU choices (cuBLAS and the instantiated cuda::mm configs, through
/// get_mm_configs and the CUDA heuristics), times them on the GPU with tune::Autotuner and the
/// CUDA runner, and remembers the winner in `cache_path` (empty: no cache). Throws
/// std::runtime_error with a readable message when there is no GPU or nothing to time.
CudaBench cuda_bench(const ctmatch::tune::MMKernelInputs& inputs, const ctmatch::tune::TuneOptions& options,
                     const std::string& cache_path);

}  // namespace ctmatch_tune
