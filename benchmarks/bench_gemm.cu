// bench_gemm: bf16 GEMMs on the GPU for the shapes of the reference script (gemm_anchor.py),
// measured in one process: cuBLAS mm, the best cuda::mm (mma.sync) and cuda::mm_wgmma (Hopper
// TMA + wgmma) configs, the unfused pair (cuBLAS then our scale/clamp/cast kernel), the best
// fused kernel of ours and the autotuned seedlib::mm_scale_cast (scale 0.5, clamp,
// float16 out, as the reference's `((a @ b) * 0.5).clamp(-1, 1).to(float16)`).
//
// A plain timing table, not Google Benchmark: every figure is a median of CUDA-event timings
// with the L2 flushed before each run (cuda::EventTimer, the autotuner's own timer), which is
// how triton.testing.do_bench times the reference. Usage: bench_gemm [results.json]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <ctmatch/cuda.hpp>

using namespace ctmatch::cuda;
using ctmatch::ScalarType;
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
// Likewise for cuda::mm_wgmma (Inductor's persistent TMA list).
constexpr auto bench_wlist = [] {
  ctmatch::tune::ConfigList<64> out;
  for (const Shape& s : shapes)
    for (const GemmConfig& c :
         ctmatch::tune::preprocess_mm_configs(s.m, s.n, s.k, ctmatch::tune::persistent_mm_configs))
      if (wgmma_supported(c) && !out.contains(c)) out.push_back(c);
  return out;
}();
constexpr auto bench_wconfigs = ctmatch::tune::to_array<bench_wlist.size()>(bench_wlist);
#else
constexpr auto bench_configs = mma_sync_configs;
constexpr auto bench_wconfigs = wgmma_configs;
#endif

// Fills a bf16 buffer with values in +-[0.1, 1] (never zero: zeros make GEMMs look faster).
__global__ void fill_random(bf16* p, std::size_t n, unsigned seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    unsigned x = static_cast<unsigned>(i) * 2654435761u ^ seed;
    x ^= x >> 13; x *= 0x5bd1e995u; x ^= x >> 15;
    const float mag = 0.1f + 0.9f * (x & 0xffffff) / float(0xffffff);
    p[i] = __float2bfloat16_rn((x >> 31) ? -mag : mag);
  }
}

template <class T>
T* device_alloc(std::size_t n) {
  T* p = nullptr;
  CTMATCH_CUDA_CHECK(cudaMalloc(&p, sizeof(T) * n));
  return p;
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

}  // namespace

