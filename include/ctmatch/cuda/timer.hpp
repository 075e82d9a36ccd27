#pragma once
// Timing a GPU choice as the autotuner needs it: CUDA events around each run, warm-up first,
// the L2 cache flushed before every timed run (a write over a buffer twice the L2 size, so no
// run finds its operands left in cache by the previous one), and the median of the runs.
#include <algorithm>
#include <functional>
#include <vector>

#include "error.hpp"

namespace ctmatch::cuda {

struct TimerOptions {
  int warmup = 5;
  int reps = 30;
  bool flush_l2 = true;
};

class EventTimer {
 public:
  explicit EventTimer(cudaStream_t stream = nullptr) : stream_(stream) {
    int dev = 0, l2 = 0;
    CTMATCH_CUDA_CHECK(cudaGetDevice(&dev));
    CTMATCH_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    flush_bytes_ = 2 * static_cast<std::size_t>(l2 > 0 ? l2 : (64 << 20));
    CTMATCH_CUDA_CHECK(cudaMalloc(&flush_, flush_bytes_));
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  ~EventTimer() { cudaFree(flush_); }

  /// Median milliseconds of `run` (which enqueues its work on the timer's stream).
  double median_ms(const std::function<void()>& run, TimerOptions opt = {}) {
    std::vector<double> ms = samples_ms(run, opt);
    std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
    return ms[ms.size() / 2];
  }

  /// Every timed run's milliseconds, in order (opt.reps >= 1 of them).
  std::vector<double> samples_ms(const std::function<void()>& run, TimerOptions opt = {}) {
    if (opt.reps < 1) throw Error("EventTimer: reps must be at least 1");
    for (int i = 0; i < opt.warmup; ++i) run();
    CTMATCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::vector<cudaEvent_t> start(opt.reps), stop(opt.reps);
    for (int i = 0; i < opt.reps; ++i) {
      CTMATCH_CUDA_CHECK(cudaEventCreate(&start[i]));
      CTMATCH_CUDA_CHECK(cudaEventCreate(&stop[i]));
    }
    for (int i = 0; i < opt.reps; ++i) {
      if (opt.flush_l2) CTMATCH_CUDA_CHECK(cudaMemsetAsync(flush_, i & 0xff, flush_bytes_, stream_));
      CTMATCH_CUDA_CHECK(cudaEventRecord(start[i], stream_));
      run();
      CTMATCH_CUDA_CHECK(cudaEventRecord(stop[i], stream_));
    }
    CTMATCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::vector<double> ms(opt.reps);
    for (int i = 0; i < opt.reps; ++i) {
      float t = 0;
      CTMATCH_CUDA_CHECK(cudaEventElapsedTime(&t, start[i], stop[i]));
      ms[i] = t;
      cudaEventDestroy(start[i]);
      cudaEventDestroy(stop[i]);
    }
    return ms;
  }

 private:
  cudaStream_t stream_;
  void* flush_ = nullptr;
  std::size_t flush_bytes_ = 0;
};

}  // namespace ctmatch::cuda
