// seed_end_to_end: the whole path on the GPU, for the seed MLP.
//
//   1. read the seed graph (tests/data/seed_mlp.export.json: x 64x512, four 512x512 weights),
//      and build a bigger MLP of the same structure (4 layers, 4096x4096, batch 4096);
//   2. rewrite mm -> seedlib.scale_cast(dtype, clamp, scale) into seedlib.mm_scale_cast with the
//      captured kwargs (the `bench` rule set, sweep mode: examples/seed_end_to_end/rewrite.cpp);
//   3. choose each fused GEMM among cuBLAS (+ epilogue kernel) and the instantiated cuda::mm
//      and cuda::mm_wgmma configs: tune::get_mm_configs offers them, tune::Autotuner times them on the GPU with the
//      CUDA runner, for the op with its kwargs;
//   4. run the rewritten graph and the unfused one (cuBLAS mm, then separate scale_cast and gelu
//      kernels) with a small interpreter (bf16 inputs), compare both with each other and, on the
//      seed graph, with a float64 CPU evaluation; print the time of both. The rewritten graph
//      runs twice: with the autotuned choices, and with the fastest config of our templates
//      (cuda::mm or cuda::mm_wgmma) forced, so
//      that our fused kernels are checked too when cuBLAS + epilogue wins the autotuning.
// Exits 1 on a mismatch. Needs a GPU (CTest label `cuda`).
//
//   seed_end_to_end [GRAPH_FILE] [--cache FILE]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <ctmatch/cuda/mm_tuner.hpp>
#include <ctmatch/cuda/timer.hpp>
#include <ctmatch/lower/gemm_problem.hpp>

#include "seed_end_to_end/program.hpp"

using namespace ctmatch;
using namespace ctmatch::cuda;
using seed_e2e::Dtype;
using seed_e2e::Program;
using seed_e2e::Step;
using seed_e2e::StepKind;

namespace {

constexpr double tolerance = 2e-2;  // relative error (norm): bf16 storage and operands


std::size_t dtype_bytes(Dtype d) { return d == Dtype::f32 ? 4 : 2; }

template <class F>
void visit(Dtype d, F&& f) {
  switch (d) {
    case Dtype::f32: f(float{}); return;
    case Dtype::f16: f(f16{}); return;
    case Dtype::bf16: f(bf16{}); return;
  }
}

// ---- the elementwise and reduction kernels of the interpreter ----

template <class In, class Out>
__global__ void convert_kernel(const In* x, Out* y, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    y[i] = from_float<Out>(to_float(x[i]));
}

inline double gelu_tanh(double x) {
  const double k = 0.7978845608028654;  // sqrt(2 / pi)
  return 0.5 * x * (1.0 + tanh(k * (x + 0.044715 * x * x * x)));
}

template <class T>
__global__ void gelu_tanh_kernel(const T* x, T* y, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    const float v = to_float(x[i]);
    const float k = 0.7978845608028654f;
    y[i] = from_float<T>(0.5f * v * (1.0f + tanhf(k * (v + 0.044715f * v * v * v))));
  }
}

/// One block per row: fp32 accumulation, the result in the input's type (as torch.sum).
template <class T>
__global__ void row_sum_kernel(const T* x, T* y, int cols) {
  const T* row = x + static_cast<std::size_t>(blockIdx.x) * cols;
  float s = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += to_float(row[c]);
  __shared__ float part[32];
  for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x < 32) {
    s = threadIdx.x < blockDim.x / 32 ? part[threadIdx.x] : 0.0f;
    for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
    if (threadIdx.x == 0) y[blockIdx.x] = from_float<T>(s);
  }
}

unsigned grid_for(std::size_t n) { return static_cast<unsigned>(std::min<std::size_t>((n + 255) / 256, 4096)); }

// ---- device memory ----

struct Tensor {
  void* p = nullptr;
  int rows = 0, cols = 0;
  Dtype dt = Dtype::bf16;
  std::size_t count() const { return static_cast<std::size_t>(rows) * cols; }
  std::size_t bytes() const { return count() * dtype_bytes(dt); }
};

