// The GPU half of the Python package (cuda_ops.hpp says what each function does).
#include "cuda_ops.hpp"

#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include <ctmatch/cuda/mm_scale_cast.hpp>
#include <ctmatch/cuda/mm_tuner.hpp>
#include <ctmatch/lower/gemm_problem.hpp>

namespace ctmatch::python::cuda_ops {

namespace {

using Tuner = cuda::MmTuner<boost::mp11::mp_list<cuda::bf16>>;

/// What a call's choice depends on: the tuner's problem (sizes, row strides, epilogue), in
/// plain values that hash without building the problem or its string key. The scale is kept
/// as its bits, so that equal keys hash alike (0.0 and -0.0) and a NaN scale finds its entry.
struct CallKey {
  std::int64_t m, n, k, lda, ldb;
  std::uint64_t scale_bits;
  ScalarType dtype;
  bool clamp;
  friend bool operator==(const CallKey&, const CallKey&) = default;
};
struct CallKeyHash {
  std::size_t operator()(const CallKey& c) const {
    std::uint64_t h = 0x9E3779B97F4A7C15ull;
    auto mix = [&](std::uint64_t v) { h = (h ^ v) * 0xD6E8FEB86659FD93ull; h ^= h >> 32; };
    for (std::int64_t v : {c.m, c.n, c.k, c.lda, c.ldb}) mix(static_cast<std::uint64_t>(v));
    mix(c.scale_bits);
    mix((std::uint64_t{static_cast<std::uint8_t>(c.dtype)} << 1) | c.clamp);
    return static_cast<std::size_t>(h);
  }
};
/// A call's tuned choice and its label, kept for the calls that follow: a small GEMM runs in
/// some 20 µs, so the host work of a repeated call (building the problem and its key, the
/// label's string) would show next to it.
struct Chosen {
  cuda::MmChoice choice;
  std::string label;
};

/// One per process: the tuner (and its cache), the choices made, the workspace cuBLAS choices
/// use, counters.
struct State {
  std::mutex mutex;
  std::string cache_path;
  std::unique_ptr<tune::AutotuneCache> cache;
  std::unique_ptr<Tuner> tuner;
  std::unordered_map<CallKey, Chosen, CallKeyHash> chosen;
  cuda::MmWorkspace ws;
  Counters counters;

  Tuner& get_tuner() {
    if (!tuner) {
      if (!cache_path.empty()) cache = std::make_unique<tune::AutotuneCache>(cache_path);
      tuner = std::make_unique<Tuner>(cache.get());
    }
    return *tuner;
  }
};

State& state() {
  static State s;
  return s;
}

ScalarType output_type(const std::string& name) {
  const auto t = parse_scalar_type(name);
  if (!t) throw std::invalid_argument("ctmatch: unknown dtype '" + name + "'");
  return *t;
}

template <class Out>
__global__ void cast_kernel(const float* src, Out* dst, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x)
    dst[i] = cuda::from_float<Out>(src[i]);
}

}  // namespace

std::string mm_scale_cast(const MmScaleCast& c) {
  if (c.m < 1 || c.n < 1 || c.k < 1) throw std::invalid_argument("ctmatch: mm_scale_cast of an empty matrix");
  if (c.m > 0x7fffffff || c.n > 0x7fffffff || c.k > 0x7fffffff)
    throw std::invalid_argument("ctmatch: mm_scale_cast sizes beyond 2^31 - 1");
  const lower::ScaleCast epi{output_type(c.dtype), c.clamp, c.scale};
  // The operands' device, current for the tuning and the launch (torch's current device may be
  // another one): cheaper than switching devices around the call in Python.
  int device = 0;
  CTMATCH_CUDA_CHECK(cudaGetDevice(&device));
  if (device != c.device) CTMATCH_CUDA_CHECK(cudaSetDevice(c.device));
  struct Restore {
    int device;
    bool switched;
    ~Restore() {
      if (switched) cudaSetDevice(device);
    }
  } restore{device, device != c.device};
  State& s = state();
  std::lock_guard lock(s.mutex);
  CallKey key{c.m, c.n, c.k, c.lda, c.ldb, 0, epi.dtype, epi.clamp};
  std::memcpy(&key.scale_bits, &epi.scale, sizeof key.scale_bits);
  auto it = s.chosen.find(key);
  if (it == s.chosen.end()) {
    const auto problem =
        lower::gemm_problem(tune::TensorDesc{{c.m, c.k}, {c.lda, 1}, tune::DType::bf16},
                            tune::TensorDesc{{c.k, c.n}, {c.ldb, 1}, tune::DType::bf16}, epi, "cuda");
    const cuda::MmChoice choice = s.get_tuner().tune(problem).choice;
    it = s.chosen.emplace(key, Chosen{choice, cuda::to_string(choice)}).first;
    s.counters.problems_tuned = s.tuner->problems();
  }
  const cuda::MmOperands<cuda::bf16> op{reinterpret_cast<const cuda::bf16*>(c.a), reinterpret_cast<const cuda::bf16*>(c.b),
                                        static_cast<int>(c.m), static_cast<int>(c.n), static_cast<int>(c.k), c.lda, c.ldb};
  cuda::mm_scale_cast<cuda::bf16>(it->second.choice, s.ws, op, reinterpret_cast<void*>(c.out), epi,
                                  reinterpret_cast<cudaStream_t>(c.stream));
  ++s.counters.calls;
  if (it->second.choice.uid != cuda::aten_mm_uid) ++s.counters.ctmatch_kernel_calls;
  return it->second.label;
}

void cast_from_float(std::uintptr_t src, std::uintptr_t dst, std::int64_t n, const std::string& dtype,
                     std::uintptr_t stream) {
  if (n <= 0) return;
  const bool ok = cuda::visit_output_type(output_type(dtype), [&]<class Out>(Out) {
    const auto grid = static_cast<unsigned>(std::min<std::int64_t>((n + 255) / 256, 4096));
    cast_kernel<Out><<<grid, 256, 0, reinterpret_cast<cudaStream_t>(stream)>>>(reinterpret_cast<const float*>(src),
                                                                            reinterpret_cast<Out*>(dst), n);
    CTMATCH_CUDA_CHECK_LAUNCH();
  });
  if (!ok) throw std::invalid_argument("ctmatch: the kernels do not write dtype " + dtype);
}

void set_cache(const std::string& path) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.cache_path = path;
  s.tuner.reset();  // the next problem builds a tuner with the new cache
  s.cache.reset();
  s.chosen.clear();
}

Counters counters() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return s.counters;
}

}  // namespace ctmatch::python::cuda_ops
