// The GPU half of ctmatch-tune (cuda_bench.hpp says what it does).
#include "cuda_bench.hpp"

#include <memory>
#include <stdexcept>

#include <ctmatch/cuda/tune_backend.hpp>
#include <ctmatch/tune/autotune/autotuner.hpp>

namespace ctmatch_tune {

using namespace ctmatch;

CudaBench cuda_bench(const tune::MMKernelInputs& inputs, const tune::TuneOptions& options, const std::string& cache_path) {
  int devices = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess || devices == 0)
    throw std::runtime_error(std::string("timing cuda:: choices needs the CUDA backend and a GPU; none is usable (") +
                             (e != cudaSuccess ? cudaGetErrorString(e) : "no device") + ")");
  if (inputs.dtype() != tune::DType::bf16 && inputs.dtype() != tune::DType::f16)
    throw std::runtime_error("the CUDA kernels take bf16 or f16 inputs, not " +
                             std::string(tune::dtype_name(inputs.dtype())));
  // The templates outlive the choices that point at them. Plain mm only: the fused epilogue's
  // instantiations would cost nvcc time for nothing here.
  using plain = cuda::plain_mm_only;
  static const cuda::CublasMmExtern<plain> aten_mm;
  static const cuda::CudaMmTemplate<cuda::mma_sync_configs, plain> cuda_mm;
  static const cuda::CudaMmWgmmaTemplate<cuda::wgmma_configs, plain> cuda_mm_wgmma;
  const tune::TemplateStack stack{&aten_mm, &cuda_mm, &cuda_mm_wgmma};
  CudaBench out;
  std::vector<std::shared_ptr<tune::ChoiceCaller>> callers;
  for (const tune::KernelTemplateChoice& c : tune::Choices(options, cuda::cuda_heuristic_registry())
                                                 .get_mm_configs(inputs, stack, "mm")) {
    if (auto made = c.choice()) {
      out.choices.push_back(c);
      callers.push_back(std::move(made));
    } else {
      ++out.declined;
    }
  }
  if (callers.empty()) throw std::runtime_error("no GPU choice can run this problem");
  cuda::CudaRunner runner;
  out.device = runner.device_name();
  std::unique_ptr<tune::AutotuneCache> cache;
  if (!cache_path.empty()) cache = std::make_unique<tune::AutotuneCache>(cache_path);
  tune::Autotuner tuner(runner, cache.get(), {5, 20});
  out.result = tuner.tune("mm", inputs, callers);
  return out;
}

}  // namespace ctmatch_tune
