// The GPU choices for an mm, as tune::get_mm_configs offers them with the CUDA heuristics and
// templates (what they offer and what they refuse), launches that must not happen, and
// tune::Autotuner on the fused op seedlib::mm_scale_cast with the CUDA runner: it times the
// choices, the winner computes the right thing, and a second process with the same problem
// reads the winner from the cache file without running anything. (How the autotuner prunes,
// rematches and reports failures is tested on the CPU, tests/tune/test_autotune.cpp.)
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include <ctmatch/cuda/tune_backend.hpp>
#include <ctmatch/tune/autotune/autotuner.hpp>
#include <ctmatch/tune/choices.hpp>

#include "gemm_check.hpp"

using namespace ctmatch;
using namespace ctmatch::cuda;
using namespace ctmatch::cuda::test;
using ctmatch::tune::GemmConfig;

namespace {
// Three cuda::mm configs and one wgmma config of the reduced sets, bf16 inputs and the f16
// output of the fused epilogue only, keep this file quick to compile in any build.
constexpr const auto& configs = quick_configs;
constexpr const auto& wconfigs = quick_wgmma_configs;
using Outs = boost::mp11::mp_list<f16>;
using Ins = boost::mp11::mp_list<bf16>;

struct Templates {
  CublasMmExtern<Outs, Ins> aten;
  CudaMmTemplate<configs, Outs, Ins> mm;
  CudaMmWgmmaTemplate<wconfigs, Outs, Ins> wgmma;
  tune::TemplateStack stack() const { return {&aten, &mm, &wgmma}; }
};

/// The kept choices and the ones the templates made, for `inputs`.
struct Offered {
  std::vector<tune::KernelTemplateChoice> kept;
  std::vector<std::shared_ptr<tune::ChoiceCaller>> made;
};
Offered offer(const Templates& t, const tune::MMKernelInputs& inputs, bool max_autotune = true) {
  Offered o;
  o.kept = tune::Choices(tune::TuneOptions::sm90(max_autotune), cuda_heuristic_registry())
               .get_mm_configs(inputs, t.stack(), "mm");
  o.made = tune::make_choices(o.kept);
  return o;
}

std::size_t count_uid(const std::vector<std::shared_ptr<tune::ChoiceCaller>>& v, std::string_view uid) {
  return static_cast<std::size_t>(std::count_if(v.begin(), v.end(), [&](const auto& c) { return c->uid() == uid; }));
}

tune::MMKernelInputs gemm_inputs(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t lda, std::int64_t ldb) {
  return tune::MMKernelInputs({tune::TensorDesc{{m, k}, {lda, 1}, tune::DType::bf16},
                               tune::TensorDesc{{k, n}, {ldb, 1}, tune::DType::bf16}},
                              "cuda");
}

/// seedlib::mm_scale_cast(a, b, dtype=float16, clamp=True, scale=0.5) as the templates read it.
tune::MMKernelInputs scale_cast_inputs(int m, int n, int k) {
  auto in = tune::MMKernelInputs::mm(m, n, k, tune::DType::bf16, "cuda");
  in.set_out_dtype(tune::DType::f16);
  in.set_scalar("scale", 0.5).set_scalar("clamp", 1);
  return in;
}
}  // namespace

