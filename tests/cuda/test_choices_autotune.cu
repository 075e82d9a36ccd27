// The cuda::mm heuristic (what it offers and what it refuses), launches that must not happen,
// and the autotuner: it times every choice, picks the fastest, and a second process with the
// same problem reads the winner from the cache file without timing anything.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <ctmatch/cuda/autotune.hpp>
#include <ctmatch/cuda/mm_scale_cast.hpp>

#include "gemm_check.hpp"

using namespace ctmatch::cuda;
using namespace ctmatch::cuda::test;
using ctmatch::ScalarType;
using ctmatch::tune::GemmConfig;

namespace {
// Three configs of the reduced set keep this file quick to compile in any build.
constexpr const auto& configs = quick_configs;
}  // namespace

TEST_CASE("mm_choices: aten::mm first, then only configs the template runs and this build has") {
  const auto choices = mm_choices<configs>(4096, 4096, 4096, {4096, 1}, {4096, 1});
  REQUIRE(!choices.empty());
  CHECK(choices.front().uid == aten_mm_uid);
  std::size_t expected = 0;
  for (const GemmConfig& c : ctmatch::tune::preprocess_mm_configs(4096, 4096, 4096,
                                                                  ctmatch::tune::default_mm_configs))
    expected += mma_sync_supported(c) && in_config_set<configs>(c);
  CHECK(choices.size() == expected + 1);
  for (std::size_t i = 1; i < choices.size(); ++i) {
    CHECK(choices[i].uid == cuda_mm_uid);
    CHECK(cuda_mm_refusal<configs>(choices[i].config).empty());
  }
  // 128x128x128 with 4 stages needs 278 KB of shared memory: never offered.
  const GemmConfig big{128, 128, 128, 4, 8, 8};
  CHECK(std::find(choices.begin(), choices.end(), MmChoice{cuda_mm_uid, big}) == choices.end());
  CHECK(mm_choices<configs>(4096, 4096, 4096, {4096, 1}, {4096, 1}, /*max_autotune=*/false).size() == 1);
  // A transposed operand is a layout no choice reads: nothing is offered.
  CHECK(mm_choices<configs>(64, 64, 64, {1, 64}, {64, 1}).empty());
}

TEST_CASE("a refused or uninstantiated config throws and never launches") {
  MmWorkspace ws;
  Problem<bf16> p(64, 64, 64);
  DeviceBuffer<bf16> out(64 * 64);
  out.poison();
  epilogue::Identity<bf16> epi{out.ptr, 64};
  auto run = [&](MmChoice c) { run_mm_choice<bf16, epilogue::Identity<bf16>, configs>(c, ws, p.operands(), epi, nullptr); };
  const MmChoice too_much_smem{cuda_mm_uid, {128, 128, 128, 4, 8, 8}};
  const MmChoice not_instantiated{cuda_mm_uid, {48, 64, 32, 2, 4, 8}};
  const MmChoice unknown_uid{"cuda::nope", {}};
  CHECK_THROWS_AS(run(too_much_smem), Error);
  CHECK_THROWS_AS(run(not_instantiated), Error);
  CHECK_THROWS_AS(run(unknown_uid), Error);
  CTMATCH_CUDA_CHECK(cudaDeviceSynchronize());
  const auto h = out.download();
  CHECK(std::all_of(h.begin(), h.end(), [](bf16 v) { return std::isnan(to_float(v)); }));
}

TEST_CASE("autotune: fastest choice, cached on disk, a hit times nothing") {
  const std::string path = "ctmatch_test_autotune.cache";
  std::remove(path.c_str());
  const int m = 256, n = 512, k = 384;
  Problem<bf16> p(m, n, k);
  DeviceBuffer<f16> out(static_cast<std::size_t>(m) * n);
  MmWorkspace ws;
  EventTimer timer;
  const ScaleCastArgs args{ScalarType::Half, true, 0.5};
  const auto choices = mm_choices<configs>(m, n, k, {k, 1}, {n, 1});
  const std::string key = autotune_key("mm_scale_cast", m, n, k, {k, 1}, {n, 1},
                                       ScalarType::BFloat16, "dtype=float16 clamp=1", device_name());
  auto run = [&](const MmChoice& c) { mm_scale_cast<bf16, configs>(c, ws, p.operands(), out.ptr, args, nullptr); };
  TimerOptions quick{2, 5, true};
  {
    AutotuneCache cache(path);
    const auto r = autotune(choices, key, cache, timer, run, quick);
    CHECK(!r.cache_hit);
    CHECK(r.failed.empty());
    REQUIRE(r.timings.size() == choices.size());
    double best = 1e300;
    for (const auto& [c, ms] : r.timings) {
      CHECK(ms > 0);
      best = std::min(best, ms);
    }
    const auto winner = std::find_if(r.timings.begin(), r.timings.end(),
                                     [&](const auto& t) { return t.first == r.best; });
    REQUIRE(winner != r.timings.end());
    CHECK(winner->second == best);
    MESSAGE("autotuned ", choices.size(), " choices in ", r.seconds, " s; best ", to_string(r.best));
  }
  {
    AutotuneCache cache(path);  // a new process: the file alone
    int runs = 0;
    const auto r = autotune(choices, key, cache, timer, [&](const MmChoice&) { ++runs; }, quick);
    CHECK(r.cache_hit);
    CHECK(runs == 0);
    CHECK(r.timings.empty());
    // the cached winner computes the right thing
    out.poison();
    run(r.best);
    CTMATCH_CUDA_CHECK(cudaDeviceSynchronize());
    auto ref = p.reference();
    for (double& v : ref) v = std::clamp(v * 0.5, -1.0, 1.0);
    const auto cmp = compare(out.download(), ref, m, n, n);
    CHECK(cmp.nonfinite == 0);
    CHECK(cmp.rel_err < bf16_tolerance);
  }
  {
    std::ofstream f(path, std::ios::app);
    f << "garbage without tabs\n" << key << "\tcuda::mm\tnot numbers\t1\n";
  }
  {
    AutotuneCache cache(path);  // corrupted lines are skipped; the good entry survives
    CHECK(cache.find(key) != nullptr);
  }
  std::remove(path.c_str());
}
