#pragma once
// The CUDA backend of tune/'s autotuner (tune/autotune/runner.hpp says what a backend
// provides): a Runner with device buffers and a Timer of CUDA events (warm-up, L2 flush,
// one sample per run), and the kernel templates under their static uids:
//   aten::mm        CublasMmExtern       cuBLAS (then our epilogue kernel for a fused op)
//   cuda::mm        CudaMmTemplate       the mma.sync template, for the configs it can run
//   cuda::mm_wgmma  CudaMmWgmmaTemplate  the Hopper TMA + wgmma template, likewise
// With these, tune::get_mm_configs + tune::make_choices + tune::Autotuner run on the GPU, and
// the decision lands in tune's on-disk AutotuneCache. Served: mm of two bf16 or f16 row-major
// inputs, plain (output in the input dtype, no scalars) or with the scale_cast epilogue of
// seedlib::mm_scale_cast, which the request describes as an output dtype of f32, f16, bf16,
// f8e4m3fn or f8e5m2 and the scalars "scale" (default 1) and "clamp" (0 or 1; default 0) of the kernel inputs.
// `ScaleCastOuts` lists the output types a template instantiates the fused epilogue for, and
// `Inputs` the input types it instantiates at all (each pair is one kernel per config: nvcc
// time). For anything else choice_or_none returns nullptr (the choice is dropped, never launched).
#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../lower/gemm_problem.hpp"
#include "../tune/autotune/runner.hpp"
#include "../tune/kernel_template.hpp"
#include "../tune/uids.hpp"
#include "mm_dispatch.hpp"
#include "heuristics.hpp"
#include "timer.hpp"

namespace ctmatch::cuda {

/// The current device's name (cudaDeviceProp::name), for autotune cache keys.
inline std::string device_name() {
  int dev = 0;
  CTMATCH_CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp p{};
  CTMATCH_CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
  return p.name;
}

/// A choice as the tables print it: `cuda::mm 128x128x64 s3 w8 g8`, or `aten::mm`.
inline std::string choice_label(const tune::ChoiceCaller& c) {
  const auto cfg = tune::gemm_config_of(c.kwargs());
  return cfg ? std::string(c.uid()) + " " + to_string(*cfg) : std::string(c.uid());
}

/// Output types of the fused scale_cast epilogue: all five, or none (plain mm only).
using scale_cast_outputs = boost::mp11::mp_list<float, f16, bf16, fp8_e4m3fn, fp8_e5m2>;
using plain_mm_only = boost::mp11::mp_list<>;
/// Input types of the templates: both that the tensor-core kernels take.
using mm_inputs = boost::mp11::mp_list<bf16, f16>;

class CudaTimer final : public tune::Timer {
 public:
  explicit CudaTimer(bool flush_l2 = true) : flush_l2_(flush_l2) {}
  std::vector<double> measure_ms(const std::function<void()>& run, int warmup, int reps) override {
    return timer_.samples_ms(run, TimerOptions{warmup, reps, flush_l2_});
  }

 private:
  EventTimer timer_;
  bool flush_l2_;
};

namespace detail {
// A template, so that the header can be included by several translation units of one program.
template <int = 0>
__global__ void fill_never_zero(std::uint16_t* p, std::size_t n, bool bf, unsigned seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    unsigned x = static_cast<unsigned>(i) * 2654435761u ^ seed;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    const float mag = 0.1f + 0.9f * static_cast<float>(x & 0xffffff) / float(0xffffff);
    const float v = (x >> 31) ? -mag : mag;
    p[i] = bf ? __bfloat16_as_ushort(__float2bfloat16_rn(v)) : __half_as_ushort(__float2half_rn(v));
  }
}
}  // namespace detail

/// Device buffers for the autotuner: inputs random in +-[0.1, 1] (never zero), output poisoned.
class CudaRunner final : public tune::Runner {
 public:
  [[nodiscard]] std::string device_name() const override { return cuda::device_name(); }
  tune::Timer& timer() override { return timer_; }

