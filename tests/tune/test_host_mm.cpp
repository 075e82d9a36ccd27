// host::mm: every instantiation (every reachable config, f32 and bf16) against a naive
// double-precision reference on random odd-sized problems; and host::mm / aten:: choices made
// through get_mm_configs, with strides, a broadcast bias and alpha/beta.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include <ctmatch/tune/choices.hpp>
#include <ctmatch/tune/host/mm_template.hpp>

using namespace ctmatch::tune;
using ctmatch::tune::host::BFloat16;

namespace {
template <class T>
std::vector<T> random_matrix(std::size_t count, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<T> v(count);
  for (auto& x : v) x = host::from_float<T>(d(rng));
  return v;
}

/// out = alpha * a @ b + beta * bias in double, and sum |alpha a b| + |beta bias| per element
/// (the scale of the rounding error).
struct Reference {
  std::vector<double> value, scale;
};
template <class T>
Reference reference(const host::GemmArgs<T>& g) {
  Reference r{std::vector<double>(static_cast<std::size_t>(g.m * g.n)), std::vector<double>(static_cast<std::size_t>(g.m * g.n))};
  for (std::int64_t i = 0; i < g.m; ++i)
    for (std::int64_t j = 0; j < g.n; ++j) {
      double s = 0, mag = 0;
      for (std::int64_t kk = 0; kk < g.k; ++kk) {
        const double p = double(host::to_float(g.a[i * g.a_row + kk * g.a_col])) * double(host::to_float(g.b[kk * g.b_row + j * g.b_col]));
        s += p;
        mag += std::abs(p);
      }
      if (g.bias != nullptr) {
        const double bv = host::to_float(g.bias[i * g.bias_row + j * g.bias_col]);
        s = g.alpha * s + g.beta * bv;
        mag = std::abs(g.alpha) * mag + std::abs(g.beta * bv);
      }
      r.value[static_cast<std::size_t>(i * g.n + j)] = s;
      r.scale[static_cast<std::size_t>(i * g.n + j)] = mag;
    }
  return r;
}

/// Checks out (row stride ld = n + 2, the 2 padding columns must stay untouched) against the reference.
template <class T>
bool matches(const std::vector<T>& out, std::int64_t m, std::int64_t n, const Reference& ref, const T& sentinel) {
  const double rel_out = std::is_same_v<T, BFloat16> ? 1.0 / 256 : 0.0;  // output rounding: half an ulp
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      const double got = host::to_float(out[static_cast<std::size_t>(i * (n + 2) + j)]);
      const double want = ref.value[static_cast<std::size_t>(i * n + j)];
      const double tol = 2e-5 * ref.scale[static_cast<std::size_t>(i * n + j)] + rel_out * std::abs(want) + 1e-6;
      if (!(std::abs(got - want) <= tol)) return false;
    }
    for (std::int64_t j = n; j < n + 2; ++j)
      if (!(out[static_cast<std::size_t>(i * (n + 2) + j)] == sentinel)) return false;
  }
  return true;
}

template <class T>
void check_every_instantiation() {
  std::mt19937 rng(1234);
  const T sentinel = host::from_float<T>(12345.0f);
  // One problem per block shape: one full tile and an odd remainder in every dimension.
  std::map<std::tuple<int, int, int>, std::tuple<host::GemmArgs<T>, Reference, std::vector<T>, std::vector<T>>> problems;
  int checked = 0;
  for (std::size_t idx = 0; idx < host::instantiated_configs.size(); ++idx) {
    const GemmConfig& c = host::instantiated_configs[idx];
    auto key = std::make_tuple(c.block_m, c.block_n, c.block_k);
    auto it = problems.find(key);
    if (it == problems.end()) {
      host::GemmArgs<T> g;
      g.m = c.block_m + 5;
      g.n = c.block_n + 3;
      g.k = c.block_k + 7;
      std::vector<T> a = random_matrix<T>(static_cast<std::size_t>(g.m * g.k), rng);
      std::vector<T> b = random_matrix<T>(static_cast<std::size_t>(g.k * g.n), rng);
      it = problems.emplace(key, std::make_tuple(g, Reference{}, std::move(a), std::move(b))).first;
      auto& [gg, ref, aa, bb] = it->second;
      gg.a = aa.data();
      gg.a_row = gg.k;
      gg.a_col = 1;
      gg.b = bb.data();
      gg.b_row = gg.n;
      gg.b_col = 1;
      ref = reference(gg);
    }
    auto& [g0, ref, a, b] = it->second;
    std::vector<T> out(static_cast<std::size_t>(g0.m * (g0.n + 2)), sentinel);
    host::GemmArgs<T> g = g0;
    g.out = out.data();
    g.out_row = g.n + 2;
    g.out_col = 1;
    host::kernel_table<T>[idx](g);
    CAPTURE(c.block_m);
    CAPTURE(c.block_n);
    CAPTURE(c.block_k);
    CAPTURE(c.num_stages);
    CAPTURE(c.num_warps);
    CHECK(matches(out, g.m, g.n, ref, sentinel));
    const bool found = host::find_kernel<T>(c) == host::kernel_table<T>[idx];
    CHECK(found);
    ++checked;
  }
  CHECK(checked == static_cast<int>(host::instantiated_configs.size()));
}
}  // namespace

