#pragma once
// Autotuning GPU mm choices: time every choice with the EventTimer (warm-up, L2 flush, median;
// a choice far slower than the best so far is dropped after one timed run), keep the fastest, and remember it in a cache file so that the next process with the same
// problem runs no benchmark at all. The key holds the op, sizes, strides, dtypes, kwargs that
// change the kernel, the device name and the ctmatch version. A line that does not parse
// (corrupted or foreign file) is skipped with a warning on stderr, never a crash.
//
// This is the CUDA side's own small cache: it keeps the same key fields and file discipline
// as the backend-neutral autotuner of tune/ and can be swapped for it.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "mm_choices.hpp"
#include "timer.hpp"

namespace ctmatch::cuda {

inline constexpr std::string_view ctmatch_version = "0.1.0";

inline std::string device_name() {
  int dev = 0;
  CTMATCH_CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp p{};
  CTMATCH_CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
  return p.name;
}

/// `op=mm_scale_cast m=4096 ... device=NVIDIA H200 ctmatch=0.1.0` (no tabs: the file separator).
inline std::string autotune_key(std::string_view op, int m, int n, int k, Strides2d a,
                                Strides2d b, ScalarType in, std::string_view extra,
                                const std::string& device) {
  std::ostringstream s;
  s << "op=" << op << " m=" << m << " n=" << n << " k=" << k << " a_strides=" << a.row << ","
    << a.col << " b_strides=" << b.row << "," << b.col << " in=" << torch_name(in) << " "
    << extra << " device=" << device << " ctmatch=" << ctmatch_version;
  return s.str();
}

/// key \t uid \t BM BN BK stages warps group \t ms
class AutotuneCache {
 public:
  explicit AutotuneCache(std::string path) : path_(std::move(path)) { load(); }
  const std::string& path() const { return path_; }

  const MmChoice* find(const std::string& key) const {
    auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : &it->second;
  }
  void store(const std::string& key, const MmChoice& c, double ms) {
    entries_[key] = c;
    if (path_.empty()) return;
    std::ofstream f(path_, std::ios::app);
    if (!f) {
      std::fprintf(stderr, "ctmatch: warning: cannot write autotune cache %s\n", path_.c_str());
      return;
    }
    const auto& g = c.config;
    f << key << '\t' << c.uid << '\t' << g.block_m << ' ' << g.block_n << ' ' << g.block_k << ' '
      << g.num_stages << ' ' << g.num_warps << ' ' << g.group_m << '\t' << ms << '\n';
  }

