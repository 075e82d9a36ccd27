// The tune layer's run-time costs: generating choices (lazy, and made), the constexpr config
// generator called at run time, the heuristic lookup, and the host autotuner (a full
// measurement and a cache hit). Baselines in the same run: one host::mm kernel call (what the
// autotuner multiplies), and the untiled loop GEMM the host's aten::mm runs, next to the best
// tiled host::mm config.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>
#include <unistd.h>

#include <ctmatch/tune.hpp>

using namespace ctmatch::tune;

namespace {
TuneOptions max_autotune() {
  TuneOptions o;
  o.max_autotune = true;
  return o;
}
MMKernelInputs problem(const benchmark::State& s, DType t, const char* device) {
  return MMKernelInputs::mm(s.range(0), s.range(1), s.range(2), t, device);
}
}  // namespace

static void BM_PreprocessMmConfigs(benchmark::State& s) {
  std::int64_t m = s.range(0), n = s.range(1), k = s.range(2);
  for (auto _ : s) {
    benchmark::DoNotOptimize(m);
    auto list = preprocess_mm_configs(m, n, k, default_mm_configs);
    benchmark::DoNotOptimize(list);
  }
}
BENCHMARK(BM_PreprocessMmConfigs)->Args({4096, 4096, 4096})->Args({64, 4096, 4096})->Args({8, 8, 8});

static void BM_HeuristicLookupCached(benchmark::State& s) {
  const HeuristicRegistry& r = default_heuristic_registry();
  for (auto _ : s) benchmark::DoNotOptimize(&r.get("cuda::mm", "cuda", "mm"));
}
BENCHMARK(BM_HeuristicLookupCached);

// Lazy choices for the cuda stack (aten::mm, cuda::mm, cuda::mm_wgmma): what listing costs.
static void BM_GetMmConfigsCudaLazy(benchmark::State& s) {
  DeclaredKernelTemplate<uids::aten_mm, TemplateKind::Extern> aten;
  DeclaredKernelTemplate<uids::cuda_mm> mm;
  DeclaredKernelTemplate<uids::cuda_mm_wgmma> wgmma;
  const auto in = problem(s, DType::bf16, "cuda");
  const Choices choices(max_autotune());
  std::size_t count = 0;
  for (auto _ : s) {
    auto c = choices.get_mm_configs(in, {&aten, &mm, &wgmma}, "mm");
    count = c.size();
    benchmark::DoNotOptimize(c);
  }
  s.counters["choices"] = static_cast<double>(count);
}
BENCHMARK(BM_GetMmConfigsCudaLazy)->Args({4096, 4096, 4096})->Args({64, 4096, 4096});

// Lazy choices, then every one made (host kernels looked up in the instantiation table).
static void BM_GetMmConfigsHostMade(benchmark::State& s) {
  host::HostAtenMm aten;
  host::HostMmTemplate mm;
  const auto in = problem(s, DType::f32, "host");
  const Choices choices(max_autotune());
  for (auto _ : s) {
    auto made = make_choices(choices.get_mm_configs(in, {&aten, &mm}, "mm"));
    benchmark::DoNotOptimize(made);
  }
}
BENCHMARK(BM_GetMmConfigsHostMade)->Args({4096, 4096, 4096});

// Baseline: one host::mm call of a mid-size config.
static void BM_HostMmOneCall(benchmark::State& s) {
  const auto in = problem(s, DType::f32, "host");
  host::HostMmTemplate mm;
  const Kwargs none;
  const OutputLayout layout = in.output_layout();
  auto choice = mm.choice_or_none({to_kwargs({64, 64, 32, 2, 4, 8}), none, layout, in});
  HostRunner runner;
  const Buffers buf = runner.prepare(in, layout);
  for (auto _ : s) choice->run(buf);
  s.counters["GFLOP/s"] = benchmark::Counter(2.0 * s.range(0) * s.range(1) * s.range(2), benchmark::Counter::kIsIterationInvariantRate,
                                             benchmark::Counter::kIs1000);
}
BENCHMARK(BM_HostMmOneCall)->Args({128, 128, 128})->Args({256, 256, 256})->Unit(benchmark::kMicrosecond);

// Baseline: the host's aten::mm (untiled loop GEMM).
static void BM_HostLoopGemm(benchmark::State& s) {
  const auto in = problem(s, DType::f32, "host");
  host::HostAtenMm aten;
  const Kwargs none;
  const OutputLayout layout = in.output_layout();
  auto choice = aten.choice_or_none({none, none, layout, in});
  HostRunner runner;
  const Buffers buf = runner.prepare(in, layout);
  for (auto _ : s) choice->run(buf);
  s.counters["GFLOP/s"] = benchmark::Counter(2.0 * s.range(0) * s.range(1) * s.range(2), benchmark::Counter::kIsIterationInvariantRate,
                                             benchmark::Counter::kIs1000);
}
BENCHMARK(BM_HostLoopGemm)->Args({256, 256, 256})->Unit(benchmark::kMicrosecond);

// The host autotuner: every choice (aten::mm + host::mm configs) warmed up once and timed 3
// times, no cache.
static void BM_HostAutotune(benchmark::State& s) {
  host::HostAtenMm aten;
  host::HostMmTemplate mm;
  const auto in = problem(s, DType::f32, "host");
  const auto made = make_choices(get_mm_configs(in, {&aten, &mm}, "mm", {}, max_autotune()));
  HostRunner runner;
  std::string winner;
  for (auto _ : s) {
    Autotuner tuner(runner, nullptr, AutotuneSettings{1, 3});
    auto r = tuner.tune("mm", in, made);
    winner = r.winner->description();
  }
  s.counters["choices"] = static_cast<double>(made.size());
  s.SetLabel(winner);
}
BENCHMARK(BM_HostAutotune)->Args({128, 128, 128})->Args({256, 256, 256})->Unit(benchmark::kMillisecond);

// The same question answered from the on-disk cache (a new cache object reads the file).
static void BM_HostAutotuneCacheHit(benchmark::State& s) {
  host::HostAtenMm aten;
  host::HostMmTemplate mm;
  const auto in = problem(s, DType::f32, "host");
  const auto made = make_choices(get_mm_configs(in, {&aten, &mm}, "mm", {}, max_autotune()));
  HostRunner runner;
  const auto path = std::filesystem::temp_directory_path() / ("ctmatch_bench_tune_" + std::to_string(::getpid()) + ".cache");
  {
    AutotuneCache cache(path.string());
    Autotuner(runner, &cache, AutotuneSettings{1, 3}).tune("mm", in, made);
  }
  for (auto _ : s) {
    AutotuneCache cache(path.string());
    auto r = Autotuner(runner, &cache).tune("mm", in, made);
    if (!r.from_cache) s.SkipWithError("expected a cache hit");
    benchmark::DoNotOptimize(r);
  }
  std::filesystem::remove(path);
}
BENCHMARK(BM_HostAutotuneCacheHit)->Args({256, 256, 256})->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
