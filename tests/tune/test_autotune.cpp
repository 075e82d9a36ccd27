// The autotuner and its cache, with counting fake choices (so that "no benchmark ran" is
// observable) and a scripted timer (so that the winner is known): the median, pruning after a
// probe, the interleaved rematch of close choices, failing choices, the cache; and once on real
// host choices.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <fstream>
#include <string>
#include <unistd.h>

#include <ctmatch/tune/autotune/autotuner.hpp>
#include <ctmatch/tune/choices.hpp>
#include <ctmatch/tune/host/mm_template.hpp>

using namespace ctmatch::tune;
namespace fs = std::filesystem;

namespace {
/// Each run of a fake choice says how long it "took"; the timer reports exactly that.
struct ScriptedClock {
  double last_ms = 0;
};
struct ScriptedTimer final : Timer {
  ScriptedClock* clock;
  explicit ScriptedTimer(ScriptedClock* c) : clock(c) {}
  std::vector<double> measure_ms(const std::function<void()>& run, int warmup, int reps) override {
    for (int i = 0; i < warmup; ++i) run();
    std::vector<double> out;
    for (int i = 0; i < reps; ++i) {
      run();
      out.push_back(clock->last_ms);
    }
    return out;
  }
};
struct FakeRunner final : Runner {
  std::string name;
  ScriptedClock clock;
  ScriptedTimer t{&clock};
  int prepared = 0;
  explicit FakeRunner(std::string n = "fake device") : name(std::move(n)) {}
  std::string device_name() const override { return name; }
  Buffers prepare(const MMKernelInputs&, const OutputLayout&) override {
    ++prepared;
    return {};
  }
  Timer& timer() override { return t; }
};

/// Choices whose i-th run takes durations[i % size] ms, counting runs and logging their order;
/// an empty list of durations makes a choice that throws.
struct FakeChoices {
  std::vector<int> runs;
  std::vector<std::size_t> order;  // which choice ran, run by run
  std::vector<std::shared_ptr<ChoiceCaller>> choices;
  FakeChoices(FakeRunner& runner, const std::vector<std::vector<double>>& durations) : runs(durations.size(), 0) {
    for (std::size_t i = 0; i < durations.size(); ++i) {
      Kwargs k = to_kwargs({32 * int(i + 1), 32, 16, 1, 2, 8});
      choices.push_back(std::make_shared<FunctionChoiceCaller>(
          "fake::mm", k, [this, i, d = durations[i], clock = &runner.clock](const Buffers&) {
            ++runs[i];
            order.push_back(i);
            if (d.empty()) throw std::runtime_error("refused: choice " + std::to_string(i));
            clock->last_ms = d[static_cast<std::size_t>(runs[i] - 1) % d.size()];
          }));
    }
  }
  int total() const {
    int t = 0;
    for (int r : runs) t += r;
    return t;
  }
};

struct TempFile {
  fs::path path;
  explicit TempFile(const std::string& tag) {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("ctmatch_tune_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + ".cache");
    fs::remove(path);
  }
  ~TempFile() {
    std::error_code ec;
    fs::remove(path, ec);
    fs::remove(path.string() + ".tmp", ec);
  }
  void write(const std::string& text) const { std::ofstream(path, std::ios::binary) << text; }
};

const MMKernelInputs problem = MMKernelInputs::mm(96, 80, 64, DType::f32, "host");
}  // namespace

TEST_CASE("the fastest median wins: warm-up and repetitions run, the median decides") {
  FakeRunner runner;
  // choice 0: one slow outlier, median 1.0; choice 1: steady 2.0; choice 2: steady 1.5
  FakeChoices fake(runner, {{1.0, 50.0, 1.0, 1.0, 1.0, 1.0, 1.0}, {2.0}, {1.5}});
  Autotuner tuner(runner, nullptr, AutotuneSettings{2, 5, /*prune_ratio=*/0});
  const AutotuneResult r = tuner.tune("mm", problem, fake.choices);
  CHECK(r.index == 0);
  CHECK(r.winner == fake.choices[0]);
  CHECK(r.ms == 1.0);
  CHECK_FALSE(r.from_cache);
  REQUIRE(r.median_ms.size() == 3);
  CHECK(r.median_ms[1] == 2.0);
  CHECK(r.median_ms[2] == 1.5);
  for (int runs : fake.runs) CHECK(runs == 2 + 5);
  CHECK(runner.prepared == 1);
  CHECK(r.pruned == 0);
  CHECK(r.rematched == 0);
  CHECK(r.failed.empty());
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 2, 3}) == 2.5);
}

