#pragma once
// The CUDA backend of tune/'s autotuner (tune/autotune/runner.hpp says what a backend
// provides): a Runner with device buffers and a Timer of CUDA events (warm-up, L2 flush,
// one sample per run), and the kernel templates under their static uids:
//   aten::mm  CublasMmExtern   cuBLAS, output in the input dtype
//   cuda::mm        CudaMmTemplate       the mma.sync template, for the configs it can run
//   cuda::mm_wgmma  CudaMmWgmmaTemplate  the Hopper TMA + wgmma template, likewise
// With these, tune::get_mm_configs + tune::make_choices + tune::Autotuner run on the GPU, and
// the decision lands in tune's on-disk AutotuneCache. Only mm (two bf16/f16 row-major inputs)
// is served; for other requests choice_or_none returns nullptr (the choice is dropped).
#include <memory>
#include <string>
#include <vector>

#include "../tune/autotune/runner.hpp"
#include "../tune/kernel_template.hpp"
#include "../tune/uids.hpp"
#include "autotune.hpp"
#include "mm_choices.hpp"
#include "mma_sync_heuristic.hpp"

namespace ctmatch::cuda {

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

  tune::Buffers prepare(const tune::MMKernelInputs& inputs, const tune::Layout& output) override {
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
/// The operands of a plain mm request the kernels can read, or nothing.
struct MmRequest {
  bool ok = false;
  bool bf16 = true;
  int m = 0, n = 0, k = 0;
  Strides2d a, b;
};
inline MmRequest mm_request(const tune::ChoiceRequest& r) {
  MmRequest q;
  const auto& in = r.inputs;
  if (in.nodes().size() != 2) return q;  // mm only (addmm: not served by this backend)
  const auto dt = in.dtype();
  if ((dt != tune::DType::bf16 && dt != tune::DType::f16) || in.mat2().dtype != dt || r.layout.dtype != dt) return q;
  q.bf16 = dt == tune::DType::bf16;
  q.m = static_cast<int>(in.m());
  q.n = static_cast<int>(in.n());
  q.k = static_cast<int>(in.k());
  q.a = {in.mat1().strides[0], in.mat1().strides[1]};
  q.b = {in.mat2().strides[0], in.mat2().strides[1]};
  q.ok = check_layout(q.m, q.n, q.k, q.a, q.b).empty() && r.layout.strides.size() == 2 &&
         r.layout.strides[1] == 1;
  return q;
}

template <class In, class F>
std::shared_ptr<tune::ChoiceCaller> make_caller(std::string_view uid, const tune::ChoiceRequest& r,
                                                const MmRequest& q, F launch) {
  const std::int64_t ldo = r.layout.strides[0];
  return std::make_shared<tune::FunctionChoiceCaller>(
      std::string(uid), r.params.merged(r.extra_kwargs), [q, ldo, launch](const tune::Buffers& b) {
        const MmOperands<In> op{static_cast<const In*>(b.inputs[0]), static_cast<const In*>(b.inputs[1]),
                                q.m, q.n, q.k, q.a.row, q.b.row};
        launch(op, epilogue::Identity<In>{static_cast<In*>(b.output), ldo});
      });
}
}  // namespace detail

/// aten::mm through cuBLAS.
class CublasMmExtern final : public tune::ExternKernelChoiceBase<tune::uids::aten_mm> {
 public:
  [[nodiscard]] std::shared_ptr<tune::ChoiceCaller> choice_or_none(const tune::ChoiceRequest& r) const override {
    const auto q = detail::mm_request(r);
    if (!q.ok) return nullptr;
    auto ws = ws_;
    auto go = [&]<class In>(In) {
      return detail::make_caller<In>(this->uid(), r, q, [ws](const MmOperands<In>& op, const epilogue::Identity<In>& e) {
        cublas_mm(ws->cublas, op, e.out, e.ldo, nullptr);
      });
    };
    return q.bf16 ? go(bf16{}) : go(f16{});
  }

 private:
  std::shared_ptr<MmWorkspace> ws_ = std::make_shared<MmWorkspace>();
};

/// cuda::mm: the mma.sync template, one instantiation per config of `Configs` (by default the
/// build's set); a config outside it, or one the plan refuses, is declined.
template <const auto& Configs = mma_sync_configs>
class CudaMmTemplate final : public tune::KernelTemplateBase<tune::uids::cuda_mm> {
 public:
  [[nodiscard]] std::shared_ptr<tune::ChoiceCaller> choice_or_none(const tune::ChoiceRequest& r) const override {
    const auto q = detail::mm_request(r);
    const auto cfg = tune::gemm_config_of(r.params);
    if (!q.ok || !cfg || !mma_sync_supported(*cfg) || !in_config_set<Configs>(*cfg)) return nullptr;  // refused: never launched
    const tune::GemmConfig c = *cfg;
    auto go = [&]<class In>(In) {
      return detail::make_caller<In>(this->uid(), r, q, [c](const MmOperands<In>& op, const epilogue::Identity<In>& e) {
        launch_mma_sync<Configs>(c, op, e, nullptr);
      });
    };
    return q.bf16 ? go(bf16{}) : go(f16{});
  }
};

/// cuda::mm_wgmma: the Hopper template, one instantiation per config of `Configs`; a config
/// outside it or refused by the plan, and operands TMA cannot describe, are declined (the
/// operands' addresses and the device are checked again at launch).
template <const auto& Configs = wgmma_configs>
class CudaMmWgmmaTemplate final : public tune::KernelTemplateBase<tune::uids::cuda_mm_wgmma> {
 public:
  [[nodiscard]] std::shared_ptr<tune::ChoiceCaller> choice_or_none(const tune::ChoiceRequest& r) const override {
    const auto q = detail::mm_request(r);
    const auto cfg = tune::gemm_config_of(r.params);
    if (!q.ok || !cfg || !wgmma_supported(*cfg) || !in_config_set<Configs>(*cfg)) return nullptr;
    if (*wgmma_operand_refusal(q.m, q.n, q.k, q.a.row, q.b.row) != '\0') return nullptr;  // refused: never launched
    const tune::GemmConfig c = *cfg;
    auto go = [&]<class In>(In) {
      return detail::make_caller<In>(this->uid(), r, q, [c](const MmOperands<In>& op, const epilogue::Identity<In>& e) {
        launch_wgmma<Configs>(c, op, e, nullptr);
      });
    };
    return q.bf16 ? go(bf16{}) : go(f16{});
  }
};

}  // namespace ctmatch::cuda
