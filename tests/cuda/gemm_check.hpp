#pragma once
// What every CUDA GEMM test needs: device buffers, random never-zero operands, a float64 CPU
// reference, the relative error ||out - ref|| / ||ref||, and output poisoning (every byte 0xFF
// is NaN in f32, f16 and bf16, so an element the kernel never wrote cannot pass), and
// check_config, the one check of a kernel config that test_mm_configs and test_wgmma_configs
// run on every config of their template.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <ctmatch/cuda/element.hpp>
#include <ctmatch/cuda/epilogue.hpp>
#include <ctmatch/cuda/error.hpp>
#include <ctmatch/cuda/mm_problem.hpp>
#include <ctmatch/cuda/mma_sync_launch.hpp>  // to_string(GemmConfig)
#include <ctmatch/tune/gemm_config.hpp>

namespace ctmatch::cuda::test {

template <class T>
struct DeviceBuffer {
  T* ptr = nullptr;
  std::size_t count = 0;
  explicit DeviceBuffer(std::size_t n) : count(n) {
    CTMATCH_CUDA_CHECK(cudaMalloc(&ptr, sizeof(T) * (n ? n : 1)));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(ptr); }
  void upload(const std::vector<T>& h) {
    REQUIRE(h.size() == count);
    CTMATCH_CUDA_CHECK(cudaMemcpy(ptr, h.data(), sizeof(T) * count, cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> h(count);
    CTMATCH_CUDA_CHECK(cudaMemcpy(h.data(), ptr, sizeof(T) * count, cudaMemcpyDeviceToHost));
    return h;
  }
  void poison() { CTMATCH_CUDA_CHECK(cudaMemset(ptr, 0xFF, sizeof(T) * (count ? count : 1))); }
};

inline std::mt19937& rng() {
  static std::mt19937 g(20261130);
  return g;
}

/// Values in +-[0.1, 1]: never zero, so a missing product term or an unwritten output shows.
template <class T>
std::vector<T> random_matrix(std::size_t count) {
  std::uniform_real_distribution<float> mag(0.1f, 1.0f);
  std::bernoulli_distribution neg(0.5);
  std::vector<T> v(count);
  for (auto& x : v) x = from_float<T>(neg(rng()) ? -mag(rng()) : mag(rng()));
  return v;
}

/// Row-major a[m, lda] @ b[k, ldb] in float64 from the rounded operands.
template <class T>
std::vector<double> reference_mm(const std::vector<T>& a, const std::vector<T>& b, int m, int n,
                                 int k, std::int64_t lda, std::int64_t ldb) {
  std::vector<double> bd(static_cast<std::size_t>(k) * n);
  for (int p = 0; p < k; ++p)
    for (int j = 0; j < n; ++j) bd[static_cast<std::size_t>(p) * n + j] = to_float(b[p * ldb + j]);
  std::vector<double> c(static_cast<std::size_t>(m) * n, 0.0);
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p) {
      const double av = to_float(a[i * lda + p]);
      double* row = &c[static_cast<std::size_t>(i) * n];
      const double* brow = &bd[static_cast<std::size_t>(p) * n];
      for (int j = 0; j < n; ++j) row[j] += av * brow[j];
    }
  return c;
}

struct Comparison {
  double rel_err = 0;
  std::size_t nonfinite = 0;  // NaN or inf where the reference is finite: unwritten or wrong
};

template <class T>
Comparison compare(const std::vector<T>& out, const std::vector<double>& ref, int m, int n,
                   std::int64_t ldo) {
  Comparison c;
  double num = 0, den = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      const double o = to_float(out[i * ldo + j]), r = ref[static_cast<std::size_t>(i) * n + j];
      if (!std::isfinite(o)) { ++c.nonfinite; continue; }
      num += (o - r) * (o - r);
      den += r * r;
    }
  c.rel_err = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  return c;
}

/// Three configs of the reduced set (single stage; skinny tiles; 64x64 warp tiles): the tests
/// that instantiate every epilogue use these, so a full-config build and CI stay quick to compile.
inline constexpr std::array<tune::GemmConfig, 3> quick_configs{{
    {32, 32, 16, 1, 2, 8}, {64, 128, 32, 3, 4, 8}, {128, 128, 32, 3, 4, 8}}};

/// One cuda::mm_wgmma config of the reduced set (two consumer warpgroups of m64n128k16, four
/// stages), for the same tests: test_wgmma_configs covers every wgmma config.
inline constexpr std::array<tune::GemmConfig, 1> quick_wgmma_configs{{{128, 128, 64, 4, 8, 8}}};

/// bf16 operands and outputs: rounding alone gives a few 1e-3.
inline constexpr double bf16_tolerance = 1e-2;

/// A problem with fresh random operands on the device.
template <class In>
struct Problem {
  int m, n, k;
  std::int64_t lda, ldb;
  std::vector<In> ha, hb;
  DeviceBuffer<In> da, db;
  Problem(int m_, int n_, int k_, std::int64_t lda_ = 0, std::int64_t ldb_ = 0)
      : m(m_), n(n_), k(k_), lda(lda_ ? lda_ : k_), ldb(ldb_ ? ldb_ : n_),
        ha(random_matrix<In>(static_cast<std::size_t>(m_) * lda)),
        hb(random_matrix<In>(static_cast<std::size_t>(k_) * ldb)), da(ha.size()), db(hb.size()) {
    da.upload(ha);
    db.upload(hb);
  }
  MmOperands<In> operands() const { return {da.ptr, db.ptr, m, n, k, lda, ldb}; }
  std::vector<double> reference() const { return reference_mm(ha, hb, m, n, k, lda, ldb); }
};

/// A problem size; lda, ldb are row strides wider than the rows (0: dense).
struct Shape {
  int m, n, k;
  std::int64_t lda = 0, ldb = 0;
};

/// Runs one config of a GEMM template on fresh random operands of shape s into an output
/// poisoned with NaN, and checks it against the float64 reference: every element written
/// (finite) and the relative error under bf16_tolerance. `launch(operands, epilogue)` launches
/// config c with the Identity epilogue on the default stream; `label` names the template in
/// the messages.
template <class In, class Launch>
void check_config(const char* label, tune::GemmConfig c, const Shape& s, Launch&& launch) {
  Problem<In> p(s.m, s.n, s.k, s.lda, s.ldb);
  DeviceBuffer<In> out(static_cast<std::size_t>(s.m) * s.n);
  out.poison();
  epilogue::Identity<In> epi{out.ptr, s.n};
  launch(p.operands(), epi);
  CTMATCH_CUDA_CHECK(cudaDeviceSynchronize());
  const auto cmp = compare(out.download(), p.reference(), s.m, s.n, s.n);
  INFO("config ", to_string(c), " shape ", s.m, "x", s.n, "x", s.k, " rel_err ", cmp.rel_err);
  CHECK(cmp.nonfinite == 0);
  CHECK(cmp.rel_err < bf16_tolerance);
  MESSAGE(label, " ", to_string(c), std::string(std::is_same_v<In, bf16> ? " bf16 " : " f16 "),
          s.m, "x", s.n, "x", s.k, " rel_err=", cmp.rel_err);
}

}  // namespace ctmatch::cuda::test