TEST_CASE("pruning: a choice whose probe is over 1.5x the best so far stops after one timed run") {
  FakeRunner runner;
  // 1.0 (the best), 10.0 (pruned after its probe), 1.3 (kept: under 1.5x, over 1.05x)
  FakeChoices fake(runner, {{1.0}, {10.0}, {1.3}});
  Autotuner tuner(runner, nullptr, AutotuneSettings{3, 5});
  const auto r = tuner.tune("mm", problem, fake.choices);
  CHECK(r.index == 0);
  CHECK(r.pruned == 1);
  CHECK(r.rematched == 0);
  CHECK(fake.runs[0] == 3 + 5);      // the first choice has nothing to be compared with: no probe
  CHECK(fake.runs[1] == 1 + 1);      // probe: one warm-up, one timed run, then dropped
  CHECK(fake.runs[2] == 2 + 1 + 5);  // probe, the one warm-up left, the timed runs
  REQUIRE(r.median_ms.size() == 3);
  CHECK(r.median_ms[1] == 10.0);     // its probe
  CHECK(r.median_ms[2] == 1.3);

  FakeChoices all(runner, {{1.0}, {10.0}, {1.3}});
  Autotuner no_pruning(runner, nullptr, AutotuneSettings{3, 5, /*prune_ratio=*/0});
  const auto r2 = no_pruning.tune("mm", problem, all.choices);
  CHECK(r2.pruned == 0);
  for (int runs : all.runs) CHECK(runs == 3 + 5);
  CHECK(r2.median_ms[1] == 10.0);
}

TEST_CASE("rematch: close choices are re-timed interleaved and the new medians decide") {
  FakeRunner runner;
  // First timings: choice 0 at 1.00 beats choice 1 at 1.02 (2% apart: close). Re-timed, the
  // clock has drifted: choice 0 now takes 1.04 and choice 1 0.98, so choice 1 wins. Choice 2
  // (1.2) is neither close nor pruned: timed once, never again.
  const std::vector<double> first0(3 + 5, 1.00), first1(2 + 1 + 5, 1.02);
  std::vector<double> d0 = first0, d1 = first1;
  d0.insert(d0.end(), 5, 1.04);
  d1.insert(d1.end(), 5, 0.98);
  FakeChoices fake(runner, {d0, d1, {1.2}});
  Autotuner tuner(runner, nullptr, AutotuneSettings{3, 5});
  const auto r = tuner.tune("mm", problem, fake.choices);
  CHECK(r.rematched == 2);
  CHECK(r.pruned == 0);
  CHECK(r.index == 1);
  CHECK(r.winner == fake.choices[1]);
  CHECK(r.ms == 0.98);
  CHECK(r.median_ms[0] == 1.04);
  CHECK(r.median_ms[1] == 0.98);
  CHECK(r.median_ms[2] == 1.2);
  CHECK(fake.runs[0] == 8 + 5);
  CHECK(fake.runs[1] == 8 + 5);
  CHECK(fake.runs[2] == 8);
  // the last ten runs: one of each close choice in turn
  REQUIRE(fake.order.size() >= 10);
  for (std::size_t j = 0; j < 10; ++j) CHECK(fake.order[fake.order.size() - 10 + j] == j % 2);

  FakeChoices again(runner, {d0, d1, {1.2}});
  Autotuner no_rematch(runner, nullptr, AutotuneSettings{3, 5, 1.5, /*rematch_ratio=*/0});
  const auto r2 = no_rematch.tune("mm", problem, again.choices);
  CHECK(r2.rematched == 0);
  CHECK(r2.index == 0);  // the first timings alone pick choice 0
  CHECK(again.runs[0] == 8);
}

TEST_CASE("a choice that throws is reported and never chosen; all throwing is an error") {
  TempFile file("failed");
  FakeRunner runner;
  FakeChoices fake(runner, {{}, {2.0}, {}, {1.0}});
  AutotuneCache cache(file.path.string());
  Autotuner tuner(runner, &cache);
  const auto r = tuner.tune("mm", problem, fake.choices);
  CHECK(r.index == 3);
  REQUIRE(r.failed.size() == 2);
  CHECK(r.failed[0].index == 0);
  CHECK(r.failed[0].message == "refused: choice 0");
  CHECK(r.failed[0].description == fake.choices[0]->description());
  CHECK(r.failed[1].index == 2);
  CHECK(std::isnan(r.median_ms[0]));
  CHECK(std::isnan(r.median_ms[2]));
  CHECK(fake.runs[0] == 1);  // no second attempt
  CHECK(cache.lookup(tuner.key("mm", problem))->choice == fake.choices[3]->description());

  FakeChoices broken(runner, {{}, {}});
  Autotuner tuner2(runner, &cache);
  try {
    (void)tuner2.tune("mm", MMKernelInputs::mm(8, 8, 8, DType::f32, "host"), broken.choices);
    FAIL("expected an exception");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("every one of the 2 choices failed") != std::string::npos);
    CHECK(std::string(e.what()).find("refused: choice 0") != std::string::npos);
  }
  CHECK(cache.size() == 1);  // nothing stored for the failed problem
  CHECK(tuner2.benchmarks_run() == 0);
}

