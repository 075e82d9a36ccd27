// A user's own kernel template and heuristic, plugged into ctmatch's GEMM tuning.
//
// The template is a split-K GEMM for the host under the uid "mylib::mm_splitk" (the uid is part
// of its type). Its heuristic offers split factors only under max-autotune and only when K is
// long compared with the output. Registered under (uid, any device, op "mm"), its choices come
// out of get_mm_configs next to the built-in aten::mm and host::mm ones, and the autotuner
// times them all alike.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <ctmatch/tune.hpp>

using namespace ctmatch::tune;

// 1. The template: makes a runnable choice from its kwargs (here SPLIT_K).
class SplitKMm final : public KernelTemplateBase<"mylib::mm_splitk"> {
 public:
  std::shared_ptr<ChoiceCaller> choice_or_none(const ChoiceRequest& r) const override {
    const auto split = r.params.get_int("SPLIT_K");
    if (!split || *split < 1 || r.inputs.dtype() != DType::f32) return nullptr;
    const std::int64_t m = r.inputs.m(), n = r.inputs.n(), k = r.inputs.k(), s = *split;
    const auto as = r.inputs.mat1().strides, bs = r.inputs.mat2().strides;
    return std::make_shared<FunctionChoiceCaller>(std::string(uid()), r.params.merged(r.extra_kwargs),
                                                  [=](const Buffers& buf) {
      const auto* a = static_cast<const float*>(buf.inputs.at(0));
      const auto* b = static_cast<const float*>(buf.inputs.at(1));
      auto* out = static_cast<float*>(buf.output);
      std::vector<float> partial(static_cast<std::size_t>(m * n));
      for (std::int64_t i = 0; i < m * n; ++i) out[i] = 0;
      const std::int64_t chunk = (k + s - 1) / s;
      for (std::int64_t k0 = 0; k0 < k; k0 += chunk) {  // each slice of K on its own, then reduced
        std::fill(partial.begin(), partial.end(), 0.0f);
        for (std::int64_t i = 0; i < m; ++i)
          for (std::int64_t kk = k0; kk < std::min(k, k0 + chunk); ++kk)
            for (std::int64_t j = 0; j < n; ++j) partial[static_cast<std::size_t>(i * n + j)] += a[i * as[0] + kk * as[1]] * b[kk * bs[0] + j * bs[1]];
        for (std::int64_t i = 0; i < m * n; ++i) out[i] += partial[static_cast<std::size_t>(i)];
      }
    });
  }
};

// 2. The heuristic: which configs to offer for a problem.
class SplitKHeuristic final : public TemplateConfigHeuristic {
 public:
  bool should_run(const HeuristicContext& ctx) const override { return ctx.options.gemm_max_autotune(); }

 protected:
  std::vector<Kwargs> template_configs_impl(const HeuristicContext& ctx) const override {
    std::vector<Kwargs> out;
    if (ctx.inputs.k() < 4 * std::max(ctx.inputs.m(), ctx.inputs.n())) return out;  // not worth splitting
    for (int split : {2, 4, 8}) out.push_back(Kwargs{}.set("SPLIT_K", split));
    return out;
  }
};

// 3. The registration, as a type: a second heuristic under the same key would not compile.
using MyHeuristics = StaticHeuristics<HeuristicRegistration<"mylib::mm_splitk", any, "mm", SplitKHeuristic>>;

int main() {
  MyHeuristics::install(default_heuristic_registry());

  host::HostAtenMm aten_mm;
  host::HostMmTemplate host_mm;
  SplitKMm splitk;
  DynamicTemplateRegistry templates;  // find any template by uid later (e.g. from a cache entry)
  for (const KernelTemplate* t : {static_cast<const KernelTemplate*>(&aten_mm), static_cast<const KernelTemplate*>(&host_mm),
                                  static_cast<const KernelTemplate*>(&splitk)})
    templates.add(*t);

  TuneOptions options;
  options.max_autotune = true;
  const auto inputs = MMKernelInputs::mm(24, 20, 640, DType::f32, "host");  // long K: split-K applies
  const auto choices = get_mm_configs(inputs, {&aten_mm, &host_mm, &splitk}, "mm", {}, options);

  int splitk_choices = 0;
  for (const auto& c : choices) {
    std::printf("%-18s %s\n", std::string(c.uid()).c_str(), to_string(c.all_kwargs()).c_str());
    splitk_choices += c.uid() == "mylib::mm_splitk";
  }
  if (splitk_choices != 3) {
    std::fprintf(stderr, "expected 3 mylib::mm_splitk choices, got %d\n", splitk_choices);
    return 1;
  }

  HostRunner runner;
  Autotuner tuner(runner, nullptr, AutotuneSettings{1, 3});
  const auto made = make_choices(choices);
  const auto result = tuner.tune("mm", inputs, made);
  std::printf("winner: %s (%.4f ms), its template found by uid: %s\n", result.winner->description().c_str(), result.ms,
              std::string(templates.get(result.winner->uid()).uid()).c_str());

  // Every choice computes the same product: compare each with the first.
  const Buffers buf = runner.prepare(inputs, inputs.output_layout());
  std::vector<float> first(static_cast<std::size_t>(inputs.m() * inputs.n()));
  for (std::size_t c = 0; c < made.size(); ++c) {
    made[c]->run(buf);
    const auto* out = static_cast<const float*>(buf.output);
    for (std::size_t i = 0; i < first.size(); ++i) {
      if (c == 0) first[i] = out[i];
      else if (std::abs(out[i] - first[i]) > 1e-3f * (1 + std::abs(first[i]))) {
        std::fprintf(stderr, "%s disagrees at %zu\n", made[c]->description().c_str(), i);
        return 1;
      }
    }
  }
  std::printf("%zu choices agree\n", made.size());
  return 0;
}
