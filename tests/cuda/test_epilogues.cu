// The epilogues (identity, addmm, scale_cast to f32/f16/bf16 with and without clamp), each
// through every kind of choice: aten::mm (cuBLAS, then our epilogue kernel when there is one),
// cuda::mm and cuda::mm_wgmma with the epilogue fused, against a float64 reference. It
// instantiates three cuda::mm configs and one wgmma config of the reduced sets for each
// epilogue (test_mm_configs and test_wgmma_configs cover every config), so neither CI nor a
// full-config build compiles every config once per epilogue here.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <ctmatch/cuda/mm_scale_cast.hpp>

#include "gemm_check.hpp"

using namespace ctmatch::cuda;
using namespace ctmatch::cuda::test;
using ctmatch::ScalarType;

namespace {

constexpr const auto& configs = quick_configs;
constexpr const auto& wconfigs = quick_wgmma_configs;

std::vector<MmChoice> some_choices() {
  std::vector<MmChoice> c{{aten_mm_uid, {}}};
  for (const auto& g : configs) c.push_back({cuda_mm_uid, g});
  for (const auto& g : wconfigs) c.push_back({cuda_mm_wgmma_uid, g});
  return c;
}

/// cuda::mm_wgmma refuses operands whose dense row strides TMA cannot describe.
bool tma_refuses(const MmChoice& choice, int m, int n, int k) {
  return choice.uid == cuda_mm_wgmma_uid && *wgmma_operand_refusal(m, n, k, k, n) != '\0';
}

template <class T>
std::string name() {
  if constexpr (std::is_same_v<T, fp8_e4m3fn>) return "f8e4m3fn";
  else if constexpr (std::is_same_v<T, fp8_e5m2>) return "f8e5m2";
  else return std::is_same_v<T, float> ? "f32" : std::is_same_v<T, bf16> ? "bf16" : "f16";
}

/// fp8 codes in value order (sign-magnitude as a signed integer): neighbours differ by one.
int fp8_ordinal(std::uint8_t b) { return b & 0x80 ? -(b & 0x7f) : b; }

}  // namespace

TEST_CASE_TEMPLATE("identity: aten::mm, cuda::mm and cuda::mm_wgmma match the reference", In, bf16, f16) {
  MmWorkspace ws;
  for (const MmChoice& choice : some_choices())
    for (auto [m, n, k] : {std::array{67, 45, 33}, std::array{192, 136, 264}}) {
      Problem<In> p(m, n, k);
      DeviceBuffer<In> out(static_cast<std::size_t>(m) * n);
      out.poison();
      auto run = [&] {
        run_mm_choice<In, epilogue::Identity<In>, configs, wconfigs>(choice, ws, p.operands(),
                                                                     epilogue::Identity<In>{out.ptr, n}, nullptr);
      };
      if (tma_refuses(choice, m, n, k)) {  // refused before any launch: the output stays poisoned
        CHECK_THROWS_AS(run(), Error);
        CTMATCH_CUDA_CHECK(cudaDeviceSynchronize());
        const auto h = out.download();
        CHECK(std::all_of(h.begin(), h.end(), [](In v) { return std::isnan(to_float(v)); }));
        continue;
      }
      run();
      CTMATCH_CUDA_CHECK(cudaDeviceSynchronize());
      const auto cmp = compare(out.download(), p.reference(), m, n, n);
      INFO(to_string(choice), " ", m, "x", n, "x", k);
      CHECK(cmp.nonfinite == 0);
      CHECK(cmp.rel_err < bf16_tolerance);
      MESSAGE("identity ", name<In>(), " ", to_string(choice), " ", m, "x", n, "x", k,
              " rel_err=", cmp.rel_err);
    }
}

TEST_CASE("addmm: beta * bias + alpha * (a @ b), broadcast and full bias") {
  MmWorkspace ws;
  const int m = 131, n = 72, k = 96;
  for (const MmChoice& choice : some_choices())
    for (bool broadcast : {true, false}) {
      Problem<bf16> p(m, n, k);
      const std::size_t bias_count = broadcast ? n : static_cast<std::size_t>(m) * n;
      const auto hbias = random_matrix<bf16>(bias_count);
      DeviceBuffer<bf16> bias(bias_count), out(static_cast<std::size_t>(m) * n);
      bias.upload(hbias);
      out.poison();
      epilogue::AddMM<bf16> epi{out.ptr, n, bias.ptr, broadcast ? 0 : n, 1, 0.5f, 2.0f};
      run_mm_choice<bf16, epilogue::AddMM<bf16>, configs, wconfigs>(choice, ws, p.operands(), epi, nullptr);
      CTMATCH_CUDA_CHECK(cudaDeviceSynchronize());
      auto ref = p.reference();
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
          const double b = to_float(hbias[broadcast ? j : i * n + j]);
          ref[static_cast<std::size_t>(i) * n + j] = 2.0 * b + 0.5 * ref[static_cast<std::size_t>(i) * n + j];
        }
      const auto cmp = compare(out.download(), ref, m, n, n);
      INFO(to_string(choice), broadcast ? " broadcast bias" : " full bias");
      CHECK(cmp.nonfinite == 0);
      CHECK(cmp.rel_err < bf16_tolerance);
      MESSAGE("addmm ", to_string(choice), std::string(broadcast ? " broadcast" : " full"), " rel_err=", cmp.rel_err);
    }
}