TEST_CASE("a cache hit runs no benchmark, across processes (a new cache object on the same file)") {
  TempFile file("hit");
  {
    FakeRunner runner;
    FakeChoices fake(runner, {{3.0}, {1.0}, {2.0}});
    AutotuneCache cache(file.path.string());
    Autotuner tuner(runner, &cache);
    const auto r = tuner.tune("mm", problem, fake.choices);
    CHECK(r.index == 1);
    CHECK(tuner.benchmarks_run() == 1);
    CHECK(fake.total() > 0);
  }
  REQUIRE(fs::exists(file.path));
  FakeRunner runner;
  FakeChoices fake(runner, {{3.0}, {1.0}, {2.0}});
  AutotuneCache cache(file.path.string());
  CHECK(cache.size() == 1);
  Autotuner tuner(runner, &cache);
  const auto r = tuner.tune("mm", problem, fake.choices);
  CHECK(r.from_cache);
  CHECK(r.index == 1);
  CHECK(r.ms == 1.0);
  CHECK(fake.total() == 0);  // nothing ran
  CHECK(runner.prepared == 0);
  CHECK(tuner.benchmarks_run() == 0);
}

TEST_CASE("the cache key separates op, shapes, strides, dtypes, device and version") {
  const std::string base = autotune_key("mm", problem, "dev A");
  CHECK(base.find("ctmatch=" + std::string(ctmatch::version)) != std::string::npos);
  CHECK(autotune_key("mm", problem, "dev B") != base);
  CHECK(autotune_key("addmm", problem, "dev A") != base);
  CHECK(autotune_key("mm", MMKernelInputs::mm(96, 80, 65, DType::f32, "host"), "dev A") != base);
  CHECK(autotune_key("mm", MMKernelInputs::mm(96, 80, 64, DType::bf16, "host"), "dev A") != base);
  MMKernelInputs transposed({TensorDesc{{96, 64}, {1, 96}, DType::f32}, TensorDesc::contiguous({64, 80}, DType::f32)}, "host");
  CHECK(autotune_key("mm", transposed, "dev A") != base);

  TempFile file("devices");
  FakeRunner a("dev A"), b("dev B");
  FakeChoices fa(a, {{1.0}, {2.0}}), fb(b, {{1.0}, {2.0}});
  AutotuneCache cache(file.path.string());
  Autotuner ta(a, &cache), tb(b, &cache);
  (void)ta.tune("mm", problem, fa.choices);
  CHECK_FALSE(tb.tune("mm", problem, fb.choices).from_cache);  // another device: measured again
  CHECK(cache.size() == 2);
}

TEST_CASE("a corrupted or foreign cache file is ignored with a warning, never a crash") {
  const std::vector<std::string> bad = {
      "",                                                    // empty file
      "{\"choices\": []}\n",                                 // someone else's JSON
      std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10),       // binary
      "ctmatch-autotune-cache 2\nkey\tc\t1\n",              // another format version
      "ctmatch-autotune-cache 1\nkey only\n",                // missing fields
      "ctmatch-autotune-cache 1\nk\tfake::mm()\tnot-a-number\n",
      "ctmatch-autotune-cache 1\nk\tfake::mm()\t-1\n",
      "ctmatch-autotune-cache 1\nk\tc\t1\textra\n",
      "ctmatch-autotune-cache 1\nk\tfake::mm()\tinf\n",    // not a time
      "ctmatch-autotune-cache 1\nk\tfake::mm()\t1e999\n",  // overflows to inf
      "ctmatch-autotune-cache 1\nk\tfake::mm()\tnan\n",
  };
  for (const std::string& text : bad) {
    CAPTURE(text);
    TempFile file("bad");
    file.write(text);
    std::vector<std::string> warnings;
    AutotuneCache cache(file.path.string(), [&](const std::string& w) { warnings.push_back(w); });
    CHECK(cache.size() == 0);
    CHECK(warnings.size() == 1);
    FakeRunner runner;
    FakeChoices fake(runner, {{2.0}, {1.0}});
    Autotuner tuner(runner, &cache);
    const auto r = tuner.tune("mm", problem, fake.choices);
    CHECK_FALSE(r.from_cache);
    CHECK(r.index == 1);
    // the file was replaced by a valid cache
    std::vector<std::string> again;
    AutotuneCache reread(file.path.string(), [&](const std::string& w) { again.push_back(w); });
    CHECK(again.empty());
    CHECK(reread.size() == 1);
  }
}

