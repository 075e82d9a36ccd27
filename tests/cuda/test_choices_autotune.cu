// The cuda::mm and cuda::mm_wgmma heuristics (what they offer and what they refuse), launches
// that must not happen,
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
// Three cuda::mm configs and one wgmma config of the reduced sets keep this file quick to
// compile in any build.
constexpr const auto& configs = quick_configs;
constexpr const auto& wconfigs = quick_wgmma_configs;

/// Busy-waits about `cycles` GPU clock cycles: a kernel of known, data-independent duration.
__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}
}  // namespace

TEST_CASE("mm_choices: aten::mm first, then only configs the templates run and this build has") {
  const auto choices = mm_choices<configs, wconfigs>(4096, 4096, 4096, {4096, 1}, {4096, 1});
  REQUIRE(!choices.empty());
  CHECK(choices.front().uid == aten_mm_uid);
  std::size_t expected = 0, expected_wgmma = 0;
  for (const GemmConfig& c : ctmatch::tune::preprocess_mm_configs(4096, 4096, 4096,
                                                                  ctmatch::tune::default_mm_configs))
    expected += mma_sync_supported(c) && in_config_set<configs>(c);
  for (const GemmConfig& c : ctmatch::tune::preprocess_mm_configs(4096, 4096, 4096,
                                                                  ctmatch::tune::persistent_mm_configs))
    expected_wgmma += wgmma_supported(c) && in_config_set<wconfigs>(c);
  CHECK(expected_wgmma == 1);
  CHECK(choices.size() == expected + expected_wgmma + 1);
  for (std::size_t i = 1; i < choices.size(); ++i) {
    if (i <= expected) {
      CHECK(choices[i].uid == cuda_mm_uid);
      CHECK(cuda_mm_refusal<configs>(choices[i].config).empty());
    } else {
      CHECK(choices[i].uid == cuda_mm_wgmma_uid);
      CHECK(cuda_mm_wgmma_refusal<wconfigs>(choices[i].config, 4096, 4096, 4096, {4096, 1}, {4096, 1}).empty());
    }
  }
  // 128x128x128 with 4 stages needs 278 KB of shared memory: never offered.
  const GemmConfig big{128, 128, 128, 4, 8, 8};
  CHECK(std::find(choices.begin(), choices.end(), MmChoice{cuda_mm_uid, big}) == choices.end());
  CHECK(mm_choices<configs, wconfigs>(4096, 4096, 4096, {4096, 1}, {4096, 1}, /*max_autotune=*/false).size() == 1);
  // A transposed operand is a layout no choice reads: nothing is offered.
  CHECK(mm_choices<configs, wconfigs>(64, 64, 64, {1, 64}, {64, 1}).empty());
  // Dense N = 4100 (8200-byte rows): TMA cannot describe B, so no wgmma choice; cuda::mm stays.
  const auto odd = mm_choices<configs, wconfigs>(4096, 4100, 4096, {4096, 1}, {4100, 1});
  CHECK(std::none_of(odd.begin(), odd.end(), [](const MmChoice& c) { return c.uid == cuda_mm_wgmma_uid; }));
  CHECK(std::any_of(odd.begin(), odd.end(), [](const MmChoice& c) { return c.uid == cuda_mm_uid; }));
  // The same N through a padded row stride of 4104: offered again.
  const auto padded = mm_choices<configs, wconfigs>(4096, 4100, 4096, {4096, 1}, {4104, 1});
  CHECK(std::any_of(padded.begin(), padded.end(), [](const MmChoice& c) { return c.uid == cuda_mm_wgmma_uid; }));
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
  const auto choices = mm_choices<configs, wconfigs>(m, n, k, {k, 1}, {n, 1});
  CHECK(std::any_of(choices.begin(), choices.end(), [](const MmChoice& c) { return c.uid == cuda_mm_wgmma_uid; }));
  const std::string key = autotune_key("mm_scale_cast", m, n, k, {k, 1}, {n, 1},
                                       ScalarType::BFloat16, "dtype=float16 clamp=1", device_name());
  auto run = [&](const MmChoice& c) { mm_scale_cast<bf16, configs, wconfigs>(c, ws, p.operands(), out.ptr, args, nullptr); };
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

TEST_CASE("autotune drops a choice after one timed run when it is far slower than the best so far") {
  // Three stand-in choices of very different, fixed durations (spin kernels): 0.1 ms, 1 ms
  // (10x: pruned), 0.12 ms (kept, not close enough to be timed again). Only the counts of runs
  // are checked, and a 10x gap cannot be mistaken for noise.
  const std::vector<MmChoice> choices{{aten_mm_uid, {}}, {cuda_mm_uid, configs[0]}, {cuda_mm_uid, configs[1]}};
  long long cycles[] = {200'000, 2'000'000, 240'000};  // at ~2 GHz
  int runs[3] = {0, 0, 0};
  auto run = [&](const MmChoice& c) {
    const auto i = static_cast<std::size_t>(std::find(choices.begin(), choices.end(), c) - choices.begin());
    ++runs[i];
    spin<<<1, 1>>>(cycles[i]);
    CTMATCH_CUDA_CHECK_LAUNCH();
  };
  AutotuneCache cache("");  // in memory only
  EventTimer timer;
  const TimerOptions opt{3, 10, false};
  const auto r = autotune(choices, "spin", cache, timer, run, opt);
  CHECK(r.pruned == 1);
  CHECK(r.rematched == 0);
  CHECK(runs[0] == 3 + 10);  // the first choice: warm-ups and timed runs, no probe
  CHECK(runs[1] == 2);       // probe: one warm-up, one timed run, then dropped
  CHECK(runs[2] == 2 + 1 + 10);  // probe, the remaining warm-up, timed runs
  REQUIRE(r.timings.size() == 3);
  CHECK(r.timings[1].second > 1.5 * r.timings[0].second);
  CHECK(r.best == choices[0]);
  // pruning off: every choice is timed in full
  int all_runs = 0;
  AutotuneCache cache2("");
  const auto r2 = autotune(choices, "spin", cache2, timer, [&](const MmChoice& c) { ++all_runs; run(c); }, opt, 0.0);
  CHECK(r2.pruned == 0);
  CHECK(all_runs == 3 * 13);
  // two choices of the same duration: both are timed again, interleaved, 10 more runs each
  cycles[2] = cycles[0];
  runs[0] = runs[1] = runs[2] = 0;
  AutotuneCache cache3("");
  const auto r3 = autotune(choices, "spin", cache3, timer, run, opt);
  CHECK(r3.pruned == 1);
  CHECK(r3.rematched == 2);
  CHECK(runs[0] == 13 + 10);
  CHECK(runs[2] == 13 + 10);
  CHECK((r3.best == choices[0] || r3.best == choices[2]));
}
