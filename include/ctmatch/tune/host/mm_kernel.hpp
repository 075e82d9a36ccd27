#pragma once
// host::mm's kernel: a CPU GEMM whose loop tiling is a GemmConfig's blocks. For each
// BLOCK_M x BLOCK_N output tile it walks K in BLOCK_K steps, packs the A and B panels into
// float (bf16 inputs are widened there), and accumulates in float. Full tiles run with
// compile-time trip counts (the compiler unrolls and vectorizes them); edge tiles with run-time
// ones. num_stages, num_warps and GROUP_M are GPU notions with no CPU meaning: configs that
// differ only there share one body (see HostMmKernel).
// The epilogue writes alpha * acc + beta * bias (addmm) or acc (mm), rounded to the output type.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <ctmatch/tune/gemm_config.hpp>
#include <ctmatch/tune/host/bfloat16.hpp>

namespace ctmatch::tune::host {

/// One GEMM call: out[m,n] = alpha * a[m,k] @ b[k,n] + beta * bias (bias optional).
/// Strides are in elements; any strides work (transposed or broadcast operands).
template <class T>
struct GemmArgs {
  std::int64_t m = 0, n = 0, k = 0;
  const T* a = nullptr;
  std::int64_t a_row = 0, a_col = 0;
  const T* b = nullptr;
  std::int64_t b_row = 0, b_col = 0;
  T* out = nullptr;
  std::int64_t out_row = 0, out_col = 1;
  const T* bias = nullptr;
  std::int64_t bias_row = 0, bias_col = 0;
  float alpha = 1.0f, beta = 1.0f;
};

template <int BM, int BN, int BK, class T>
void tiled_gemm(const GemmArgs<T>& g) {
  static_assert(BM > 0 && BN > 0 && BK > 0, "ctmatch: blocks must be positive");
  std::vector<float> a_panel(static_cast<std::size_t>(BM) * BK);
  std::vector<float> b_panel(static_cast<std::size_t>(BK) * BN);
  std::vector<float> acc(static_cast<std::size_t>(BM) * BN);
  for (std::int64_t i0 = 0; i0 < g.m; i0 += BM) {
    const int mb = static_cast<int>(std::min<std::int64_t>(BM, g.m - i0));
    for (std::int64_t j0 = 0; j0 < g.n; j0 += BN) {
      const int nb = static_cast<int>(std::min<std::int64_t>(BN, g.n - j0));
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (std::int64_t k0 = 0; k0 < g.k; k0 += BK) {
        const int kb = static_cast<int>(std::min<std::int64_t>(BK, g.k - k0));
        for (int i = 0; i < mb; ++i)
          for (int kk = 0; kk < kb; ++kk)
            a_panel[static_cast<std::size_t>(i * BK + kk)] = to_float(g.a[(i0 + i) * g.a_row + (k0 + kk) * g.a_col]);
        for (int kk = 0; kk < kb; ++kk)
          for (int j = 0; j < nb; ++j)
            b_panel[static_cast<std::size_t>(kk * BN + j)] = to_float(g.b[(k0 + kk) * g.b_row + (j0 + j) * g.b_col]);
        float* __restrict c = acc.data();
        const float* __restrict ap = a_panel.data();
        const float* __restrict bp = b_panel.data();
        if (mb == BM && nb == BN && kb == BK) {  // full tile: compile-time trip counts
          for (int i = 0; i < BM; ++i)
            for (int kk = 0; kk < BK; ++kk) {
              const float av = ap[i * BK + kk];
              for (int j = 0; j < BN; ++j) c[i * BN + j] += av * bp[kk * BN + j];
            }
        } else {
          for (int i = 0; i < mb; ++i)
            for (int kk = 0; kk < kb; ++kk) {
              const float av = ap[i * BK + kk];
              for (int j = 0; j < nb; ++j) c[i * BN + j] += av * bp[kk * BN + j];
            }
        }
      }
      for (int i = 0; i < mb; ++i)
        for (int j = 0; j < nb; ++j) {
          float v = acc[static_cast<std::size_t>(i * BN + j)];
          if (g.bias != nullptr)
            v = g.alpha * v + g.beta * to_float(g.bias[(i0 + i) * g.bias_row + (j0 + j) * g.bias_col]);
          g.out[(i0 + i) * g.out_row + (j0 + j) * g.out_col] = from_float<T>(v);
        }
    }
  }
}

/// The untiled loop the host's extern `aten::` choices run (a stand-in for a library GEMM).
template <class T>
void loop_gemm(const GemmArgs<T>& g) {
  std::vector<float> row(static_cast<std::size_t>(g.n));
  for (std::int64_t i = 0; i < g.m; ++i) {
    std::fill(row.begin(), row.end(), 0.0f);
    for (std::int64_t kk = 0; kk < g.k; ++kk) {
      const float av = to_float(g.a[i * g.a_row + kk * g.a_col]);
      for (std::int64_t j = 0; j < g.n; ++j) row[static_cast<std::size_t>(j)] += av * to_float(g.b[kk * g.b_row + j * g.b_col]);
    }
    for (std::int64_t j = 0; j < g.n; ++j) {
      float v = row[static_cast<std::size_t>(j)];
      if (g.bias != nullptr) v = g.alpha * v + g.beta * to_float(g.bias[i * g.bias_row + j * g.bias_col]);
      g.out[i * g.out_row + j * g.out_col] = from_float<T>(v);
    }
  }
}

/// host::mm instantiated for one config and element type: the kernel template the config
/// generator's output instantiates (one per reachable config and dtype).
template <GemmConfig C, class T>
struct HostMmKernel {
  static constexpr GemmConfig config = C;
  static void run(const GemmArgs<T>& g) { tiled_gemm<C.block_m, C.block_n, C.block_k, T>(g); }
};

}  // namespace ctmatch::tune::host
