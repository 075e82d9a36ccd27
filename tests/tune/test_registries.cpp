// Static uids, the template registries and the heuristic registry.
#include <doctest/doctest.h>

#include <string>

#include <ctmatch/tune/builtin_heuristics.hpp>
#include <ctmatch/tune/template_registry.hpp>
#include <ctmatch/tune/uids.hpp>

using namespace ctmatch::tune;

namespace {
struct MyMm : KernelTemplateBase<"mylib::mm"> {
  std::shared_ptr<ChoiceCaller> choice_or_none(const ChoiceRequest&) const override { return nullptr; }
};
struct MyExtern : ExternKernelChoiceBase<"mylib::gemm_call"> {
  std::shared_ptr<ChoiceCaller> choice_or_none(const ChoiceRequest&) const override { return nullptr; }
};
using CudaMmDecl = DeclaredKernelTemplate<uids::cuda_mm>;
using AtenMmDecl = DeclaredKernelTemplate<uids::aten_mm, TemplateKind::Extern>;

static_assert(StaticKernelTemplate<MyMm>);
static_assert(MyMm::static_uid.view() == "mylib::mm");
static_assert(uid_backend("cuda::mm_wgmma") == "cuda");
static_assert(is_valid_uid("aten::bias_addmm") && is_valid_uid("host::mm"));
static_assert(!is_valid_uid("mm") && !is_valid_uid("::mm") && !is_valid_uid("cuda::") && !is_valid_uid("cu da::mm"));
using Reg = TemplateRegistry<MyMm, MyExtern, CudaMmDecl, AtenMmDecl>;
static_assert(Reg::contains<"cuda::mm"> && !Reg::contains<"cuda::mm_wgmma">);

/// Counts how often it is made; offers the configs it was built with.
struct FixedHeuristic : TemplateConfigHeuristic {
  inline static int made = 0;
  FixedHeuristic() { ++made; }
};
struct HeuristicA : TemplateConfigHeuristic {
 protected:
  std::vector<Kwargs> template_configs_impl(const HeuristicContext&) const override { return {Kwargs{{"who", KwargValue(std::string("A"))}}}; }
};
struct HeuristicB : TemplateConfigHeuristic {
 protected:
  std::vector<Kwargs> template_configs_impl(const HeuristicContext&) const override { return {Kwargs{{"who", KwargValue(std::string("B"))}}}; }
};
struct HeuristicC : TemplateConfigHeuristic {
 protected:
  std::vector<Kwargs> template_configs_impl(const HeuristicContext&) const override { return {Kwargs{{"who", KwargValue(std::string("C"))}}}; }
};
struct HeuristicD : TemplateConfigHeuristic {
 protected:
  std::vector<Kwargs> template_configs_impl(const HeuristicContext&) const override { return {Kwargs{{"who", KwargValue(std::string("D"))}}}; }
};

std::string who(const TemplateConfigHeuristic& h) {
  const auto in = MMKernelInputs::mm(8, 8, 8, DType::f32, "host");
  const TuneOptions opt;
  const auto configs = h.template_configs(HeuristicContext{in, "mm", opt});
  if (configs.empty()) return "empty";
  return std::get<std::string>(*configs.front().find("who"));
}

bool rocm_build() { return false; }
bool cuda_build() { return true; }
}  // namespace

TEST_CASE("a static template registry finds templates by uid at compile time and at run time") {
  Reg reg;
  MyMm& typed = reg.get<"mylib::mm">();
  CHECK(typed.uid() == "mylib::mm");
  REQUIRE(reg.find("cuda::mm") != nullptr);
  CHECK(reg.find("cuda::mm")->uid() == "cuda::mm");
  CHECK_FALSE(reg.find("cuda::mm")->is_extern());
  CHECK(reg.find("aten::mm")->is_extern());
  CHECK(reg.find("mylib::gemm_call")->is_extern());
  CHECK(reg.find("cuda::mm_wgmma") == nullptr);
  CHECK(Reg::size() == 4);
  CHECK(Reg::uids()[1] == "mylib::gemm_call");
}

TEST_CASE("a dynamic template registry rejects a second template under a taken uid") {
  DynamicTemplateRegistry reg;
  MyMm a, b;
  CudaMmDecl cuda;
  reg.add(a);
  reg.add(a);  // the same object again: fine, as in Inductor
  reg.add(cuda);
  CHECK_THROWS_AS(reg.add(b), DuplicateUidError);
  CHECK_THROWS_WITH(reg.add(b), doctest::Contains("duplicate template uid 'mylib::mm'"));
  CHECK(&reg.get("mylib::mm") == &a);
  CHECK_THROWS_AS((void)reg.get("cuda::mm_wgmma"), UnknownUidError);
  CHECK_THROWS_WITH((void)reg.get("cuda::mm_wgmma"), doctest::Contains("registered: mylib::mm, cuda::mm"));
  Reg statics;
  CHECK_THROWS_AS(reg.add_all(statics), DuplicateUidError);  // statics has its own cuda::mm
}