TEST_CASE("the GPU choices: aten::mm first, then only configs the templates run and this build has") {
  const Templates t;
  const auto o = offer(t, gemm_inputs(4096, 4096, 4096, 4096, 4096));
  REQUIRE(!o.made.empty());
  CHECK(o.made.front()->uid() == "aten::mm");
  // what the heuristics offer never includes a config the template refuses in this build
  std::size_t expected = 0, expected_wgmma = 0;
  for (const auto& c : o.kept) {
    const auto cfg = c.config();
    if (c.uid() == "cuda::mm") {
      REQUIRE(cfg);
      CHECK(std::string(cuda_mm_refusal(*cfg)).empty());
      expected += *cuda_mm_refusal<configs>(*cfg) == '\0';
      // 128x128x128 with 4 stages needs 278 KB of shared memory: never offered
      CHECK(*cfg != GemmConfig{128, 128, 128, 4, 8, 8});
    } else if (c.uid() == "cuda::mm_wgmma") {
      REQUIRE(cfg);
      expected_wgmma += *cuda_mm_wgmma_refusal<wconfigs>(*cfg, 4096, 4096, 4096, {4096, 1}, {4096, 1}) == '\0';
    }
  }
  CHECK(expected_wgmma == 1);
  CHECK(count_uid(o.made, "cuda::mm") == expected);
  CHECK(count_uid(o.made, "cuda::mm_wgmma") == expected_wgmma);
  CHECK(o.made.size() == 1 + expected + expected_wgmma);
  // without max-autotune: the extern choice alone
  const auto plain = offer(t, gemm_inputs(4096, 4096, 4096, 4096, 4096), false);
  REQUIRE(plain.made.size() == 1);
  CHECK(plain.made[0]->uid() == "aten::mm");
  // a transposed operand is a layout no GPU choice reads: nothing is made
  const tune::MMKernelInputs transposed({tune::TensorDesc{{64, 64}, {1, 64}, tune::DType::bf16},
                                         tune::TensorDesc::contiguous({64, 64}, tune::DType::bf16)},
                                        "cuda");
  CHECK(offer(t, transposed).made.empty());
  // dense N = 4100 (8200-byte rows): TMA cannot describe B, so no wgmma choice; cuda::mm stays
  const auto odd = offer(t, gemm_inputs(4096, 4100, 4096, 4096, 4100));
  CHECK(count_uid(odd.made, "cuda::mm_wgmma") == 0);
  CHECK(count_uid(odd.made, "cuda::mm") > 0);
  // the same N through a padded row stride of 4104: offered again
  CHECK(count_uid(offer(t, gemm_inputs(4096, 4100, 4096, 4096, 4104)).made, "cuda::mm_wgmma") == 1);
  // an output type the templates were not instantiated for (bf16 from the fused epilogue): declined
  auto bf16_out = scale_cast_inputs(256, 256, 256);
  bf16_out.set_out_dtype(tune::DType::bf16);
  CHECK(offer(t, bf16_out).made.empty());
  // likewise an input type they were not instantiated for
  CHECK(offer(t, tune::MMKernelInputs::mm(256, 256, 256, tune::DType::f16, "cuda")).made.empty());
}

TEST_CASE("a refused or uninstantiated config throws and never launches") {
  MmWorkspace ws;
  Problem<bf16> p(64, 64, 64);
  DeviceBuffer<bf16> out(64 * 64);
  out.poison();
  epilogue::Identity<bf16> epi{out.ptr, 64};
  auto run = [&](MmChoice c) { run_mm_choice<bf16, epilogue::Identity<bf16>, configs, wconfigs>(c, ws, p.operands(), epi, nullptr); };
  const MmChoice too_much_smem{cuda_mm_uid, {128, 128, 128, 4, 8, 8}};
  const MmChoice not_instantiated{cuda_mm_uid, {48, 64, 32, 2, 4, 8}};
  const MmChoice unknown_uid{"cuda::nope", {}};
  const MmChoice wgmma_too_much_smem{cuda_mm_wgmma_uid, {128, 256, 64, 5, 8, 8}};
  const MmChoice wgmma_bad_tile{cuda_mm_wgmma_uid, {128, 128, 32, 3, 8, 8}};
  const MmChoice wgmma_not_instantiated{cuda_mm_wgmma_uid, {128, 256, 64, 3, 8, 8}};
  CHECK_THROWS_AS(run(too_much_smem), Error);
  CHECK_THROWS_AS(run(not_instantiated), Error);
  CHECK_THROWS_AS(run(unknown_uid), Error);
  CHECK_THROWS_AS(run(wgmma_too_much_smem), Error);
  CHECK_THROWS_AS(run(wgmma_bad_tile), Error);
  CHECK_THROWS_AS(run(wgmma_not_instantiated), Error);
  // An instantiated wgmma config with operands TMA cannot describe: A 2 bytes off alignment.
  Problem<bf16> q(64, 64, 64, 72, 64);
  MmOperands<bf16> shifted = q.operands();
  shifted.a += 1;
  CHECK_THROWS_AS((run_mm_choice<bf16, epilogue::Identity<bf16>, configs, wconfigs>(
                      {cuda_mm_wgmma_uid, wconfigs[0]}, ws, shifted, epi, nullptr)),
                  Error);
  // The template declines what the launch would refuse: a config outside its set
  const Templates t;
  const auto inputs = gemm_inputs(64, 64, 64, 64, 64);
  const tune::Kwargs params = tune::to_kwargs(GemmConfig{48, 64, 32, 2, 4, 8}), none;
  const auto layout = inputs.output_layout();
  CHECK(t.mm.choice_or_none(tune::ChoiceRequest{params, none, layout, inputs}) == nullptr);
  CTMATCH_CUDA_CHECK(cudaDeviceSynchronize());
  const auto h = out.download();
  CHECK(std::all_of(h.begin(), h.end(), [](bf16 v) { return std::isnan(to_float(v)); }));
}

