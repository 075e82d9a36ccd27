// get_mm_configs: lazy KernelTemplateChoices, the finalize hook, kwarg overrides, max-autotune
// gating and the aten heuristics, and the two example overrides.
#include <doctest/doctest.h>

#include <string>

#include <ctmatch/tune/choices.hpp>
#include <ctmatch/tune/finalize_overrides.hpp>
#include <ctmatch/tune/uids.hpp>

using namespace ctmatch::tune;

namespace {
/// A template that counts how often a choice is generated from it.
template <fixed_string Uid, TemplateKind Kind = TemplateKind::Template>
struct Counting : KernelTemplateBase<Uid, Kind> {
  mutable int generated = 0;
  std::shared_ptr<ChoiceCaller> choice_or_none(const ChoiceRequest& r) const override {
    ++generated;
    return std::make_shared<FunctionChoiceCaller>(std::string(this->uid()), r.params.merged(r.extra_kwargs),
                                                  [](const Buffers&) {});
  }
};
using CountingCudaMm = Counting<uids::cuda_mm>;
using CountingAtenMm = Counting<uids::aten_mm, TemplateKind::Extern>;
using CountingAtenAddmm = Counting<uids::aten_addmm, TemplateKind::Extern>;
using CountingBiasAddmm = Counting<uids::aten_bias_addmm, TemplateKind::Extern>;

TuneOptions max_autotune() {
  TuneOptions o;
  o.max_autotune = true;
  return o;
}

/// Keeps every other template choice: a hook that prunes.
struct KeepEveryOther : Choices {
  using Choices::Choices;
  mutable std::size_t seen = 0;
  mutable bool any_generated_when_seen = false;

 protected:
  std::vector<KernelTemplateChoice> finalize_template_configs(std::vector<TemplateChoices>& tcs, const MMKernelInputs&,
                                                              const TemplateStack&, std::string_view,
                                                              const KwargOverrides&) const override {
    std::vector<KernelTemplateChoice> out;
    for (auto& tc : tcs)
      for (std::size_t i = 0; i < tc.choices.size(); ++i) {
        ++seen;
        any_generated_when_seen |= tc.choices[i].generated();
        if (i % 2 == 0) out.push_back(tc.choices[i]);
      }
    return out;
  }
};
}  // namespace

TEST_CASE("choices are lazy: nothing is generated until asked, and only once") {
  CountingCudaMm cuda;
  CountingAtenMm aten;
  const auto in = MMKernelInputs::mm(4096, 4096, 4096, DType::bf16, "cuda");
  auto choices = get_mm_configs(in, {&aten, &cuda}, "mm", {}, max_autotune());
  REQUIRE(choices.size() == 21);  // aten::mm's one + cuda::mm's 20
  CHECK(choices[0].uid() == "aten::mm");
  CHECK(choices[0].params().empty());
  CHECK(choices[1].uid() == "cuda::mm");
  CHECK(cuda.generated == 0);
  CHECK(aten.generated == 0);
  auto made = choices[3].choice();
  REQUIRE(made);
  CHECK(made->kwargs() == choices[3].all_kwargs());
  (void)choices[3].choice();
  CHECK(cuda.generated == 1);
  CHECK(make_choices(choices).size() == 21);
  CHECK(cuda.generated == 20);
  CHECK(aten.generated == 1);
}

TEST_CASE("choices pruned by the finalize hook are never generated") {
  CountingCudaMm cuda;
  CountingAtenMm aten;
  KeepEveryOther hook(max_autotune());
  const auto in = MMKernelInputs::mm(100, 300, 50, DType::f32, "cuda");
  auto kept = hook.get_mm_configs(in, {&aten, &cuda}, "mm");
  CHECK(hook.seen == 21);  // the hook saw every choice first
  CHECK_FALSE(hook.any_generated_when_seen);
  CHECK(kept.size() == 1 + 10);
  const auto made = make_choices(kept);
  CHECK(made.size() == kept.size());
  CHECK(cuda.generated == 10);  // the 10 dropped cuda::mm choices never were
  CHECK(aten.generated == 1);
}

