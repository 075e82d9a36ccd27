#pragma once
// The autotuner: times every choice (warm-up runs, then repetitions; the median counts), picks
// the fastest, and remembers the decision in an AutotuneCache so that the next process asking
// the same question runs no benchmark at all. Backend-neutral: the Runner supplies buffers and
// the Timer (runner.hpp says how a backend plugs in).
//
// Three refinements, because GPU choices differ by a few percent and some of them are slow:
//   - pruning: every choice after the first is probed with one warm-up and one timed run
//     (measure_ms(run, 1, 1), counted towards its warm-ups); a probe slower than prune_ratio x
//     the best median so far cannot win (run-to-run spread is a few percent), so the choice
//     stops there and its probe is its reported time. The slow choices are the expensive ones
//     to time (on 8192^3, 20 runs of a 3.5 ms kernel each).
//   - rematch: the choices within rematch_ratio of the best are timed again interleaved, one
//     run of each in turn (measure_ms(run, 0, 1)), `reps` rounds, and those medians decide: a
//     GPU's clock and temperature drift between the first timings of two choices by more than
//     the few percent that separate close ones; interleaving gives each the same conditions.
//   - failures: a choice whose run throws (a refused config, a failed launch) is reported in
//     `failed` and never chosen; if every choice fails, tune() throws.
#include <algorithm>
#include <cstddef>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cache.hpp"
#include "runner.hpp"
#include "../choice_caller.hpp"

namespace ctmatch::tune {

struct AutotuneSettings {
  int warmup = 2;
  int reps = 5;
  /// A probe slower than this times the best median so far drops the choice; 0: no pruning.
  double prune_ratio = 1.5;
  /// Choices whose medians are within this factor of the best are re-timed interleaved; 0: never.
  double rematch_ratio = 1.05;
};

/// A choice whose run threw, and what it said.
struct FailedChoice {
  std::size_t index = 0;
  std::string description;
  std::string message;
};

struct AutotuneResult {
  std::shared_ptr<ChoiceCaller> winner;
  std::size_t index = 0;
  double ms = 0;                   ///< the winner's median (from the cache on a hit)
  bool from_cache = false;
  /// Per choice, in order (empty on a cache hit): the median, the rematch median for the
  /// rematched ones, the probe for a pruned one, NaN for a failed one.
  std::vector<double> median_ms;
  std::size_t pruned = 0;          ///< choices dropped after their probe
  std::size_t rematched = 0;       ///< choices re-timed interleaved (0 or at least 2)
  std::vector<FailedChoice> failed;
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
    auto valid_ratio = [](double r) { return r == 0 || r >= 1; };
    if (!valid_ratio(settings_.prune_ratio) || !valid_ratio(settings_.rematch_ratio))
      throw std::invalid_argument("ctmatch: autotune's prune_ratio and rematch_ratio must be 0 (off) or >= 1");
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
          if (choices[i]->description() == hit->choice) {
            AutotuneResult r;
            r.winner = choices[i];
            r.index = i;
            r.ms = hit->ms;
            r.from_cache = true;
            return r;
          }

    const Buffers buffers = runner_->prepare(inputs, inputs.output_layout());
    Timer& timer = runner_->timer();
    const double inf = std::numeric_limits<double>::infinity();
    AutotuneResult r;
    r.median_ms.assign(choices.size(), std::numeric_limits<double>::quiet_NaN());
    std::vector<bool> full(choices.size(), false);  // timed in full: neither pruned nor failed
    // One measurement of choice i; a throw reports the choice as failed and yields nothing.
    auto measure = [&](std::size_t i, int warmup, int reps) -> std::vector<double> {
      try {
        return timer.measure_ms([&] { choices[i]->run(buffers); }, warmup, reps);
      } catch (const std::exception& e) {
        r.failed.push_back(FailedChoice{i, choices[i]->description(), e.what()});
        r.median_ms[i] = std::numeric_limits<double>::quiet_NaN();
        full[i] = false;
        return {};
      }
    };
    double best = inf;
    for (std::size_t i = 0; i < choices.size(); ++i) {
      int warmup = settings_.warmup;
      if (settings_.prune_ratio > 0 && best < inf) {
        const auto probe = measure(i, 1, 1);
        if (probe.empty()) continue;
        if (probe[0] > settings_.prune_ratio * best) {
          r.median_ms[i] = probe[0];
          ++r.pruned;
          continue;
        }
        warmup = std::max(0, warmup - 2);  // the probe's two runs were warm-ups too
      }
      const auto samples = measure(i, warmup, settings_.reps);
      if (samples.empty()) continue;
      r.median_ms[i] = median(samples);
      full[i] = true;
      if (r.median_ms[i] < best) {
        best = r.median_ms[i];
        r.index = i;
      }
    }
    if (best == inf)
      throw std::runtime_error("ctmatch: autotune: every one of the " + std::to_string(choices.size()) +
                               " choices failed for " + k + " (first: " + r.failed.front().message + ")");

    std::vector<std::size_t> close;
    if (settings_.rematch_ratio > 0)
      for (std::size_t i = 0; i < choices.size(); ++i)
        if (full[i] && r.median_ms[i] <= settings_.rematch_ratio * best) close.push_back(i);
    if (close.size() > 1) {
      std::vector<std::vector<double>> samples(choices.size());
      for (int rep = 0; rep < settings_.reps; ++rep)
        for (std::size_t i : close)
          if (full[i])
            for (double ms : measure(i, 0, 1)) samples[i].push_back(ms);
      best = inf;
      for (std::size_t i : close) {
        if (!full[i]) continue;  // failed during the rematch
        ++r.rematched;
        r.median_ms[i] = median(samples[i]);
        if (r.median_ms[i] < best) {
          best = r.median_ms[i];
          r.index = i;
        }
      }
      if (best == inf) throw std::runtime_error("ctmatch: autotune: every close choice failed when re-timed for " + k);
    }
    r.ms = best;
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