  tune::Buffers prepare(const tune::MMKernelInputs& inputs, const tune::OutputLayout& output) override {
    release();
    tune::Buffers b;
    unsigned seed = 1;
    for (const tune::TensorDesc& t : inputs.nodes()) {
      const std::size_t n = static_cast<std::size_t>(tune::storage_elements(t.sizes, t.strides));
      void* p = alloc(n * tune::dtype_size(t.dtype));
      if (t.dtype == tune::DType::bf16 || t.dtype == tune::DType::f16) {
        detail::fill_never_zero<><<<1024, 256>>>(static_cast<std::uint16_t*>(p), n, t.dtype == tune::DType::bf16, seed++);
        CTMATCH_CUDA_CHECK_LAUNCH();
      } else {
        CTMATCH_CUDA_CHECK(cudaMemset(p, 0x3c, n * tune::dtype_size(t.dtype)));
      }
      b.inputs.push_back(p);
    }
    const std::size_t n = static_cast<std::size_t>(tune::storage_elements(output.sizes, output.strides));
    b.output = alloc(n * tune::dtype_size(output.dtype));
    CTMATCH_CUDA_CHECK(cudaMemset(b.output, 0xFF, n * tune::dtype_size(output.dtype)));
    CTMATCH_CUDA_CHECK(cudaDeviceSynchronize());
    return b;
  }
  CudaRunner() = default;
  CudaRunner(const CudaRunner&) = delete;
  CudaRunner& operator=(const CudaRunner&) = delete;
  ~CudaRunner() override { release(); }

 private:
  void* alloc(std::size_t bytes) {
    void* p = nullptr;
    CTMATCH_CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
    owned_.push_back(p);
    return p;
  }
  void release() {
    for (void* p : owned_) cudaFree(p);
    owned_.clear();
  }
  CudaTimer timer_;
  std::vector<void*> owned_;
};

namespace detail {
/// The tuner's DType of an element type (element.hpp's ScalarType, through lower/).
template <class T>
constexpr tune::DType dtype_of() {
  return *lower::tune_dtype(scalar_type_of<T>());
}

/// The operands and epilogue of a request the kernels can serve, or nothing (`ok` false).
struct MmRequest {
  bool ok = false;
  tune::DType in = tune::DType::bf16;
  int m = 0, n = 0, k = 0;
  Strides2d a, b;
  std::int64_t ldo = 0;
  tune::DType out = tune::DType::bf16;
  bool scale_cast = false;  // the fused epilogue; otherwise the identity
  float scale = 1.0f;
  bool clamp = false;
};
inline MmRequest mm_request(const tune::ChoiceRequest& r) {
  MmRequest q;
  const auto& in = r.inputs;
  if (in.nodes().size() != 2) return q;  // mm only (addmm: not served by this backend)
  const auto dt = in.dtype();
  if ((dt != tune::DType::bf16 && dt != tune::DType::f16) || in.mat2().dtype != dt) return q;
  const auto out = r.layout.dtype;
  if (out != tune::DType::f32 && out != tune::DType::f16 && out != tune::DType::bf16 &&
      out != tune::DType::f8e4m3fn && out != tune::DType::f8e5m2)
    return q;
  for (const auto& [name, v] : in.scalars())
    if (name != "scale" && name != "clamp") return q;  // a scalar no epilogue here understands
  q.in = dt;
  q.m = static_cast<int>(in.m());
  q.n = static_cast<int>(in.n());
  q.k = static_cast<int>(in.k());
  q.a = {in.mat1().strides[0], in.mat1().strides[1]};
  q.b = {in.mat2().strides[0], in.mat2().strides[1]};
  q.out = out;
  q.scale_cast = out != dt || !in.scalars().empty();
  q.scale = static_cast<float>(in.get_scalar("scale"));
  q.clamp = in.scalars().count("clamp") != 0 && in.get_scalar("clamp") != 0;
  if (r.layout.strides.size() != 2 || r.layout.strides[1] != 1 || r.layout.strides[0] < q.n) return q;
  q.ldo = r.layout.strides[0];
  q.ok = check_layout(q.m, q.n, q.k, q.a, q.b).empty();
  return q;
}

/// The caller of `uid` for request q: run() calls launch(operands, epilogue) with the input
/// type and epilogue the request names, decided here once; nullptr when `Inputs` or `Outs`
/// lacks the requested type. A launch that throws (a refused config, a failed launch) leaves no
/// CUDA error behind for the next choice, and the autotuner reports it.
template <class Inputs, class Outs, class Launch>
std::shared_ptr<tune::ChoiceCaller> make_caller(std::string_view uid, const tune::ChoiceRequest& r,
                                                const MmRequest& q, Launch launch) {
  std::function<void(const tune::Buffers&)> fn;
  auto bind = [&]<class In, class Epi>(In, Epi epi) {
    fn = [q, epi, launch](const tune::Buffers& b) {
      const MmOperands<In> op{static_cast<const In*>(b.inputs[0]), static_cast<const In*>(b.inputs[1]),
                              q.m, q.n, q.k, q.a.row, q.b.row};
      Epi e = epi;
      e.out = static_cast<typename Epi::out_type*>(b.output);
      try {
        launch(op, e);
      } catch (...) {
        (void)cudaGetLastError();  // a failed launch leaves its error behind: clear it
        throw;
      }
    };
  };
  auto for_input = [&]<class In>(In) {
    if (!q.scale_cast) return bind(In{}, epilogue::Identity<In>{nullptr, q.ldo});
    boost::mp11::mp_for_each<Outs>([&](auto out) {
      using Out = decltype(out);
      if (dtype_of<Out>() == q.out) bind(In{}, epilogue::ScaleCast<Out>{nullptr, q.ldo, q.scale, q.clamp});
    });
  };
  boost::mp11::mp_for_each<Inputs>([&](auto in) {
    if (dtype_of<decltype(in)>() == q.in) for_input(in);
  });
  if (!fn) return nullptr;
  return std::make_shared<tune::FunctionChoiceCaller>(std::string(uid), r.params.merged(r.extra_kwargs), std::move(fn));
}
}  // namespace detail

