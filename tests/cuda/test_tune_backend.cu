// tune/'s machinery on the GPU: get_mm_configs offers cuda::mm and cuda::mm_wgmma configs
// through the filtered heuristics, make_choices builds them with the CUDA templates, tune::Autotuner times them with
// CUDA events and caches the winner in tune's on-disk cache; a second tuner reads it back and
// times nothing. The winner's output is checked against a float64 reference.
#include <doctest/doctest.h>

#include <cstdio>

#include <ctmatch/cuda/tune_backend.hpp>
#include <ctmatch/tune/autotune/autotuner.hpp>
#include <ctmatch/tune/choices.hpp>

#include "gemm_check.hpp"

using namespace ctmatch;
using namespace ctmatch::cuda;
using namespace ctmatch::cuda::test;

namespace {
constexpr const auto& configs = quick_configs;  // quick to compile in any build
constexpr const auto& wconfigs = quick_wgmma_configs;
}

TEST_CASE("the filtered cuda::mm heuristic never offers a config the template cannot run") {
  const auto inputs = tune::MMKernelInputs::mm(4096, 4096, 4096, tune::DType::bf16, "cuda");
  CudaMmTemplate<configs, plain_mm_only> tmpl;
  const tune::TemplateStack stack{&tmpl};
  const auto opts = tune::TuneOptions::sm90(true);
  const auto unfiltered = tune::Choices(opts).get_mm_configs(inputs, stack, "mm");
  const auto filtered = tune::Choices(opts, cuda_heuristic_registry()).get_mm_configs(inputs, stack, "mm");
  // tune's generic heuristic offers 128x128x128 with 4 stages (278 KB of shared memory here)
  // only when it does not prune by shared memory; ours never offers what cannot run.
  std::size_t runnable = 0;
  for (const auto& c : unfiltered) runnable += cuda_mm_runnable(*tune::gemm_config_of(c.params()));
  CHECK(filtered.size() == runnable);
  for (const auto& c : filtered) CHECK(cuda_mm_runnable(*tune::gemm_config_of(c.params())));
}

TEST_CASE("the filtered cuda::mm_wgmma heuristic offers only runnable configs, none for unaligned rows") {
  CudaMmWgmmaTemplate<wconfigs, plain_mm_only> tmpl;
  const tune::TemplateStack stack{&tmpl};
  const auto opts = tune::TuneOptions::sm90(true);
  const auto inputs = tune::MMKernelInputs::mm(4096, 4096, 4096, tune::DType::bf16, "cuda");
  const auto filtered = tune::Choices(opts, cuda_heuristic_registry()).get_mm_configs(inputs, stack, "mm");
  REQUIRE(!filtered.empty());
  for (const auto& c : filtered) CHECK(cuda_mm_wgmma_runnable(*tune::gemm_config_of(c.params())));
  // N = 4100: B's dense rows are 8200 bytes, which TMA cannot describe.
  const auto odd = tune::MMKernelInputs::mm(4096, 4100, 4096, tune::DType::bf16, "cuda");
  CHECK(tune::Choices(opts, cuda_heuristic_registry()).get_mm_configs(odd, stack, "mm").empty());
}

TEST_CASE("tune::Autotuner with the CUDA runner: times, caches, and a hit runs nothing") {
  const std::string path = "ctmatch_test_tune_backend.cache";
  std::remove(path.c_str());
  const int m = 200, n = 264, k = 136;
  const auto inputs = tune::MMKernelInputs::mm(m, n, k, tune::DType::bf16, "cuda");
  CublasMmExtern<plain_mm_only> aten;
  CudaMmTemplate<configs, plain_mm_only> tmpl;
  CudaMmWgmmaTemplate<wconfigs, plain_mm_only> wtmpl;
  const tune::TemplateStack stack{&aten, &tmpl, &wtmpl};
  const auto kept = tune::Choices(tune::TuneOptions::sm90(true), cuda_heuristic_registry())
                        .get_mm_configs(inputs, stack, "mm");
  const auto choices = tune::make_choices(kept);
  REQUIRE(choices.size() >= 3);  // cuBLAS and at least one instantiated config of each template
  CHECK(choices.front()->uid() == "aten::mm");
  std::size_t in_set = 1, wgmma = 0;
  for (const auto& c : kept) {
    if (c.kernel_template().uid() == "cuda::mm") in_set += in_config_set<configs>(*tune::gemm_config_of(c.params()));
    if (c.kernel_template().uid() == "cuda::mm_wgmma") wgmma += in_config_set<wconfigs>(*tune::gemm_config_of(c.params()));
  }
  CHECK(wgmma >= 1);
  in_set += wgmma;
  CHECK(choices.size() == in_set);  // configs outside the instantiated set were declined

  CudaRunner runner;
  tune::AutotuneCache cache(path);
  tune::Autotuner tuner(runner, &cache, {2, 5});
  const auto r = tuner.tune("mm", inputs, choices);
  CHECK(!r.from_cache);
  REQUIRE(r.median_ms.size() == choices.size());
  for (double ms : r.median_ms) CHECK(ms > 0);
  CHECK(tuner.benchmarks_run() == 1);
  MESSAGE("winner ", r.winner->description(), " ", r.ms, " ms of ", choices.size(), " choices");

  tune::AutotuneCache cache2(path);  // as a new process would
  tune::Autotuner tuner2(runner, &cache2, {2, 5});
  const auto r2 = tuner2.tune("mm", inputs, choices);
  CHECK(r2.from_cache);
  CHECK(tuner2.benchmarks_run() == 0);
  CHECK(r2.winner->description() == r.winner->description());

  // the winner computes mm: run it on fresh buffers and compare with float64
  const auto bufs = runner.prepare(inputs, inputs.output_layout());
  r2.winner->run(bufs);
  CTMATCH_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<bf16> ha(static_cast<std::size_t>(m) * k), hb(static_cast<std::size_t>(k) * n),
      hc(static_cast<std::size_t>(m) * n);
  CTMATCH_CUDA_CHECK(cudaMemcpy(ha.data(), bufs.inputs[0], ha.size() * 2, cudaMemcpyDeviceToHost));
  CTMATCH_CUDA_CHECK(cudaMemcpy(hb.data(), bufs.inputs[1], hb.size() * 2, cudaMemcpyDeviceToHost));
  CTMATCH_CUDA_CHECK(cudaMemcpy(hc.data(), bufs.output, hc.size() * 2, cudaMemcpyDeviceToHost));
  const auto cmp = compare(hc, reference_mm(ha, hb, m, n, k, k, n), m, n, n);
  CHECK(cmp.nonfinite == 0);
  CHECK(cmp.rel_err < bf16_tolerance);
  std::remove(path.c_str());
}