TEST_CASE("kwarg overrides replace per-config kwargs of their uid only, never extra kwargs") {
  CountingCudaMm cuda;
  CountingAtenAddmm aten;
  auto in = MMKernelInputs::addmm(256, 256, 256, DType::bf16, "cuda", false, 0.5, 2.0);
  KwargOverrides ov;
  ov["cuda::mm"] = Kwargs{{"num_stages", KwargValue(std::int64_t{7})}, {"alpha", KwargValue(9.0)},
                          {"EVEN_K", KwargValue(true)}};
  auto choices = get_mm_configs(in, {&aten, &cuda}, "addmm", ov, max_autotune());
  REQUIRE(choices.size() == 21);
  CHECK(choices[0].uid() == "aten::addmm");
  CHECK_FALSE(choices[0].params().contains("num_stages"));  // another uid: untouched
  for (std::size_t i = 1; i < choices.size(); ++i) {
    const auto& c = choices[i];
    CHECK(c.params().get_int("num_stages") == 7);       // replaced in place
    CHECK(c.params().get_int("BLOCK_M").has_value());    // the rest kept
    CHECK(c.params().find("EVEN_K") != nullptr);          // new keys appended
    CHECK(c.extra_kwargs().get_double("alpha") == 0.5);  // extra kwargs not overridden
    CHECK(c.extra_kwargs().get_double("beta") == 2.0);
  }
  // order of the params is Inductor's: the override replaced num_stages where it was
  auto it = choices[1].params().begin();
  CHECK(it->first == "BLOCK_M");
  std::advance(it, 3);
  CHECK(it->first == "num_stages");
  // the made choice sees params then extra kwargs; the extra alpha wins over the override's
  CHECK(choices[1].choice()->kwargs().get_double("alpha") == 0.5);
}

TEST_CASE("without max-autotune only extern choices are offered") {
  CountingCudaMm cuda;
  CountingAtenMm aten;
  const auto in = MMKernelInputs::mm(512, 512, 512, DType::bf16, "cuda");
  auto plain = get_mm_configs(in, {&aten, &cuda}, "mm");
  REQUIRE(plain.size() == 1);
  CHECK(plain[0].uid() == "aten::mm");
  TuneOptions gemm_only;
  gemm_only.max_autotune_gemm = true;
  CHECK(get_mm_configs(in, {&aten, &cuda}, "mm", {}, gemm_only).size() == 21);
}

TEST_CASE("aten heuristics: one empty config; addmm adds alpha and beta as extra kwargs") {
  CountingAtenMm mm;
  CountingAtenAddmm addmm;
  const auto in = MMKernelInputs::mm(7, 9, 11, DType::f32, "host");
  auto a = get_mm_configs(in, {&mm}, "mm");
  REQUIRE(a.size() == 1);
  CHECK(a[0].params().empty());
  CHECK(a[0].extra_kwargs().empty());
  const auto add_in = MMKernelInputs::addmm(7, 9, 11, DType::f32, "host", false, 0.25, 3.0);
  auto b = get_mm_configs(add_in, {&addmm}, "addmm");
  REQUIRE(b.size() == 1);
  CHECK(b[0].params().empty());
  CHECK(b[0].extra_kwargs().get_double("alpha") == 0.25);
  CHECK(b[0].extra_kwargs().get_double("beta") == 3.0);
  CHECK(to_string(b[0].extra_kwargs()) == "alpha=0.25, beta=3.0");
}

TEST_CASE("bias_addmm: only under max-autotune and only for a broadcast (stride-0) bias") {
  CountingBiasAddmm bias;
  const auto broadcast = MMKernelInputs::addmm(64, 64, 64, DType::bf16, "cuda", true);
  const auto full = MMKernelInputs::addmm(64, 64, 64, DType::bf16, "cuda", false);
  CHECK(get_mm_configs(broadcast, {&bias}, "addmm").empty());
  CHECK(get_mm_configs(full, {&bias}, "addmm", {}, max_autotune()).empty());
  auto got = get_mm_configs(broadcast, {&bias}, "addmm", {}, max_autotune());
  REQUIRE(got.size() == 1);
  CHECK(got[0].extra_kwargs().get_double("alpha") == 1.0);
  TuneOptions no_lt = max_autotune();
  no_lt.autotune_cublaslt = false;
  CHECK(get_mm_configs(broadcast, {&bias}, "addmm", {}, no_lt).empty());
}

TEST_CASE("template heuristics see the device: cuda::mm offers nothing on the host, with a diagnostic") {
  CountingCudaMm cuda;
  HeuristicRegistry reg;
  BuiltinHeuristics::install(reg);
  const auto in = MMKernelInputs::mm(64, 64, 64, DType::f32, "host");
  CHECK(Choices(max_autotune(), reg).get_mm_configs(in, {&cuda}, "mm").empty());
  REQUIRE(reg.diagnostics().size() == 1);
  CHECK(reg.diagnostics()[0].find("uid=cuda::mm device=host") != std::string::npos);
}

