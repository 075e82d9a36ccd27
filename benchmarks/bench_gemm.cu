// bench_gemm: bf16 GEMMs on the GPU for the shapes of the reference script (gemm_anchor.py),
// measured in one process: cuBLAS mm, the best cuda::mm (mma.sync) and cuda::mm_wgmma (Hopper
// TMA + wgmma) configs, the unfused pair (cuBLAS then our scale/clamp/cast kernel), the best
// fused kernel of ours and the autotuned seedlib::mm_scale_cast (scale 0.5, clamp,
// float16 out, as the reference's `((a @ b) * 0.5).clamp(-1, 1).to(float16)`).
//
// The choices are what tune::get_mm_configs offers with the CUDA heuristics and templates
// (tune_backend.hpp), and the autotuned column is tune::Autotuner with the CUDA runner and
// tune::AutotuneCache: the library's own path, cache miss then hit.
//
// A plain timing table, not Google Benchmark: every figure is a median of CUDA-event timings
// with the L2 flushed before each run (CudaTimer, the autotuner's own timer), which is how
// triton.testing.do_bench times the reference. Usage: bench_gemm [results.json]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <ctmatch/cuda.hpp>
#include <ctmatch/tune/autotune/autotuner.hpp>
#include <ctmatch/tune/choices.hpp>

using namespace ctmatch::cuda;
namespace tune = ctmatch::tune;
using ctmatch::tune::GemmConfig;

namespace {

struct Shape { int m, n, k; };
constexpr Shape shapes[] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {64, 4096, 4096},
                            {1024, 4096, 1024}, {16384, 1024, 4096}};

#ifdef CTMATCH_CUDA_FULL_CONFIGS
// Every config the heuristic can offer for these shapes (and the template runs): the same
// choices the autotuner has in a full build, without compiling all 260 configs here.
constexpr auto bench_list = [] {
  ctmatch::tune::ConfigList<256> out;
  for (const Shape& s : shapes)
    for (const GemmConfig& c :
         ctmatch::tune::preprocess_mm_configs(s.m, s.n, s.k, ctmatch::tune::default_mm_configs))
      if (mma_sync_supported(c) && !out.contains(c)) out.push_back(c);
  return out;
}();
constexpr auto bench_configs = ctmatch::tune::to_array<bench_list.size()>(bench_list);
// Likewise for cuda::mm_wgmma: the kernels its heuristic builds on Inductor's persistent TMA
// list for these shapes (wgmma_offered_kernels), each with its twins (wgmma_twins).
constexpr auto bench_wlist = [] {
  ctmatch::tune::ConfigList<256> out;
  auto add = [&](GemmConfig c) {
    if (wgmma_supported(c) && !out.contains(c)) out.push_back(c);
  };
  for (const Shape& s : shapes)
    for (const GemmConfig& listed : ctmatch::tune::preprocess_mm_configs(s.m, s.n, s.k, ctmatch::tune::persistent_mm_configs))
      for (const GemmConfig& kernel : wgmma_offered_kernels(listed, s.m)) {
        add(kernel);
        for (const GemmConfig& twin : wgmma_twins(kernel, s.m)) add(twin);
      }
  return out;
}();
constexpr auto bench_wconfigs = ctmatch::tune::to_array<bench_wlist.size()>(bench_wlist);
#else
constexpr auto bench_configs = mma_sync_configs;
constexpr auto bench_wconfigs = wgmma_configs;
#endif

// Only what is measured is instantiated: bf16 inputs, float16 out of the fused epilogue.
using Outs = boost::mp11::mp_list<f16>;
using Ins = boost::mp11::mp_list<bf16>;
using Choices = std::vector<std::shared_ptr<tune::ChoiceCaller>>;

std::string config_label(const tune::ChoiceCaller& c) {
  const auto cfg = tune::gemm_config_of(c.kwargs());
  return cfg ? to_string(*cfg) : std::string();
}

/// The index of the fastest choice whose uid is `uid` (any but aten::mm when empty), or npos.
std::size_t best_of(const Choices& choices, const std::vector<double>& ms, std::string_view uid) {
  std::size_t best = std::string::npos;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    const bool match = uid.empty() ? choices[i]->uid() != aten_mm_uid : choices[i]->uid() == uid;
    if (match && !std::isnan(ms[i]) && (best == std::string::npos || ms[i] < ms[best])) best = i;
  }
  return best;
}