 private:
  void load() {
    if (path_.empty()) return;
    std::ifstream f(path_);
    std::string line;
    int lineno = 0;
    while (std::getline(f, line)) {
      ++lineno;
      std::istringstream ls(line);
      std::string key, uid, cfg, ms;
      MmChoice c;
      bool ok = std::getline(ls, key, '\t') && std::getline(ls, uid, '\t') &&
                std::getline(ls, cfg, '\t') && std::getline(ls, ms);
      if (ok) {
        std::istringstream cs(cfg);
        auto& g = c.config;
        ok = static_cast<bool>(cs >> g.block_m >> g.block_n >> g.block_k >> g.num_stages >>
                               g.num_warps >> g.group_m);
      }
      if (ok && uid == aten_mm_uid) c.uid = aten_mm_uid;
      else if (ok && uid == cuda_mm_uid) c.uid = cuda_mm_uid;
      else if (ok && uid == cuda_mm_wgmma_uid) c.uid = cuda_mm_wgmma_uid;
      else ok = false;
      if (!ok) {
        std::fprintf(stderr, "ctmatch: warning: %s:%d: ignoring unreadable autotune cache line\n",
                     path_.c_str(), lineno);
        continue;
      }
      entries_[key] = c;
    }
  }
  std::string path_;
  std::map<std::string, MmChoice> entries_;
};

struct AutotuneResult {
  MmChoice best;
  bool cache_hit = false;
  double seconds = 0;  // wall time of the tuning (0 on a hit)
  std::vector<std::pair<MmChoice, double>> timings;  // median ms per choice, in choice order
  std::vector<std::pair<MmChoice, std::string>> failed;  // choices that threw, and why
  std::size_t pruned = 0;  // choices dropped after one timed run (see prune_ratio)
  std::size_t rematched = 0;  // close choices timed again, interleaved (see rematch_ratio)
};

/// A choice whose first timed run is this many times slower than the best median so far is
/// dropped after that run: it cannot win (run-to-run spread is a few percent), and the slow
/// choices are the expensive ones to time (on 8192^3, 18 runs of a 3.5 ms kernel each). Its
/// one sample is what `timings` reports for it. 0 turns pruning off.
inline constexpr double default_prune_ratio = 1.5;
/// Choices whose medians are within this factor of the best are timed again, one run of each
/// in turn, and the winner is taken from those medians: the clock and temperature of the GPU
/// drift between the first timings of two choices by more than the few percent that separate
/// close ones, and interleaving gives every contender the same conditions.
inline constexpr double rematch_ratio = 1.05;

/// Times `run(choice)` for every choice, unless the cache knows the key. A choice that throws
/// (refused config, launch failure) is reported in `failed` and never chosen. Each choice
/// after the first is probed with one warm-up and one timed run first (they count towards its
/// warm-ups); if the probe exceeds prune_ratio x the best median so far, it stops there. The
/// choices within rematch_ratio of the best are then timed again, interleaved (opt.reps runs
/// each), and their new medians decide.
template <class Run>
AutotuneResult autotune(const std::vector<MmChoice>& choices, const std::string& key,
                        AutotuneCache& cache, EventTimer& timer, Run&& run,
                        TimerOptions opt = {}, double prune_ratio = default_prune_ratio) {
  AutotuneResult r;
  if (const MmChoice* hit = cache.find(key)) {
    r.best = *hit;
    r.cache_hit = true;
    return r;
  }
  const auto t0 = std::chrono::steady_clock::now();
  double best_ms = 1e300;
  std::vector<bool> full;  // per entry of r.timings: timed in full (not pruned)
  for (const MmChoice& c : choices) {
    try {
      TimerOptions rest = opt;
      if (prune_ratio > 0 && best_ms < 1e300) {
        const double probe = timer.median_ms([&] { run(c); }, TimerOptions{1, 1, opt.flush_l2});
        if (probe > prune_ratio * best_ms) {
          r.timings.emplace_back(c, probe);
          full.push_back(false);
          ++r.pruned;
          continue;
        }
        rest.warmup = opt.warmup > 2 ? opt.warmup - 2 : 0;
      }
      const double ms = timer.median_ms([&] { run(c); }, rest);
      r.timings.emplace_back(c, ms);
      full.push_back(true);
      if (ms < best_ms) { best_ms = ms; r.best = c; }
    } catch (const Error& e) {
      cudaGetLastError();  // a failed launch leaves its error behind: clear it for the next choice
      r.failed.emplace_back(c, e.what());
    }
  }
  if (r.timings.empty()) throw Error("autotune: every choice failed for " + key);
  std::vector<std::size_t> close;
  for (std::size_t i = 0; i < r.timings.size(); ++i)
    if (full[i] && r.timings[i].second <= rematch_ratio * best_ms) close.push_back(i);
  if (close.size() > 1) {
    std::vector<std::vector<double>> samples(close.size());
    for (int rep = 0; rep < opt.reps; ++rep)
      for (std::size_t j = 0; j < close.size(); ++j)
        samples[j].push_back(timer.samples_ms([&] { run(r.timings[close[j]].first); },
                                              TimerOptions{0, 1, opt.flush_l2})[0]);
    best_ms = 1e300;
    for (std::size_t j = 0; j < close.size(); ++j) {
      auto& v = samples[j];
      std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
      auto& [c, ms] = r.timings[close[j]];
      ms = v[v.size() / 2];
      if (ms < best_ms) { best_ms = ms; r.best = c; }
    }
    r.rematched = close.size();
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  cache.store(key, r.best, best_ms);
  return r;
}

}  // namespace ctmatch::cuda