TEST_CASE("heuristic lookup falls back in Inductor's order") {
  HeuristicRegistry r;
  r.add<HeuristicA>("x::t", "cuda", "mm");
  r.add<HeuristicB>("x::t", "", "mm");
  r.add<HeuristicC>("x::t", "cuda", "");
  r.add<HeuristicD>("x::t", "", "");
  CHECK(who(r.get("x::t", "cuda", "mm")) == "A");    // (uid, device, op)
  CHECK(who(r.get("x::t", "host", "mm")) == "B");    // (uid, any, op)
  CHECK(who(r.get("x::t", "cuda", "addmm")) == "C"); // (uid, device, any)
  CHECK(who(r.get("x::t", "host", "addmm")) == "D"); // (uid, any, any)

  HeuristicRegistry precedence;  // (uid, any, op) beats (uid, device, any)
  precedence.add<HeuristicB>("x::t", "", "mm");
  precedence.add<HeuristicC>("x::t", "cuda", "");
  CHECK(who(precedence.get("x::t", "cuda", "mm")) == "B");
}

TEST_CASE("a heuristic miss yields the empty heuristic and a diagnostic") {
  HeuristicRegistry r;
  r.add<HeuristicA>("x::t", "cuda", "mm");
  std::vector<std::string> sunk;
  r.set_diagnostic_sink([&](const std::string& s) { sunk.push_back(s); });
  CHECK(who(r.get("x::t", "host", "mm")) == "empty");
  CHECK(who(r.get("y::t", "cuda", "mm")) == "empty");
  REQUIRE(r.diagnostics().size() == 2);
  CHECK(r.diagnostics()[0].find("uid=x::t device=host op=mm") != std::string::npos);
  CHECK(r.diagnostics()[0].find("(x::t, cuda, mm)") != std::string::npos);
  CHECK(sunk == r.diagnostics());
}

TEST_CASE("heuristics are instantiated once, on first use, and cached") {
  HeuristicRegistry r;
  FixedHeuristic::made = 0;
  r.add<FixedHeuristic>("x::t", "", "");
  CHECK(FixedHeuristic::made == 0);
  const TemplateConfigHeuristic* first = &r.get("x::t", "cuda", "mm");
  for (int i = 0; i < 10; ++i) {
    CHECK(&r.get("x::t", "cuda", "mm") == first);
    CHECK(&r.get("x::t", "host", "addmm") == first);  // another key, the same registration
  }
  CHECK(FixedHeuristic::made == 1);
  CHECK(r.instances_created() == 1);
}

TEST_CASE("run-time registration: duplicates throw, a false condition does not register") {
  HeuristicRegistry r;
  CHECK(r.add<HeuristicA>("x::t", "cuda", "mm"));
  CHECK_THROWS_AS(r.add<HeuristicB>("x::t", "cuda", "mm"), DuplicateHeuristicError);
  CHECK_THROWS_WITH(r.add<HeuristicB>("x::t", "cuda", "mm"), doctest::Contains("(x::t, cuda, mm)"));
  CHECK_FALSE(r.add<HeuristicB>("x::u", "cuda", "mm", /*condition=*/false));
  CHECK_FALSE(r.contains("x::u", "cuda", "mm"));
  CHECK_THROWS_AS(r.add<HeuristicB>("not-a-uid", "", ""), std::invalid_argument);
}

TEST_CASE("replace swaps a registered heuristic (or adds one) and drops the cached instance") {
  HeuristicRegistry r;
  r.add<HeuristicA>("x::t", "cuda", "");
  CHECK(who(r.get("x::t", "cuda", "mm")) == "A");
  r.replace<HeuristicB>("x::t", "cuda", "");
  CHECK(who(r.get("x::t", "cuda", "mm")) == "B");
  r.replace<TemplateConfigHeuristic>("x::t", "cuda", "");  // disable: the empty heuristic
  CHECK(who(r.get("x::t", "cuda", "mm")) == "empty");
  r.replace<HeuristicC>("x::u", "", "");  // not there yet: added
  CHECK(who(r.get("x::u", "host", "mm")) == "C");
  CHECK(r.keys().size() == 2);
}

TEST_CASE("static registration with conditions: compile-time false skips, run-time ones are checked on install") {
  using Exclusive = StaticHeuristics<HeuristicRegistration<"x::t", "cuda", any, HeuristicA, &cuda_build>,
                                     HeuristicRegistration<"x::t", "cuda", any, HeuristicB, &rocm_build>,
                                     HeuristicRegistration<"x::t", any, any, HeuristicC, false>,
                                     HeuristicRegistration<"x::t", any, any, HeuristicD>>;
  HeuristicRegistry r;
  Exclusive::install(r);
  CHECK(who(r.get("x::t", "cuda", "mm")) == "A");
  CHECK(who(r.get("x::t", "host", "mm")) == "D");

  using BothTrue = StaticHeuristics<HeuristicRegistration<"x::t", "cuda", any, HeuristicA, &cuda_build>,
                                    HeuristicRegistration<"x::t", "cuda", any, HeuristicB, &cuda_build>>;
  HeuristicRegistry r2;
  CHECK_THROWS_AS(BothTrue::install(r2), DuplicateHeuristicError);
}

TEST_CASE("the built-in registry has every uid, including the CUDA ones, without a GPU") {
  const HeuristicRegistry& r = default_heuristic_registry();
  CHECK(r.contains("aten::mm", "", ""));
  CHECK(r.contains("aten::addmm", "", "addmm"));
  CHECK(r.contains("aten::bias_addmm", "", "addmm"));
  CHECK(r.contains("cuda::mm", "cuda", ""));
  CHECK(r.contains("cuda::mm_wgmma", "cuda", ""));
  CHECK(r.contains("host::mm", "host", ""));
  CHECK(BuiltinHeuristics::keys.size() == r.keys().size());
}