class DeviceArena {
 public:
  DeviceArena() = default;
  DeviceArena(const DeviceArena&) = delete;
  DeviceArena& operator=(const DeviceArena&) = delete;
  ~DeviceArena() {
    for (void* p : owned_) cudaFree(p);
  }
  Tensor make(int rows, int cols, Dtype dt) {
    Tensor t{nullptr, rows, cols, dt};
    CTMATCH_CUDA_CHECK(cudaMalloc(&t.p, std::max<std::size_t>(t.bytes(), 1)));
    owned_.push_back(t.p);
    CTMATCH_CUDA_CHECK(cudaMemset(t.p, 0xFF, t.bytes()));  // poisoned: NaN until written
    return t;
  }

 private:
  std::vector<void*> owned_;
};

std::vector<double> download(const Tensor& t) {
  std::vector<double> out(t.count());
  visit(t.dt, [&]<class T>(T) {
    std::vector<T> h(t.count());
    CTMATCH_CUDA_CHECK(cudaMemcpy(h.data(), t.p, t.bytes(), cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < h.size(); ++i) out[i] = to_float(h[i]);
  });
  return out;
}

// ---- choosing each fused GEMM: get_mm_configs + the autotuner, on the op with its kwargs ----

struct FusedKey {
  int m, n, k;
  Dtype dt;
  bool clamp;
  double scale;
  auto operator<=>(const FusedKey&) const = default;
};

class GemmChooser {
 public:
  explicit GemmChooser(tune::AutotuneCache* cache) : tuner_(cache) {}

  /// The fastest choice of seedlib.mm_scale_cast for this problem (tuned once per key); with
  /// `template_only`, the fastest cuda::mm / cuda::mm_wgmma config instead (the epilogue fused
  /// in our kernel), so that the fused kernels are checked even where cuBLAS + epilogue wins.
  /// The choice runs on any operands and output of the key's shapes and dtypes.
  std::shared_ptr<tune::ChoiceCaller> choose(const FusedKey& key, bool template_only = false) {
    if (!chosen_.count(key)) tune_key(key);
    return template_only ? best_template_.at(key) : chosen_.at(key);
  }

 private:
  void tune_key(const FusedKey& key) {
    // The fused op as the lowering layer describes it: bf16 operands, the scale_cast epilogue
    // with its typed kwargs. The choices write that output while timed, so the epilogue and
    // its stores are part of what is measured.
    const ScalarType out = key.dt == Dtype::f32   ? ScalarType::Float
                           : key.dt == Dtype::f16 ? ScalarType::Half
                                                  : ScalarType::BFloat16;
    const auto problem = lower::gemm_problem(tune::TensorDesc::contiguous({key.m, key.k}, tune::DType::bf16),
                                             tune::TensorDesc::contiguous({key.k, key.n}, tune::DType::bf16),
                                             lower::ScaleCast{out, key.clamp, key.scale}, "cuda");
    const auto& t = tuner_.tune(problem);
    const tune::AutotuneResult& r = t.result;
    const auto& callers = t.callers;
    std::printf("  autotune %dx%dx%d %s: %zu choices, winner %s %.4f ms%s\n", key.m, key.n, key.k, problem.op.c_str(),
                callers.size(), choice_label(*r.winner).c_str(), r.ms, r.from_cache ? " (from cache)" : "");
    // the fastest config of our templates, cuda::mm or cuda::mm_wgmma (on a cache hit, nothing
    // was timed: the first one offered)
    std::size_t best_cuda = callers.size();
    for (std::size_t i = 0; i < callers.size(); ++i)
      if (callers[i]->uid() != aten_mm_uid && (r.from_cache || !std::isnan(r.median_ms[i])) &&
          (best_cuda == callers.size() || (!r.from_cache && r.median_ms[i] < r.median_ms[best_cuda])))
        best_cuda = i;
    if (!r.from_cache) {
      std::printf("    cuBLAS + epilogue %.4f ms", r.median_ms[0]);
      if (best_cuda < callers.size())
        std::printf(", best of our templates (fused) %s %.4f ms", choice_label(*callers[best_cuda]).c_str(),
                    r.median_ms[best_cuda]);
      std::printf("; pruned %zu, rematched %zu, failed %zu\n", r.pruned, r.rematched, r.failed.size());
    }
    chosen_.emplace(key, r.winner);
    best_template_.emplace(key, best_cuda < callers.size() ? callers[best_cuda] : r.winner);
  }

  // bf16 operands only (the interpreter converts to bf16 for every GEMM), every output dtype
  MmTuner<boost::mp11::mp_list<bf16>> tuner_;
  std::map<FusedKey, std::shared_ptr<tune::ChoiceCaller>> chosen_, best_template_;
};

// ---- the interpreter ----

/// Every buffer allocated once; run() only launches kernels, so it can be timed.
class Interpreter {
 public:
  Interpreter(const Program& p, const std::map<std::string, Tensor>& inputs, MmWorkspace& ws, GemmChooser* chooser,
              bool template_only = false)
      : p_(p), ws_(ws), vals_(p.steps.size()), bf16_operands_(p.steps.size()), gemms_(p.steps.size()) {
    for (std::size_t i = 0; i < p.steps.size(); ++i) {
      const Step& s = p.steps[i];
      auto in = [&](std::size_t j) -> const Tensor& { return vals_[static_cast<std::size_t>(s.in[j])]; };
      switch (s.kind) {
        case StepKind::input: {
          auto it = inputs.find(s.name);
          if (it == inputs.end()) throw Error("no input tensor named '" + s.name + "'");
          vals_[i] = it->second;
          break;
        }
        case StepKind::mm:
        case StepKind::mm_scale_cast: {
          const Tensor &a = in(0), &b = in(1);
          if (a.cols != b.rows) throw Error(s.name + ": mm of " + shape(a) + " and " + shape(b));
          // autocast: an operand stored in float32 is converted to bf16 for the GEMM
          for (int j = 0; j < 2; ++j)
            bf16_operands_[i].push_back(in(j).dt == Dtype::bf16 ? in(j) : arena_.make(in(j).rows, in(j).cols, Dtype::bf16));
          const bool fused = s.kind == StepKind::mm_scale_cast;
          vals_[i] = arena_.make(a.rows, b.cols, fused ? s.dtype : Dtype::bf16);
          if (fused) {
            if (!chooser) throw Error(s.name + ": no GEMM chooser");
            gemms_[i] = chooser->choose({a.rows, b.cols, a.cols, s.dtype, s.clamp, s.scale}, template_only);
          }
          break;
        }
        case StepKind::scale_cast:
          if (in(0).dt == Dtype::f32) throw Error(s.name + ": scale_cast of float32 is not implemented");
          vals_[i] = arena_.make(in(0).rows, in(0).cols, s.dtype);
          break;
        case StepKind::gelu_tanh: vals_[i] = arena_.make(in(0).rows, in(0).cols, in(0).dt); break;
        case StepKind::row_sum: vals_[i] = arena_.make(in(0).rows, 1, in(0).dt); break;
      }
    }
  }

  /// The GEMM choice of each fused step, for the printout.
  std::string plan_summary() const {
    std::string out;
    for (std::size_t i = 0; i < p_.steps.size(); ++i)
      if (p_.steps[i].kind == StepKind::mm_scale_cast) out += "    " + p_.steps[i].name + ": " + choice_label(*gemms_[i]) + "\n";
    return out;
  }

  void run(cudaStream_t stream = nullptr) {
    for (std::size_t i = 0; i < p_.steps.size(); ++i) {
      const Step& s = p_.steps[i];
      const Tensor& out = vals_[i];
      auto in = [&](std::size_t j) -> const Tensor& { return vals_[static_cast<std::size_t>(s.in[j])]; };
      switch (s.kind) {
        case StepKind::input: break;
        case StepKind::mm:
        case StepKind::mm_scale_cast: {
          for (std::size_t j = 0; j < 2; ++j)
            if (in(j).dt != Dtype::bf16) convert(in(j), bf16_operands_[i][j], stream);
          const Tensor &a = bf16_operands_[i][0], &b = bf16_operands_[i][1];
          const MmOperands<bf16> op{static_cast<const bf16*>(a.p), static_cast<const bf16*>(b.p), a.rows, b.cols, a.cols,
                                    a.cols, b.cols};
          if (s.kind == StepKind::mm) cublas_mm(ws_.cublas, op, static_cast<bf16*>(out.p), out.cols, stream);
          else gemms_[i]->run(tune::Buffers{{a.p, b.p}, out.p});  // the chosen kernel, on the default stream
          break;
        }
        case StepKind::scale_cast:
          visit(in(0).dt, [&]<class In>(In) {
            if constexpr (!std::is_same_v<In, float>)
              visit(out.dt, [&]<class Out>(Out) {
                launch_epilogue(static_cast<const In*>(in(0).p), in(0).cols, in(0).rows, in(0).cols,
                                epilogue::ScaleCast<Out>{static_cast<Out*>(out.p), out.cols, static_cast<float>(s.scale),
                                                         s.clamp},
                                stream);
              });
          });
          break;
        case StepKind::gelu_tanh:
          visit(out.dt, [&]<class T>(T) {
            gelu_tanh_kernel<T><<<grid_for(out.count()), 256, 0, stream>>>(static_cast<const T*>(in(0).p),
                                                                            static_cast<T*>(out.p), out.count());
          });
          CTMATCH_CUDA_CHECK_LAUNCH();
          break;
        case StepKind::row_sum:
          visit(out.dt, [&]<class T>(T) {
            row_sum_kernel<T><<<static_cast<unsigned>(in(0).rows), 256, 0, stream>>>(static_cast<const T*>(in(0).p),
                                                                                     static_cast<T*>(out.p), in(0).cols);
          });
          CTMATCH_CUDA_CHECK_LAUNCH();
          break;
      }
    }
  }

  const Tensor& value(int step) const { return vals_[static_cast<std::size_t>(step)]; }

 private:
  static std::string shape(const Tensor& t) { return std::to_string(t.rows) + "x" + std::to_string(t.cols); }
  static void convert(const Tensor& from, const Tensor& to, cudaStream_t stream) {
    visit(from.dt, [&]<class In>(In) {
      convert_kernel<In, bf16><<<grid_for(from.count()), 256, 0, stream>>>(static_cast<const In*>(from.p),
                                                                           static_cast<bf16*>(to.p), from.count());
    });
    CTMATCH_CUDA_CHECK_LAUNCH();
  }

  const Program& p_;
  MmWorkspace& ws_;
  DeviceArena arena_;
  std::vector<Tensor> vals_;
  std::vector<std::vector<Tensor>> bf16_operands_;
  std::vector<std::shared_ptr<tune::ChoiceCaller>> gemms_;  // the chosen kernel of each fused step
};

// ---- the float64 CPU evaluation (the seed graph's size) ----

double round_to(Dtype d, double v) {
  switch (d) {
    case Dtype::f32: return static_cast<float>(v);
    case Dtype::f16: return __half2float(__float2half_rn(static_cast<float>(v)));
    case Dtype::bf16: return __bfloat162float(__float2bfloat16_rn(static_cast<float>(v)));
  }
  return v;
}

/// The graph in float64, rounding only where it stores a dtype: operands converted to bf16 for
/// mm, and scale_cast's output dtype. The product itself is exact.
std::vector<double> cpu_reference(const Program& p, const std::map<std::string, Tensor>& inputs) {
  struct Host {
    std::vector<double> v;
    int rows = 0, cols = 0;
  };
  std::vector<Host> vals(p.steps.size());
  for (std::size_t i = 0; i < p.steps.size(); ++i) {
    const Step& s = p.steps[i];
    auto in = [&](std::size_t j) -> const Host& { return vals[static_cast<std::size_t>(s.in[j])]; };
    Host& o = vals[i];
    switch (s.kind) {
      case StepKind::input: {
        const Tensor& t = inputs.at(s.name);
        o = {download(t), t.rows, t.cols};
        break;
      }
      case StepKind::mm:
      case StepKind::mm_scale_cast: {
        const Host &a = in(0), &b = in(1);
        o = {std::vector<double>(static_cast<std::size_t>(a.rows) * b.cols), a.rows, b.cols};
        std::vector<double> bb(b.v.size());
        for (std::size_t j = 0; j < bb.size(); ++j) bb[j] = round_to(Dtype::bf16, b.v[j]);
        for (int r = 0; r < a.rows; ++r)
          for (int kk = 0; kk < a.cols; ++kk) {
            const double x = round_to(Dtype::bf16, a.v[static_cast<std::size_t>(r) * a.cols + kk]);
            const double* brow = &bb[static_cast<std::size_t>(kk) * b.cols];
            double* orow = &o.v[static_cast<std::size_t>(r) * b.cols];
            for (int c = 0; c < b.cols; ++c) orow[c] += x * brow[c];
          }
        if (s.kind == StepKind::mm) break;
        [[fallthrough]];
      }
      case StepKind::scale_cast: {
        if (s.kind == StepKind::scale_cast) o = in(0);
        for (double& x : o.v) {
          x *= s.scale;
          if (s.clamp) x = std::clamp(x, -1.0, 1.0);
          x = round_to(s.dtype, x);
        }
        break;
      }
      case StepKind::gelu_tanh:
        o = in(0);
        for (double& x : o.v) x = gelu_tanh(x);
        break;
      case StepKind::row_sum: {
        const Host& a = in(0);
        o = {std::vector<double>(static_cast<std::size_t>(a.rows)), a.rows, 1};
        for (int r = 0; r < a.rows; ++r)
          for (int c = 0; c < a.cols; ++c) o.v[static_cast<std::size_t>(r)] += a.v[static_cast<std::size_t>(r) * a.cols + c];
        break;
      }
    }
  }
  return vals[static_cast<std::size_t>(p.output)].v;
}

struct Deviation {
  double rel = 0;
  std::size_t nonfinite = 0;
};

/// ||x - ref|| / ||ref||, and how many elements of x are not finite (never written: poisoned).
Deviation relative_error(const std::vector<double>& x, const std::vector<double>& ref) {
  Deviation e;
  if (x.size() != ref.size()) return {1e300, x.size()};
  double num = 0, den = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i])) ++e.nonfinite;
    num += (x[i] - ref[i]) * (x[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  e.rel = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  return e;
}

bool report(const char* what, const Deviation& e) {
  const bool ok = e.nonfinite == 0 && e.rel < tolerance;
  std::printf("  %-34s relative error %.3e, %zu non-finite  %s\n", what, e.rel, e.nonfinite, ok ? "ok" : "MISMATCH");
  return ok;
}

/// Reads both programs' results, compares them (and with the CPU on small graphs), times both.
bool run_case(const char* title, const seed_e2e::RewrittenGraph& g, int batch, int hidden, bool cpu_check,
              MmWorkspace& ws, GemmChooser& chooser) {
  std::printf("%s\n%s", title, g.pass_report.c_str());
  if (g.mm_scale_cast_matches == 0 || !g.fused.of_kind(StepKind::mm).empty()) {
    std::printf("  MISMATCH: the rewrite left mm nodes (%zu mm_scale_cast matches)\n", g.mm_scale_cast_matches);
    return false;
  }
  DeviceArena arena;
  std::map<std::string, Tensor> inputs;
  unsigned seed = 7;
  for (const Step& s : g.unfused.steps) {
    if (s.kind != StepKind::input) continue;
    const bool is_x = s.name == "x";
    const Tensor t = arena.make(is_x ? batch : hidden, hidden, Dtype::bf16);
    ctmatch::cuda::detail::fill_never_zero<><<<1024, 256>>>(static_cast<std::uint16_t*>(t.p), t.count(), true, seed++);
    CTMATCH_CUDA_CHECK_LAUNCH();
    inputs.emplace(s.name, t);
  }
  CTMATCH_CUDA_CHECK(cudaDeviceSynchronize());

  Interpreter unfused(g.unfused, inputs, ws, nullptr);
  Interpreter fused(g.fused, inputs, ws, &chooser);
  Interpreter fused_template(g.fused, inputs, ws, &chooser, true);
  std::printf("  GEMM choices (autotuned):\n%s", fused.plan_summary().c_str());
  std::printf("  GEMM choices (fastest of our templates, epilogue fused in our kernel):\n%s", fused_template.plan_summary().c_str());
  unfused.run();
  fused.run();
  fused_template.run();
  CTMATCH_CUDA_CHECK(cudaDeviceSynchronize());

  bool ok = true;
  const auto out_u = download(unfused.value(g.unfused.output));
  const auto out_f = download(fused.value(g.fused.output));
  const auto out_t = download(fused_template.value(g.fused.output));
  ok &= report("output: fused vs unfused", relative_error(out_f, out_u));
  ok &= report("output: fused, our template vs unfused", relative_error(out_t, out_u));
  // the matrix the final sum reduces (the last gelu): every element, not only row sums
  const int last_u = g.unfused.steps[static_cast<std::size_t>(g.unfused.output)].in.at(0);
  const int last_f = g.fused.steps[static_cast<std::size_t>(g.fused.output)].in.at(0);
  const auto act_u = download(unfused.value(last_u));
  ok &= report("last activation: fused vs unfused", relative_error(download(fused.value(last_f)), act_u));
  ok &= report("last activation: our template vs unfused", relative_error(download(fused_template.value(last_f)), act_u));
  if (cpu_check) {
    const auto ref = cpu_reference(g.unfused, inputs);
    ok &= report("output: fused vs float64 CPU", relative_error(out_f, ref));
    ok &= report("output: unfused vs float64 CPU", relative_error(out_u, ref));
    ok &= report("output: fused, our template vs float64 CPU", relative_error(out_t, ref));
  }

  EventTimer timer;
  const TimerOptions opt{5, 30, true};
  const double ms_u = timer.median_ms([&] { unfused.run(); }, opt);
  const double ms_f = timer.median_ms([&] { fused.run(); }, opt);
  const double ms_t = timer.median_ms([&] { fused_template.run(); }, opt);
  std::printf("  time (median of %d, L2 flushed): unfused (cuBLAS + scale_cast + gelu kernels) %.4f ms, "
              "rewritten (mm_scale_cast + gelu) %.4f ms, ratio %.2fx; rewritten with our template forced %.4f ms\n",
              opt.reps, ms_u, ms_f, ms_u / ms_f, ms_t);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  std::string file = std::string(CTMATCH_TEST_DATA) + "/seed_mlp.export.json";
  std::string cache_path;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--cache" && i + 1 < argc) cache_path = argv[++i];
    else if (!a.empty() && a[0] != '-') file = a;
    else {
      std::fprintf(stderr, "usage: seed_end_to_end [GRAPH_FILE] [--cache FILE]\n");
      return 2;
    }
  }
  try {
    std::printf("device: %s\n", device_name().c_str());
    MmWorkspace ws;
    std::unique_ptr<tune::AutotuneCache> cache;
    if (!cache_path.empty()) cache = std::make_unique<tune::AutotuneCache>(cache_path);
    GemmChooser chooser(cache.get());
    bool ok = run_case(("seed graph " + file + " (x 64x512, weights 512x512)").c_str(),
                       seed_e2e::rewrite_graph_file(file), 64, 512, true, ws, chooser);
    ok &= run_case("built MLP: 4 layers, x 4096x4096, weights 4096x4096, scale_cast to bfloat16",
                   seed_e2e::rewrite_built_mlp(4, Dtype::bf16), 4096, 4096, false, ws, chooser);
    std::printf("%s\n", ok ? "seed_end_to_end: OK" : "seed_end_to_end: MISMATCH");
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "seed_end_to_end: error: %s\n", e.what());
    return 1;
  }
}