TEST_CASE_TEMPLATE("scale_cast: scale, optional clamp, cast to the requested dtype", Out, float, f16, bf16) {
  MmWorkspace ws;
  for (const MmChoice& choice : some_choices())
    for (bool clamp : {false, true}) {
      // |a @ b| ~ 4: scale 0.5 leaves many values past +-1. N = 130 for the element-wise path
      // of cuda::mm; TMA needs 16-byte row strides, so wgmma gets N = 136.
      const int m = 97, n = choice.uid == cuda_mm_wgmma_uid ? 136 : 130, k = 200;
      Problem<bf16> p(m, n, k);
      DeviceBuffer<Out> out(static_cast<std::size_t>(m) * n);
      out.poison();
      const ScaleCastArgs args{ctmatch::cuda::scalar_type_of<Out>(), clamp, 0.5};
      mm_scale_cast<bf16, configs, wconfigs>(choice, ws, p.operands(), out.ptr, args, nullptr);
      CTMATCH_CUDA_CHECK(cudaDeviceSynchronize());
      auto ref = p.reference();
      std::size_t past_one = 0;
      for (double& r : ref) {
        r *= 0.5;
        past_one += std::abs(r) > 1.0;
        if (clamp) r = std::clamp(r, -1.0, 1.0);
      }
      REQUIRE(past_one > ref.size() / 10);  // the clamp is exercised
      const auto h = out.download();
      const auto cmp = compare(h, ref, m, n, n);
      INFO(to_string(choice), " clamp=", clamp, " out=", name<Out>());
      CHECK(cmp.nonfinite == 0);
      CHECK(cmp.rel_err < bf16_tolerance);
      if (clamp)
        CHECK(std::all_of(h.begin(), h.end(), [](Out v) { return std::abs(to_float(v)) <= 1.0f; }));
      MESSAGE("scale_cast ", name<Out>(), " clamp=", clamp, " ", to_string(choice), " rel_err=", cmp.rel_err);
    }
}

TEST_CASE_TEMPLATE("scale_cast to fp8: within one fp8 step of the exact result cast as torch casts", Out,
                   fp8_e4m3fn, fp8_e5m2) {
  MmWorkspace ws;
  for (const MmChoice& choice : some_choices())
    for (double scale : {0.5, 200.0}) {  // 200: many values past e4m3fn's 448 (NaN) and some past e5m2's range
      const int m = 97, n = choice.uid == cuda_mm_wgmma_uid ? 136 : 130, k = 200;
      Problem<bf16> p(m, n, k);
      DeviceBuffer<Out> out(static_cast<std::size_t>(m) * n);
      out.poison();
      mm_scale_cast<bf16, configs, wconfigs>(choice, ws, p.operands(), out.ptr,
                                             ScaleCastArgs{scalar_type_of<Out>(), false, scale}, nullptr);
      CTMATCH_CUDA_CHECK(cudaDeviceSynchronize());
      const auto ref = p.reference();
      const auto h = out.download();
      int worst = 0;
      std::size_t exact = 0, not_finite = 0;
      for (std::size_t i = 0; i < ref.size(); ++i) {
        const Out want = from_float<Out>(static_cast<float>(ref[i] * scale));
        const int d = std::abs(fp8_ordinal(h[i].bits) - fp8_ordinal(want.bits));
        worst = std::max(worst, d);
        exact += d == 0;
        not_finite += !std::isfinite(to_float(want));
      }
      INFO(to_string(choice), " out=", name<Out>(), " scale=", scale);
      CHECK(worst <= 1);
      CHECK(exact > ref.size() * 9 / 10);
      if (scale > 1 && std::is_same_v<Out, fp8_e4m3fn>) CHECK(not_finite > ref.size() / 10);
      MESSAGE("scale_cast ", name<Out>(), " scale=", scale, " ", to_string(choice), " worst step ", worst,
              ", exact ", exact, "/", ref.size(), ", not finite ", not_finite);
    }
}

namespace {
__global__ void apply_scale_cast(const float* in, float* out, int n, float scale, bool clamp) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = epilogue::ScaleCast<float>{nullptr, 0, scale, clamp}.apply(in[i], 0, 0);
}
}  // namespace

TEST_CASE("scale_cast's device arithmetic equals its host arithmetic on edge values (NaN kept by the clamp)") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> values{0.0f, -0.0f, 0.25f, -0.75f, 1.0f, -1.0f, 1.5f, -3.0f, 1e30f, -1e30f, inf, -inf, nan};
  DeviceBuffer<float> in(values.size()), out(values.size());
  in.upload(values);
  for (bool clamp : {false, true})
    for (float scale : {1.0f, 0.5f, -2.0f}) {
      out.poison();
      apply_scale_cast<<<1, 64>>>(in.ptr, out.ptr, static_cast<int>(values.size()), scale, clamp);
      CTMATCH_CUDA_CHECK(cudaDeviceSynchronize());
      const auto got = out.download();
      for (std::size_t i = 0; i < values.size(); ++i) {
        const float want = epilogue::ScaleCast<float>{nullptr, 0, scale, clamp}.apply(values[i], 0, 0);
        INFO("value ", values[i], " scale ", scale, " clamp ", clamp, " device ", got[i], " host ", want);
        if (std::isnan(want)) CHECK(std::isnan(got[i]));
        else CHECK(std::memcmp(&got[i], &want, sizeof(float)) == 0);  // bit for bit (the sign of zero too)
        if (clamp) CHECK((std::isnan(got[i]) || (got[i] >= -1.0f && got[i] <= 1.0f)));
      }
    }
}

TEST_CASE("mm_scale_cast refuses an output dtype it cannot write") {
  MmWorkspace ws;
  Problem<bf16> p(16, 16, 16);
  DeviceBuffer<double> out(16 * 16);
  auto run = [&] {
    mm_scale_cast<bf16, configs, wconfigs>({aten_mm_uid, {}}, ws, p.operands(), out.ptr,
                                 ScaleCastArgs{ScalarType::Double, false, 1.0}, nullptr);
  };
  CHECK_THROWS_AS(run(), Error);
}