TEST_CASE("tune::Autotuner on seedlib::mm_scale_cast with the CUDA runner: the winner is right, cached, a hit runs nothing") {
  const std::string path = "ctmatch_test_choices_autotune.cache";
  std::remove(path.c_str());
  const int m = 256, n = 512, k = 384;
  const auto inputs = scale_cast_inputs(m, n, k);
  const Templates t;
  const auto o = offer(t, inputs);
  CHECK(count_uid(o.made, "cuda::mm") >= 1);
  CHECK(count_uid(o.made, "cuda::mm_wgmma") == 1);
  // every run counted: a cache hit must run none
  int runs = 0;
  std::vector<std::shared_ptr<tune::ChoiceCaller>> counted;
  for (const auto& c : o.made)
    counted.push_back(std::make_shared<tune::FunctionChoiceCaller>(std::string(c->uid()), c->kwargs(),
                                                                   [c, &runs](const tune::Buffers& b) {
                                                                     ++runs;
                                                                     c->run(b);
                                                                   }));
  CudaRunner runner;
  const std::string op = "seedlib::mm_scale_cast";
  tune::AutotuneResult first;
  {
    tune::AutotuneCache cache(path);
    tune::Autotuner tuner(runner, &cache, {2, 5});
    first = tuner.tune(op, inputs, counted);
    CHECK(!first.from_cache);
    CHECK(first.failed.empty());
    CHECK(runs > 0);
    REQUIRE(first.median_ms.size() == counted.size());
    for (double ms : first.median_ms) CHECK(ms > 0);
    CHECK(first.ms == first.median_ms[first.index]);
    MESSAGE("autotuned ", counted.size(), " choices: winner ", first.winner->description(), " ", first.ms, " ms; pruned ",
            first.pruned, ", rematched ", first.rematched);
  }
  tune::AutotuneCache cache(path);  // a new process: the file alone
  tune::Autotuner tuner(runner, &cache, {2, 5});
  runs = 0;
  const auto hit = tuner.tune(op, inputs, counted);
  CHECK(hit.from_cache);
  CHECK(runs == 0);
  CHECK(tuner.benchmarks_run() == 0);
  CHECK(hit.index == first.index);

  // the cached winner computes scale_cast(a @ b): poisoned output, float64 reference
  const auto bufs = runner.prepare(inputs, inputs.output_layout());
  hit.winner->run(bufs);
  CTMATCH_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<bf16> ha(static_cast<std::size_t>(m) * k), hb(static_cast<std::size_t>(k) * n);
  std::vector<f16> hc(static_cast<std::size_t>(m) * n);
  CTMATCH_CUDA_CHECK(cudaMemcpy(ha.data(), bufs.inputs[0], ha.size() * sizeof(bf16), cudaMemcpyDeviceToHost));
  CTMATCH_CUDA_CHECK(cudaMemcpy(hb.data(), bufs.inputs[1], hb.size() * sizeof(bf16), cudaMemcpyDeviceToHost));
  CTMATCH_CUDA_CHECK(cudaMemcpy(hc.data(), bufs.output, hc.size() * sizeof(f16), cudaMemcpyDeviceToHost));
  auto ref = reference_mm(ha, hb, m, n, k, k, n);
  for (double& v : ref) v = std::clamp(v * 0.5, -1.0, 1.0);
  const auto cmp = compare(hc, ref, m, n, n);
  CHECK(cmp.nonfinite == 0);
  CHECK(cmp.rel_err < bf16_tolerance);
  std::remove(path.c_str());
}