double rel_err(const f16* x, const f16* ref, std::size_t n) {
  std::vector<f16> hx(n), hr(n);
  CTMATCH_CUDA_CHECK(cudaMemcpy(hx.data(), x, n * sizeof(f16), cudaMemcpyDeviceToHost));
  CTMATCH_CUDA_CHECK(cudaMemcpy(hr.data(), ref, n * sizeof(f16), cudaMemcpyDeviceToHost));
  double num = 0, den = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double a = to_float(hx[i]), b = to_float(hr[i]);
    if (!std::isfinite(a)) return INFINITY;
    num += (a - b) * (a - b);
    den += b * b;
  }
  return std::sqrt(num / den);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) try {
  const std::string json_path = argc > 1 ? argv[1] : "bench_gemm.json";
  const std::string dev = device_name();
  std::printf("device: %s; configs in this build (bench set): cuda::mm %zu, cuda::mm_wgmma %zu\n", dev.c_str(),
              bench_configs.size(), bench_wconfigs.size());
  const CublasMmExtern<Outs, Ins> t_aten;
  const CudaMmTemplate<bench_configs, Outs, Ins> t_mm;
  const CudaMmWgmmaTemplate<bench_wconfigs, Outs, Ins> t_wgmma;
  const tune::TemplateStack stack{&t_aten, &t_mm, &t_wgmma};
  const tune::Choices offer(tune::TuneOptions::sm90(true), cuda_heuristic_registry());
  CudaRunner runner;
  tune::Timer& timer = runner.timer();
  // the final figures: 10 warm-ups, 50 timed runs
  auto measure = [&](tune::ChoiceCaller& c, const tune::Buffers& b) {
    return tune::median(timer.measure_ms([&] { c.run(b); }, 10, 50));
  };
  // every choice timed in full (no pruning, no rematch), to find the best of each template
  tune::Autotuner survey(runner, nullptr, {3, 15, 0, 0});
  const std::string cache_path = "bench_gemm_autotune.cache";
  std::remove(cache_path.c_str());
  tune::AutotuneCache cache(cache_path);
  tune::Autotuner tuner(runner, &cache, {3, 15});
  const std::string op = "seedlib::mm_scale_cast";

  std::ofstream json(json_path);
  json << "{\"device\": \"" << dev << "\", \"rows\": [\n";
  std::vector<std::string> table;
  bool first_row = true;
  for (const Shape& s : shapes) {
    const std::size_t nc = std::size_t(s.m) * s.n;
    const double flops = 2.0 * s.m * s.n * s.k;
    // plain mm (bf16 out), and the fused op: ((a @ b) * 0.5).clamp(-1, 1).to(float16)
    const auto plain_in = tune::MMKernelInputs::mm(s.m, s.n, s.k, tune::DType::bf16, "cuda");
    auto fused_in = plain_in;
    fused_in.set_out_dtype(tune::DType::f16);
    fused_in.set_scalar("scale", 0.5).set_scalar("clamp", 1);
    const Choices plain = tune::make_choices(offer.get_mm_configs(plain_in, stack, "mm"));
    const Choices fused = tune::make_choices(offer.get_mm_configs(fused_in, stack, "mm"));
    if (plain.empty() || fused.empty() || plain[0]->uid() != aten_mm_uid || fused[0]->uid() != aten_mm_uid)
      throw Error("no cuBLAS choice for " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k));

    const auto sp = survey.tune("mm", plain_in, plain);
    const auto sf = survey.tune(op, fused_in, fused);
    const std::size_t i_mm = best_of(plain, sp.median_ms, cuda_mm_uid);
    const std::size_t i_wg = best_of(plain, sp.median_ms, cuda_mm_wgmma_uid);
    const std::size_t i_fused = best_of(fused, sf.median_ms, "");
    if (i_mm == std::string::npos || i_fused == std::string::npos) throw Error("no cuda::mm choice ran");
    const bool have_wg = i_wg != std::string::npos;
    // the same kernel as the best fused one, without the epilogue
    std::size_t i_same = std::string::npos;
    for (std::size_t i = 0; i < plain.size(); ++i)
      if (plain[i]->uid() == fused[i_fused]->uid() &&
          tune::gemm_config_of(plain[i]->kwargs()) == tune::gemm_config_of(fused[i_fused]->kwargs()))
        i_same = i;
    if (i_same == std::string::npos) throw Error("the best fused choice has no plain twin");

    // the autotuned mm_scale_cast: cache miss (tunes), then a hit (reads the file's entry)
    const auto t_miss0 = std::chrono::steady_clock::now();
    const auto miss = tuner.tune(op, fused_in, fused);
    const double miss_s = seconds_since(t_miss0);
    const auto t_hit0 = std::chrono::steady_clock::now();
    const auto hit = tuner.tune(op, fused_in, fused);
    const double hit_s = seconds_since(t_hit0);

    // the final figures, with the full repetitions
    const tune::Buffers bp = runner.prepare(plain_in, plain_in.output_layout());
    const double t_cublas = measure(*plain[0], bp);
    const double best_mm = measure(*plain[i_mm], bp);
    const double best_wg = have_wg ? measure(*plain[i_wg], bp) : -1.0;
    const double fused_same_cfg_mm = measure(*plain[i_same], bp);
    const tune::Buffers bf = runner.prepare(fused_in, fused_in.output_layout());  // bp is gone
    const double best_fused = measure(*fused[i_fused], bf);
    const double t_unfused = measure(*fused[0], bf);
    const double t_tuned = measure(*miss.winner, bf);

    // the unfused result is the reference for the fused ones (same function, bf16 between)
    f16* out = static_cast<f16*>(bf.output);
    f16* out_ref = nullptr;
    CTMATCH_CUDA_CHECK(cudaMalloc(&out_ref, nc * sizeof(f16)));
    auto poisoned_run = [&](tune::ChoiceCaller& c) {
      CTMATCH_CUDA_CHECK(cudaMemset(out, 0xFF, nc * sizeof(f16)));
      c.run(bf);
      CTMATCH_CUDA_CHECK(cudaDeviceSynchronize());
    };
    poisoned_run(*fused[0]);
    CTMATCH_CUDA_CHECK(cudaMemcpy(out_ref, out, nc * sizeof(f16), cudaMemcpyDeviceToDevice));
    poisoned_run(*miss.winner);
    const double err_tuned = rel_err(out, out_ref, nc);
    poisoned_run(*fused[i_fused]);
    const double err_fused = rel_err(out, out_ref, nc);
    CTMATCH_CUDA_CHECK(cudaFree(out_ref));

    char wg[160] = "—";
    if (have_wg)
      std::snprintf(wg, sizeof wg, "%.3f (%.0f) %.2f× `%s`", best_wg, flops / best_wg / 1e9, t_cublas / best_wg,
                    config_label(*plain[i_wg]).c_str());
    char line[768];
    std::snprintf(line, sizeof line,
                  "| %d×%d×%d | %.3f (%.0f) | %.3f (%.0f) %.2f× `%s` | %s | %.3f | %.3f `%s` (%+.1f%%) | "
                  "%.3f `%s` | %.2f s / %.4f s |",
                  s.m, s.n, s.k, t_cublas, flops / t_cublas / 1e9, best_mm, flops / best_mm / 1e9,
                  t_cublas / best_mm, config_label(*plain[i_mm]).c_str(), wg, t_unfused, best_fused,
                  choice_label(*fused[i_fused]).c_str(), 100.0 * (best_fused / fused_same_cfg_mm - 1.0), t_tuned,
                  choice_label(*miss.winner).c_str(), miss_s, hit_s);
    table.push_back(line);
    std::printf("%s\n  rel err vs unfused: fused %.2e, autotuned %.2e; choices %zu (pruned %zu, rematched %zu, "
                "failed %zu); hit=%d\n",
                line, err_fused, err_tuned, fused.size(), miss.pruned, miss.rematched, miss.failed.size(),
                int(hit.from_cache));
    for (const auto& f : miss.failed) std::printf("  failed %s: %s\n", f.description.c_str(), f.message.c_str());
    std::fflush(stdout);
    json << (first_row ? "" : ",\n") << "{\"m\": " << s.m << ", \"n\": " << s.n << ", \"k\": " << s.k
         << ", \"cublas_ms\": " << t_cublas << ", \"cuda_mm_best_ms\": " << best_mm
         << ", \"cuda_mm_best_config\": \"" << config_label(*plain[i_mm]) << "\", \"cuda_mm_wgmma_best_ms\": "
         << best_wg << ", \"cuda_mm_wgmma_best_config\": \"" << (have_wg ? config_label(*plain[i_wg]) : std::string())
         << "\", \"unfused_ms\": " << t_unfused << ", \"fused_best_ms\": " << best_fused
         << ", \"fused_best_choice\": \"" << choice_label(*fused[i_fused]) << "\", \"fused_same_config_mm_ms\": "
         << fused_same_cfg_mm << ", \"autotuned_ms\": " << t_tuned << ", \"autotuned_choice\": \""
         << choice_label(*miss.winner) << "\", \"autotune_miss_s\": " << miss_s << ", \"autotune_hit_s\": " << hit_s
         << ", \"choices\": " << fused.size() << ", \"pruned\": " << miss.pruned << ", \"rematched\": "
         << miss.rematched << ", \"failed\": " << miss.failed.size() << ", \"rel_err_fused\": " << err_fused
         << ", \"rel_err_autotuned\": " << err_tuned << ", \"timings\": [";
    for (std::size_t i = 0; i < fused.size(); ++i)  // the autotuner's medians (a probe for a pruned choice)
      json << (i ? ", " : "") << "[\"" << choice_label(*fused[i]) << "\", "
           << (std::isnan(miss.median_ms[i]) ? -1.0 : miss.median_ms[i]) << "]";
    json << "]}";
    first_row = false;
  }
  json << "\n]}\n";
  std::printf("\nms, median (TFLOP/s); bf16 in; epilogue: *0.5, clamp [-1, 1], -> float16\n");
  std::printf("| M×N×K | cuBLAS mm | best cuda::mm (vs cuBLAS) | best cuda::mm_wgmma (vs cuBLAS) | unfused cuBLAS + epilogue | best fused of ours (epilogue cost) | autotuned mm_scale_cast | autotune miss / hit |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const auto& l : table) std::printf("%s\n", l.c_str());
  std::remove(cache_path.c_str());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_gemm: %s\n", e.what());
  return 1;
}