/// aten::mm through cuBLAS; with the fused op's epilogue, cuBLAS then our epilogue kernel.
template <class ScaleCastOuts = scale_cast_outputs, class Inputs = mm_inputs>
class CublasMmExtern final : public tune::ExternKernelChoiceBase<tune::uids::aten_mm> {
 public:
  [[nodiscard]] std::shared_ptr<tune::ChoiceCaller> choice_or_none(const tune::ChoiceRequest& r) const override {
    const auto q = detail::mm_request(r);
    if (!q.ok) return nullptr;
    return detail::make_caller<Inputs, ScaleCastOuts>(this->uid(), r, q, [ws = ws_](const auto& op, const auto& epi) {
      run_aten_mm(*ws, op, epi, nullptr);
    });
  }

 private:
  std::shared_ptr<MmWorkspace> ws_ = std::make_shared<MmWorkspace>();
};

/// cuda::mm: the mma.sync template, one instantiation per config of `Configs` (by default the
/// build's set); a config cuda_mm_refusal refuses is declined.
template <const auto& Configs = mma_sync_configs, class ScaleCastOuts = scale_cast_outputs, class Inputs = mm_inputs>
class CudaMmTemplate final : public tune::KernelTemplateBase<tune::uids::cuda_mm> {
 public:
  [[nodiscard]] std::shared_ptr<tune::ChoiceCaller> choice_or_none(const tune::ChoiceRequest& r) const override {
    const auto q = detail::mm_request(r);
    const auto cfg = tune::gemm_config_of(r.params);
    if (!q.ok || !cfg || *cuda_mm_refusal<Configs>(*cfg) != '\0') return nullptr;  // refused: never launched
    return detail::make_caller<Inputs, ScaleCastOuts>(this->uid(), r, q, [c = *cfg](const auto& op, const auto& epi) {
      run_cuda_mm<Configs>(c, op, epi, nullptr);
    });
  }
};

/// cuda::mm_wgmma: the Hopper template, one instantiation per config of `Configs`; a config or
/// operands cuda_mm_wgmma_refusal refuses are declined (the operands' addresses and the device
/// are checked again at launch).
template <const auto& Configs = wgmma_configs, class ScaleCastOuts = scale_cast_outputs, class Inputs = mm_inputs>
class CudaMmWgmmaTemplate final : public tune::KernelTemplateBase<tune::uids::cuda_mm_wgmma> {
 public:
  [[nodiscard]] std::shared_ptr<tune::ChoiceCaller> choice_or_none(const tune::ChoiceRequest& r) const override {
    const auto q = detail::mm_request(r);
    const auto cfg = tune::gemm_config_of(r.params);
    if (!q.ok || !cfg || *cuda_mm_wgmma_refusal<Configs>(*cfg, q.m, q.n, q.k, q.a, q.b) != '\0') return nullptr;
    return detail::make_caller<Inputs, ScaleCastOuts>(this->uid(), r, q, [c = *cfg](const auto& op, const auto& epi) {
      run_cuda_mm_wgmma<Configs>(c, op, epi, nullptr);
    });
  }
};

}  // namespace ctmatch::cuda
