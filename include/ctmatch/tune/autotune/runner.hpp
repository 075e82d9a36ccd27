#pragma once
// What the autotuner needs from a backend, and the host backend's implementation.
//
// The autotuner (autotuner.hpp) is backend-neutral: it asks a Runner for buffers holding the
// problem's inputs and for a Timer, and times ChoiceCaller::run on them. A backend plugs in by
// providing, without any change to tune/:
//   - KernelTemplates (KernelTemplateBase<uids::...>) whose choice_or_none makes ChoiceCallers
//     that run on the backend's buffers (device pointers for CUDA; run() may be asynchronous);
//   - a Timer: measure_ms(run, warmup, reps) returns one sample per timed run, synchronized
//     (CUDA: events around each run on the stream, optionally an L2 flush between runs);
//   - a Runner: device_name() for cache keys (e.g. cudaDeviceProp::name), prepare() to allocate
//     and fill input/output buffers on the device, timer().
// The host backend below: heap buffers with random data, std::chrono::steady_clock.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <functional>
#include <new>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "../choice_caller.hpp"
#include "../kernel_inputs.hpp"
#include "../host/bfloat16.hpp"

namespace ctmatch::tune {

class Timer {
 public:
  virtual ~Timer() = default;
  /// Calls `run` `warmup` times untimed, then `reps` times timed; returns the `reps` durations
  /// in milliseconds, complete (the device synchronized) when it returns.
  virtual std::vector<double> measure_ms(const std::function<void()>& run, int warmup, int reps) = 0;
};

class Runner {
 public:
  virtual ~Runner() = default;
  /// Names the device in cache keys: a decision measured on one device is not reused on another.
  [[nodiscard]] virtual std::string device_name() const = 0;
  /// Buffers for inputs (op order) and output, filled with data; valid until the next prepare
  /// or the runner's destruction.
  virtual Buffers prepare(const MMKernelInputs& inputs, const OutputLayout& output) = 0;
  virtual Timer& timer() = 0;
};

/// Host timing: steady_clock around each run.
class SteadyClockTimer final : public Timer {
 public:
  std::vector<double> measure_ms(const std::function<void()>& run, int warmup, int reps) override {
    for (int i = 0; i < warmup; ++i) run();
    std::vector<double> out;
    out.reserve(static_cast<std::size_t>(std::max(reps, 0)));
    for (int i = 0; i < reps; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      run();
      const auto t1 = std::chrono::steady_clock::now();
      out.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    return out;
  }
};

/// Elements a strided tensor spans: 1 + sum((size - 1) * stride); 0 when any size is 0.
/// Throws std::length_error when that does not fit in 64 bits.
inline std::int64_t storage_elements(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides) {
  std::int64_t span = 1;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return 0;
    std::int64_t extent = 0;
    if (__builtin_mul_overflow(sizes[i] - 1, i < strides.size() ? strides[i] : 0, &extent) ||
        __builtin_add_overflow(span, extent, &span))
      throw std::length_error("a tensor of these sizes spans more than 2^63 elements");
  }
  return span;
}

/// The host backend's runner: aligned heap buffers, uniform random inputs in [-1, 1].
class HostRunner final : public Runner {
 public:
  explicit HostRunner(std::string device_name = cpu_name()) : name_(std::move(device_name)) {}

  [[nodiscard]] std::string device_name() const override { return name_; }
  Timer& timer() override { return timer_; }

  Buffers prepare(const MMKernelInputs& inputs, const OutputLayout& output) override {
    storage_.clear();
    Buffers b;
    std::mt19937 rng(42);
    for (const TensorDesc& t : inputs.nodes()) {
      storage_.push_back(filled(t.dtype, storage_elements(t.sizes, t.strides), rng));
      b.inputs.push_back(storage_.back().data());
    }
    storage_.push_back(filled(output.dtype, storage_elements(output.sizes, output.strides), rng));
    b.output = storage_.back().data();
    return b;
  }

  /// The CPU's model name from /proc/cpuinfo, or "host cpu".
  static std::string cpu_name() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("model name", 0) == 0) {
        const auto colon = line.find(':');
        if (colon != std::string::npos && colon + 2 <= line.size()) return "host " + line.substr(colon + 2);
      }
    return "host cpu";
  }

 private:
  static std::vector<std::byte> filled(DType t, std::int64_t elements, std::mt19937& rng) {
    const std::size_t n = static_cast<std::size_t>(std::max<std::int64_t>(elements, 0));
    std::size_t size = 0;
    if (__builtin_mul_overflow(n, static_cast<std::size_t>(dtype_size(t)), &size) || size > SIZE_MAX - 64)
      throw std::bad_alloc();
    std::vector<std::byte> bytes(size + 64);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    if (t == DType::f32) {
      auto* p = reinterpret_cast<float*>(bytes.data());
      for (std::size_t i = 0; i < n; ++i) p[i] = d(rng);
    } else if (t == DType::bf16) {
      auto* p = reinterpret_cast<host::BFloat16*>(bytes.data());
      for (std::size_t i = 0; i < n; ++i) p[i] = host::BFloat16(d(rng));
    }
    return bytes;
  }

  std::string name_;
  SteadyClockTimer timer_;
  std::vector<std::vector<std::byte>> storage_;
};

}  // namespace ctmatch::tune