TEST_CASE("cuda::mm_wgmma starts from the persistent list, without num_warps 2") {
  DeclaredKernelTemplate<uids::cuda_mm_wgmma> wgmma;
  const auto in = MMKernelInputs::mm(8192, 8192, 8192, DType::bf16, "cuda");
  auto got = get_mm_configs(in, {&wgmma}, "mm", {}, max_autotune());
  REQUIRE(got.size() == 8);
  CHECK(*got[0].config() == GemmConfig{128, 256, 64, 3, 8, 8});
  CHECK(got[0].choice() == nullptr);  // declared only: kernels come with the CUDA backend
  TuneOptions sm90 = TuneOptions::sm90();
  sm90.prune_by_shared_memory = true;
  CHECK(get_mm_configs(in, {&wgmma}, "mm", {}, sm90).size() == 8);  // bf16: all fit in 227 KB
  const auto f32 = MMKernelInputs::mm(8192, 8192, 8192, DType::f32, "cuda");
  const auto pruned = get_mm_configs(f32, {&wgmma}, "mm", {}, sm90);
  for (const auto& c : pruned) CHECK(shared_memory_bytes(*c.config(), 4) <= sm90_shared_memory_bytes);
  CHECK(pruned.size() < 8);
  CHECK_FALSE(pruned.empty());
}

TEST_CASE("example override 1: a lookup table pins one config per shape") {
  CountingCudaMm cuda;
  CountingAtenMm aten;
  LookupTableChoices lookup(max_autotune());
  const auto in = MMKernelInputs::mm(1024, 4096, 1024, DType::bf16, "cuda");
  const Kwargs pinned = to_kwargs({64, 128, 64, 3, 4, 8});
  lookup.pin(LookupTableChoices::problem_key("mm", in), {"cuda::mm", pinned});
  auto hit = lookup.get_mm_configs(in, {&aten, &cuda}, "mm");
  REQUIRE(hit.size() == 1);
  CHECK(hit[0].params() == pinned);
  CHECK(lookup.hits() == 1);
  CHECK(make_choices(hit).size() == 1);
  CHECK(cuda.generated == 1);
  CHECK(aten.generated == 0);
  // another shape: a miss keeps everything
  const auto other = MMKernelInputs::mm(1024, 4096, 2048, DType::bf16, "cuda");
  CHECK(lookup.get_mm_configs(other, {&aten, &cuda}, "mm").size() == 21);
  CHECK(lookup.hits() == 1);
}

TEST_CASE("example override 2: top-k template choices by an analytic cost model") {
  CountingCudaMm cuda;
  CountingAtenMm aten;
  TopKChoices top3(3, max_autotune());
  const auto in = MMKernelInputs::mm(4096, 4096, 4096, DType::bf16, "cuda");
  auto kept = top3.get_mm_configs(in, {&aten, &cuda}, "mm");
  REQUIRE(kept.size() == 1 + 3);
  CHECK(kept[0].uid() == "aten::mm");  // extern choices always stay
  // the three kept are the cheapest of all 20 by the model
  auto all = Choices(max_autotune()).get_mm_configs(in, {&cuda}, "mm");
  std::vector<double> costs;
  for (const auto& c : all) costs.push_back(top3.cost(c));
  std::sort(costs.begin(), costs.end());
  for (std::size_t i = 1; i < kept.size(); ++i) CHECK(top3.cost(kept[i]) <= costs[2]);
  CHECK(top3.cost(kept[1]) <= top3.cost(kept[2]));
  // small tiles waste a 4096^3 problem: (32,32,16) is never among them
  for (std::size_t i = 1; i < kept.size(); ++i) CHECK(kept[i].config()->block_m >= 64);
  (void)make_choices(kept);
  CHECK(cuda.generated == 3);
}

TEST_CASE("bad inputs are clear errors") {
  CHECK_THROWS_AS(MMKernelInputs({TensorDesc::contiguous({4, 4}, DType::f32)}, "host"), std::invalid_argument);
  CHECK_THROWS_WITH(MMKernelInputs({TensorDesc::contiguous({4, 5}, DType::f32), TensorDesc::contiguous({4, 4}, DType::f32)}, "host"),
                    doctest::Contains("inner dimensions differ"));
  CountingAtenMm aten;
  CHECK_THROWS_AS((void)get_mm_configs(MMKernelInputs::mm(4, 4, 4, DType::f32, "host"), {&aten, nullptr}, "mm"),
                  std::invalid_argument);
}