TEST_CASE("a cache path that cannot be a cache is refused when the cache is made") {
  CHECK_THROWS_WITH_AS(AutotuneCache(""), "autotune cache: empty file name", std::invalid_argument);
  // A FIFO would block the reader forever; a directory or a device cannot be renamed over.
  TempFile fifo("fifo");
  REQUIRE(::mkfifo(fifo.path.c_str(), 0600) == 0);
  CHECK_THROWS_WITH_AS(AutotuneCache(fifo.path.string()), ("autotune cache " + fifo.path.string() + ": not a regular file").c_str(),
                       std::invalid_argument);
  CHECK_THROWS_AS(AutotuneCache(fs::temp_directory_path().string()), std::invalid_argument);
  CHECK_THROWS_AS(AutotuneCache("/dev/null"), std::invalid_argument);
}

TEST_CASE("a time that is not finite is never stored") {
  TempFile file("inf");
  AutotuneCache cache(file.path.string());
  CHECK_THROWS_AS(cache.store("k", AutotuneCache::Entry{"fake::mm()", std::numeric_limits<double>::infinity()}), std::invalid_argument);
  CHECK_THROWS_AS(cache.store("k", AutotuneCache::Entry{"fake::mm()", std::nan("")}), std::invalid_argument);
  CHECK(cache.size() == 0);
  CHECK_FALSE(fs::exists(file.path));
}

TEST_CASE("a cache that is a symbolic link stays one: its target is replaced") {
  TempFile target("link_target");
  TempFile link("link");
  fs::create_symlink(target.path, link.path);
  {
    AutotuneCache cache(link.path.string());
    cache.store("k", AutotuneCache::Entry{"fake::mm()", 1.5});
  }
  CHECK(fs::is_symlink(fs::symlink_status(link.path)));
  CHECK(fs::is_regular_file(target.path));
  AutotuneCache reread(target.path.string());
  REQUIRE(reread.lookup("k"));
  CHECK(reread.lookup("k")->ms == 1.5);
  // No temporary file is left beside it.
  std::size_t beside = 0;
  for (const auto& e : fs::directory_iterator(target.path.parent_path()))
    beside += e.path().filename().string().rfind(target.path.filename().string() + ".tmp", 1) == 1;
  CHECK(beside == 0);
}

TEST_CASE("a cached winner that is no longer offered is measured again") {
  TempFile file("stale");
  FakeRunner runner;
  AutotuneCache cache(file.path.string());
  cache.store(autotune_key("mm", problem, runner.name), {"gone::mm(BLOCK_M=1)", 0.5});
  FakeChoices fake(runner, {{2.0}, {1.0}});
  Autotuner tuner(runner, &cache);
  const auto r = tuner.tune("mm", problem, fake.choices);
  CHECK_FALSE(r.from_cache);
  CHECK(r.index == 1);
  CHECK(cache.lookup(autotune_key("mm", problem, runner.name))->choice == fake.choices[1]->description());
}

TEST_CASE("bad autotune requests are clear errors") {
  FakeRunner runner;
  CHECK_THROWS_AS(Autotuner(runner, nullptr, AutotuneSettings{1, 0}), std::invalid_argument);
  CHECK_THROWS_AS(Autotuner(runner, nullptr, AutotuneSettings{1, 3, 0.5}), std::invalid_argument);
  CHECK_THROWS_AS(Autotuner(runner, nullptr, AutotuneSettings{1, 3, 1.5, -1}), std::invalid_argument);
  Autotuner tuner(runner);
  CHECK_THROWS_AS((void)tuner.tune("mm", problem, {}), std::invalid_argument);
}

TEST_CASE("host autotuning end to end: real host::mm and aten::mm choices, steady clock") {
  TempFile file("host");
  host::HostMmTemplate hmm;
  host::HostAtenMm aten;
  TuneOptions opt;
  opt.max_autotune = true;
  const auto in = MMKernelInputs::mm(37, 41, 29, DType::bf16, "host");
  const auto choices = make_choices(get_mm_configs(in, {&aten, &hmm}, "mm", {}, opt));
  REQUIRE(choices.size() > 5);
  HostRunner runner;
  CHECK(runner.device_name().rfind("host", 0) == 0);
  AutotuneCache cache(file.path.string());
  Autotuner tuner(runner, &cache, AutotuneSettings{1, 3});
  const auto r = tuner.tune("mm", in, choices);
  REQUIRE(r.winner);
  CHECK(r.failed.empty());
  CHECK(r.median_ms.size() == choices.size());
  for (double ms : r.median_ms) CHECK(ms >= 0);
  CHECK(r.ms == r.median_ms[r.index]);
  AutotuneCache reread(file.path.string());
  Autotuner again(runner, &reread);
  const auto hit = again.tune("mm", in, choices);
  CHECK(hit.from_cache);
  CHECK(hit.winner == r.winner);
}