TEST_CASE("every f32 instantiation of host::mm agrees with the double reference") { check_every_instantiation<float>(); }
TEST_CASE("every bf16 instantiation of host::mm agrees with the double reference") { check_every_instantiation<BFloat16>(); }

TEST_CASE("bf16 storage rounds to nearest even and keeps NaN") {
  CHECK(BFloat16(1.0f).bits == 0x3f80);
  CHECK(BFloat16(1.0f + 1.0f / 256).bits == 0x3f80);          // halfway, even stays
  CHECK(BFloat16(1.0f + 3.0f / 256).bits == 0x3f82);          // halfway, odd rounds up
  CHECK(BFloat16(-2.5f).to_float() == -2.5f);
  CHECK(std::isnan(BFloat16(std::nanf("")).to_float()));
  CHECK(std::isinf(BFloat16(INFINITY).to_float()));
}

TEST_CASE("a config without an instantiation has no kernel, and host::mm declines it") {
  const bool absent = host::find_kernel<float>({256, 256, 256, 5, 8, 8}) == nullptr;
  CHECK(absent);
  host::HostMmTemplate t;
  const auto in = MMKernelInputs::mm(33, 35, 37, DType::f32, "host");
  const Kwargs params = to_kwargs({256, 256, 256, 5, 8, 8});
  const Kwargs none;
  const OutputLayout layout = in.output_layout();
  CHECK(t.choice_or_none({params, none, layout, in}) == nullptr);
  const auto f64 = MMKernelInputs::mm(33, 35, 37, DType::f64, "host");
  CHECK(t.choice_or_none({to_kwargs({32, 32, 16, 1, 2, 8}), none, layout, f64}) == nullptr);
}

namespace {
template <class T>
void check_choices_through_get_mm_configs(bool addmm) {
  std::mt19937 rng(99);
  const std::int64_t m = 45, n = 29, k = 51;
  host::HostMmTemplate hmm;
  host::HostAtenMm aten_mm;
  host::HostAtenAddmm aten_addmm;
  const DType dt = std::is_same_v<T, float> ? DType::f32 : DType::bf16;
  // a is given transposed (column-major storage), b row-major; the bias is a broadcast row.
  TensorDesc a{{m, k}, {1, m}, dt};
  TensorDesc b = TensorDesc::contiguous({k, n}, dt);
  TensorDesc bias{{m, n}, {0, 1}, dt};
  std::vector<TensorDesc> nodes = addmm ? std::vector<TensorDesc>{bias, a, b} : std::vector<TensorDesc>{a, b};
  MMKernelInputs in(nodes, "host");
  if (addmm) in.set_scalar("alpha", 0.5).set_scalar("beta", -2.0);
  std::vector<T> av = random_matrix<T>(static_cast<std::size_t>(m * k), rng), bv = random_matrix<T>(static_cast<std::size_t>(k * n), rng),
                 biasv = random_matrix<T>(static_cast<std::size_t>(n), rng);
  host::GemmArgs<T> g;
  g.m = m, g.n = n, g.k = k;
  g.a = av.data(), g.a_row = 1, g.a_col = m;
  g.b = bv.data(), g.b_row = n, g.b_col = 1;
  if (addmm) g.bias = biasv.data(), g.bias_row = 0, g.bias_col = 1, g.alpha = 0.5f, g.beta = -2.0f;
  const Reference ref = reference(g);

  TuneOptions opt;
  opt.max_autotune = true;
  const TemplateStack stack = addmm ? TemplateStack{&aten_addmm, &hmm} : TemplateStack{&aten_mm, &hmm};
  const auto choices = get_mm_configs(in, stack, addmm ? "addmm" : "mm", {}, opt);
  REQUIRE(choices.size() > 10);
  const T sentinel = host::from_float<T>(777.0f);
  for (const auto& c : choices) {
    // the output is written with row stride n + 2 to catch writes past the last column
    OutputLayout layout = c.layout();
    layout.strides = {n + 2, 1};
    KernelTemplateChoice ktc = c;
    ktc.set_layout(layout);
    auto made = ktc.choice();
    REQUIRE(made);
    std::vector<T> out(static_cast<std::size_t>(m * (n + 2)), sentinel);
    Buffers buf;
    if (addmm) buf.inputs.push_back(biasv.data());
    buf.inputs.push_back(av.data());
    buf.inputs.push_back(bv.data());
    buf.output = out.data();
    made->run(buf);
    CAPTURE(made->description());
    CHECK(matches(out, m, n, ref, sentinel));
  }
}
}  // namespace

TEST_CASE("host choices from get_mm_configs compute mm with strided inputs") {
  check_choices_through_get_mm_configs<float>(false);
  check_choices_through_get_mm_configs<BFloat16>(false);
}
TEST_CASE("host choices from get_mm_configs compute addmm with a broadcast bias, alpha and beta") {
  check_choices_through_get_mm_configs<float>(true);
  check_choices_through_get_mm_configs<BFloat16>(true);
}
