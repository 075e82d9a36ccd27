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

#include "../gemm_config.hpp"
#include "bfloat16.hpp"

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

namespace detail {
// Only the inner product of a full tile needs the blocks at compile time; packing, edge tiles
// and the epilogue take them at run time and are shared by every config (compiled once per
// element type, not once per config: this keeps the all-configs TU cheap to compile).

/// Widens the A panel rows [i0, i0+mb) x cols [k0, k0+kb) into a[mb][ld].
template <class T>
[[gnu::noinline]] void pack_a(const GemmArgs<T>& g, std::int64_t i0, std::int64_t k0, int mb, int kb, int ld, float* a) {
  for (int i = 0; i < mb; ++i)
    for (int kk = 0; kk < kb; ++kk) a[i * ld + kk] = to_float(g.a[(i0 + i) * g.a_row + (k0 + kk) * g.a_col]);
}
/// Widens the B panel rows [k0, k0+kb) x cols [j0, j0+nb) into b[kb][ld].
template <class T>
[[gnu::noinline]] void pack_b(const GemmArgs<T>& g, std::int64_t k0, std::int64_t j0, int kb, int nb, int ld, float* b) {
  for (int kk = 0; kk < kb; ++kk)
    for (int j = 0; j < nb; ++j) b[kk * ld + j] = to_float(g.b[(k0 + kk) * g.b_row + (j0 + j) * g.b_col]);
}
/// c[mb][ldc] += a[mb][lda] @ b[kb][ldc] with run-time extents (edge tiles).
[[gnu::noinline]] inline void accumulate_edge(const float* __restrict a, const float* __restrict b, float* __restrict c,
                                              int mb, int nb, int kb, int lda, int ldc) {
  for (int i = 0; i < mb; ++i)
    for (int kk = 0; kk < kb; ++kk) {
      const float av = a[i * lda + kk];
      for (int j = 0; j < nb; ++j) c[i * ldc + j] += av * b[kk * ldc + j];
    }
}
/// The full-tile inner product: compile-time trip counts, unrolled and vectorized.
template <int BM, int BN, int BK>
void accumulate_full(const float* __restrict a, const float* __restrict b, float* __restrict c) {
  for (int i = 0; i < BM; ++i)
    for (int kk = 0; kk < BK; ++kk) {
      const float av = a[i * BK + kk];
      for (int j = 0; j < BN; ++j) c[i * BN + j] += av * b[kk * BN + j];
    }
}
/// out tile = alpha * acc + beta * bias (addmm) or acc, rounded to T.
template <class T>
[[gnu::noinline]] void store_tile(const GemmArgs<T>& g, std::int64_t i0, std::int64_t j0, int mb, int nb, int ldc, const float* acc) {
  for (int i = 0; i < mb; ++i)
    for (int j = 0; j < nb; ++j) {
      float v = acc[i * ldc + j];
      if (g.bias != nullptr) v = g.alpha * v + g.beta * to_float(g.bias[(i0 + i) * g.bias_row + (j0 + j) * g.bias_col]);
      g.out[(i0 + i) * g.out_row + (j0 + j) * g.out_col] = from_float<T>(v);
    }
}
}  // namespace detail

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
        detail::pack_a(g, i0, k0, mb, kb, BK, a_panel.data());
        detail::pack_b(g, k0, j0, kb, nb, BN, b_panel.data());
        if (mb == BM && nb == BN && kb == BK) detail::accumulate_full<BM, BN, BK>(a_panel.data(), b_panel.data(), acc.data());
        else detail::accumulate_edge(a_panel.data(), b_panel.data(), acc.data(), mb, nb, kb, BK, BN);
      }
      detail::store_tile(g, i0, j0, mb, nb, BN, acc.data());
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