int main(int argc, char** argv) try {
  const std::string json_path = argc > 1 ? argv[1] : "bench_gemm.json";
  const std::string dev = device_name();
  std::printf("device: %s; configs in this build (bench set): cuda::mm %zu, cuda::mm_wgmma %zu\n", dev.c_str(),
              bench_configs.size(), bench_wconfigs.size());
  MmWorkspace ws;
  EventTimer timer;
  const TimerOptions measure{10, 50, true};
  const TimerOptions tune_opt{3, 15, true};
  const std::string cache_path = "bench_gemm_autotune.cache";
  std::remove(cache_path.c_str());
  AutotuneCache cache(cache_path);

  std::ofstream json(json_path);
  json << "{\"device\": \"" << dev << "\", \"rows\": [\n";
  std::vector<std::string> table;
  bool first_row = true;
  for (const Shape& s : shapes) {
    const std::size_t na = std::size_t(s.m) * s.k, nb = std::size_t(s.k) * s.n,
                      nc = std::size_t(s.m) * s.n;
    bf16* a = device_alloc<bf16>(na);
    bf16* b = device_alloc<bf16>(nb);
    bf16* c = device_alloc<bf16>(nc);
    f16* out = device_alloc<f16>(nc);
    f16* out_ref = device_alloc<f16>(nc);
    fill_random<<<1024, 256>>>(a, na, 1u + s.m);
    fill_random<<<1024, 256>>>(b, nb, 7u + s.n);
    CTMATCH_CUDA_CHECK_LAUNCH();
    const MmOperands<bf16> op{a, b, s.m, s.n, s.k, s.k, s.n};
    const double flops = 2.0 * s.m * s.n * s.k;
    const epilogue::Identity<bf16> ident{c, s.n};
    const epilogue::ScaleCast<f16> sc{out, s.n, 0.5f, true};

    // every run goes through run_mm_choice with this build's bench sets
    auto run_ident = [&](const MmChoice& ch) {
      run_mm_choice<bf16, epilogue::Identity<bf16>, bench_configs, bench_wconfigs>(ch, ws, op, ident, nullptr);
    };
    auto run = [&](const MmChoice& ch) {
      run_mm_choice<bf16, epilogue::ScaleCast<f16>, bench_configs, bench_wconfigs>(ch, ws, op, sc, nullptr);
    };
    const MmChoice aten{aten_mm_uid, {}};
    const double t_cublas = timer.median_ms([&] { run_ident(aten); }, measure);
    const double t_unfused = timer.median_ms([&] { run(aten); }, measure);
    // the unfused result is the reference for the fused ones (same function, bf16 between)
    CTMATCH_CUDA_CHECK(cudaMemcpy(out_ref, out, nc * sizeof(f16), cudaMemcpyDeviceToDevice));

    // every config of our templates the heuristics offer: plain mm, and with the epilogue fused
    const auto choices = mm_choices<bench_configs, bench_wconfigs>(s.m, s.n, s.k, {s.k, 1}, {s.n, 1});
    double best_mm = 1e300, best_wg = 1e300, best_fused = 1e300;
    MmChoice best_mm_ch{}, best_wg_ch{}, best_fused_ch{};
    for (const MmChoice& ch : choices) {
      if (ch.uid == aten_mm_uid) continue;
      const double t = timer.median_ms([&] { run_ident(ch); }, tune_opt);
      const double tf = timer.median_ms([&] { run(ch); }, tune_opt);
      if (ch.uid == cuda_mm_uid && t < best_mm) { best_mm = t; best_mm_ch = ch; }
      if (ch.uid == cuda_mm_wgmma_uid && t < best_wg) { best_wg = t; best_wg_ch = ch; }
      if (tf < best_fused) { best_fused = tf; best_fused_ch = ch; }
    }
    // re-measure the winners with the full repetitions (the fused one and the same kernel
    // without the epilogue back to back, so that the epilogue cost compares like with like)
    best_mm = timer.median_ms([&] { run_ident(best_mm_ch); }, measure);
    const bool have_wg = best_wg_ch.uid == cuda_mm_wgmma_uid;
    if (have_wg) best_wg = timer.median_ms([&] { run_ident(best_wg_ch); }, measure);
    const double fused_same_cfg_mm = timer.median_ms([&] { run_ident(best_fused_ch); }, measure);
    best_fused = timer.median_ms([&] { run(best_fused_ch); }, measure);

    // the autotuned mm_scale_cast: cache miss (times every choice), then a hit
    const std::string key = autotune_key("mm_scale_cast", s.m, s.n, s.k, {s.k, 1}, {s.n, 1},
                                         ScalarType::BFloat16, "dtype=float16 clamp=1", dev);
    const auto miss = autotune(choices, key, cache, timer, run, tune_opt);
    const auto t_hit0 = std::chrono::steady_clock::now();
    const auto hit = autotune(choices, key, cache, timer, run, tune_opt);
    const double hit_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_hit0).count();
    const double t_tuned = timer.median_ms([&] { run(miss.best); }, measure);
    CTMATCH_CUDA_CHECK(cudaMemset(out, 0xFF, nc * sizeof(f16)));
    run(miss.best);
    CTMATCH_CUDA_CHECK(cudaDeviceSynchronize());
    const double err_tuned = rel_err(out, out_ref, nc);
    CTMATCH_CUDA_CHECK(cudaMemset(out, 0xFF, nc * sizeof(f16)));
    run(best_fused_ch);
    CTMATCH_CUDA_CHECK(cudaDeviceSynchronize());
    const double err_fused = rel_err(out, out_ref, nc);

    char wg[160] = "—";
    if (have_wg)
      std::snprintf(wg, sizeof wg, "%.3f (%.0f) %.2f× `%s`", best_wg, flops / best_wg / 1e9, t_cublas / best_wg,
                    to_string(best_wg_ch.config).c_str());
    char line[768];
    std::snprintf(line, sizeof line,
                  "| %d×%d×%d | %.3f (%.0f) | %.3f (%.0f) %.2f× `%s` | %s | %.3f | %.3f `%s` (%+.1f%%) | "
                  "%.3f `%s` | %.2f s / %.4f s |",
                  s.m, s.n, s.k, t_cublas, flops / t_cublas / 1e9, best_mm, flops / best_mm / 1e9,
                  t_cublas / best_mm, to_string(best_mm_ch.config).c_str(), wg, t_unfused, best_fused,
                  to_string(best_fused_ch).c_str(), 100.0 * (best_fused / fused_same_cfg_mm - 1.0),
                  t_tuned, to_string(miss.best).c_str(), miss.seconds, hit_s);
    table.push_back(line);
    std::printf("%s\n  rel err vs unfused: fused %.2e, autotuned %.2e; choices %zu (failed %zu); hit=%d\n",
                line, err_fused, err_tuned, choices.size(), miss.failed.size(), int(hit.cache_hit));
    std::fflush(stdout);
    json << (first_row ? "" : ",\n") << "{\"m\": " << s.m << ", \"n\": " << s.n << ", \"k\": " << s.k
         << ", \"cublas_ms\": " << t_cublas << ", \"cuda_mm_best_ms\": " << best_mm
         << ", \"cuda_mm_best_config\": \"" << to_string(best_mm_ch.config) << "\", \"cuda_mm_wgmma_best_ms\": "
         << (have_wg ? best_wg : -1.0) << ", \"cuda_mm_wgmma_best_config\": \""
         << (have_wg ? to_string(best_wg_ch.config) : std::string()) << "\", \"unfused_ms\": " << t_unfused
         << ", \"fused_best_ms\": " << best_fused << ", \"fused_best_choice\": \"" << to_string(best_fused_ch)
         << "\", \"fused_same_config_mm_ms\": " << fused_same_cfg_mm << ", \"autotuned_ms\": " << t_tuned
         << ", \"autotuned_choice\": \"" << to_string(miss.best) << "\", \"autotune_miss_s\": " << miss.seconds
         << ", \"autotune_hit_s\": " << hit_s << ", \"choices\": " << choices.size()
         << ", \"rel_err_fused\": " << err_fused << ", \"rel_err_autotuned\": " << err_tuned << ", \"timings\": [";
    for (std::size_t i = 0; i < miss.timings.size(); ++i)
      json << (i ? ", " : "") << "[\"" << to_string(miss.timings[i].first) << "\", " << miss.timings[i].second << "]";
    json << "]}";
    first_row = false;
    for (void* p : {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(c),
                    static_cast<void*>(out), static_cast<void*>(out_ref)})
      CTMATCH_CUDA_CHECK(cudaFree(p));
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
