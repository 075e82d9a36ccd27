#pragma once
// The autotuner: times every choice (warm-up runs, then repetitions; the median counts), picks
// the fastest, and remembers the decision in an AutotuneCache so that the next process asking
// the same question runs no benchmark at all. Backend-neutral: the Runner supplies buffers and
// the Timer (runner.hpp says how a backend plugs in).
#include <algorithm>
#include <cstddef>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <ctmatch/tune/autotune/cache.hpp>
#include <ctmatch/tune/autotune/runner.hpp>
#include <ctmatch/tune/choice_caller.hpp>

namespace ctmatch::tune {

struct AutotuneSettings {
  int warmup = 2;
  int reps = 5;
};

struct AutotuneResult {
  std::shared_ptr<ChoiceCaller> winner;
  std::size_t index = 0;
  double ms = 0;                   ///< the winner's median (from the cache on a hit)
  bool from_cache = false;
  std::vector<double> median_ms;   ///< per choice, in order (empty on a cache hit)
};

inline double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

class Autotuner {
 public:
  /// `cache` may be null (no memory across processes).
  Autotuner(Runner& runner, AutotuneCache* cache = nullptr, AutotuneSettings settings = {})
      : runner_(&runner), cache_(cache), settings_(settings) {
    if (settings_.reps < 1 || settings_.warmup < 0)
      throw std::invalid_argument("ctmatch: autotune needs reps >= 1 and warmup >= 0");
  }

  [[nodiscard]] std::string key(std::string_view op, const MMKernelInputs& inputs) const {
    return autotune_key(op, inputs, runner_->device_name());
  }

  /// The fastest of `choices` for `op` on `inputs`.
  AutotuneResult tune(std::string_view op, const MMKernelInputs& inputs,
                      const std::vector<std::shared_ptr<ChoiceCaller>>& choices) {
    if (choices.empty()) throw std::invalid_argument("ctmatch: nothing to autotune: no choices");
    const std::string k = key(op, inputs);
    if (cache_ != nullptr)
      if (auto hit = cache_->lookup(k))
        for (std::size_t i = 0; i < choices.size(); ++i)
          if (choices[i]->description() == hit->choice) return AutotuneResult{choices[i], i, hit->ms, true, {}};

    const Buffers buffers = runner_->prepare(inputs, inputs.output_layout());
    AutotuneResult r;
    r.ms = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < choices.size(); ++i) {
      ChoiceCaller& c = *choices[i];
      const double ms = median(runner_->timer().measure_ms([&] { c.run(buffers); }, settings_.warmup, settings_.reps));
      r.median_ms.push_back(ms);
      if (ms < r.ms) {
        r.ms = ms;
        r.index = i;
      }
    }
    r.winner = choices[r.index];
    ++benchmarks_run_;
    if (cache_ != nullptr) cache_->store(k, AutotuneCache::Entry{r.winner->description(), r.ms});
    return r;
  }

  /// How many tune() calls measured (cache hits do not).
  [[nodiscard]] std::size_t benchmarks_run() const { return benchmarks_run_; }

 private:
  Runner* runner_;
  AutotuneCache* cache_;
  AutotuneSettings settings_;
  std::size_t benchmarks_run_ = 0;
};

}  // namespace ctmatch::tune
