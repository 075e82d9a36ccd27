#pragma once
// The cuda::mm kernel template: C = epilogue(A @ B) on the tensor cores with mma.sync
// m16n8k16 (bf16 or f16 in, fp32 accumulate), operands staged through shared memory by a
// cp.async pipeline of num_stages and read into fragments with ldmatrix. Every shape of a
// GemmConfig the plan accepts (mma_sync_plan.hpp) is one instantiation.
//
// Edges: rows and columns past the problem are zero-filled on load and masked on store, so
// any M, N, K works. When K, N, the row strides or the pointers are not 16-byte aligned the
// same kernel loads element by element (a uniform branch), still correct, only slower.
#include <cstdint>

#include "element.hpp"
#include "epilogue_store.hpp"
#include "mm_problem.hpp"
#include "mma_sync_plan.hpp"
#include "tile_order.hpp"

namespace ctmatch::cuda::detail {

__device__ inline std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

/// 16-byte global->shared copy; `bytes` < 16 zero-fills the rest (0 reads nothing).
__device__ inline void cp_async_16(void* dst, const void* src, int bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src),
               "r"(bytes));
}
__device__ inline void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ inline void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

__device__ inline void ldmatrix_x4(std::uint32_t (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p)));
}
__device__ inline void ldmatrix_x4_trans(std::uint32_t (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p)));
}

template <class In>
__device__ inline void mma_16816(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                 std::uint32_t b1) {
  if constexpr (std::is_same_v<In, bf16>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

/// Copies a ROWS x COLS tile (row-major, COLS a multiple of 8) from global memory at
/// (row0, col0) into shared memory with row stride SROW, zero-filling outside rows x cols.
template <int ROWS, int COLS, int SROW, int THREADS, class In>
__device__ inline void load_tile(In* dst, const In* src, std::int64_t ld, int row0, int col0,
                                 int rows, int cols, bool vec) {
  constexpr int chunks_per_row = COLS / 8;
  constexpr int chunks = ROWS * chunks_per_row;
  if (vec) {
#pragma unroll
    for (int i0 = 0; i0 < chunks; i0 += THREADS) {
      const int i = i0 + static_cast<int>(threadIdx.x);
      if (chunks % THREADS == 0 || i < chunks) {
        const int r = i / chunks_per_row, c = (i % chunks_per_row) * 8;
        const int gr = row0 + r, gc = col0 + c;
        const bool in = gr < rows && gc < cols;  // cols % 8 == 0 here: all or nothing
        const In* p = in ? src + gr * ld + gc : src;
        cp_async_16(dst + r * SROW + c, p, in ? 16 : 0);
      }
    }
  } else {
#pragma unroll
    for (int i0 = 0; i0 < chunks; i0 += THREADS) {
      const int i = i0 + static_cast<int>(threadIdx.x);
      if (chunks % THREADS == 0 || i < chunks) {
        const int r = i / chunks_per_row, c = (i % chunks_per_row) * 8;
        const int gr = row0 + r, gc = col0 + c;
        In v[8];
#pragma unroll
        for (int e = 0; e < 8; ++e)
          v[e] = (gr < rows && gc + e < cols) ? src[gr * ld + gc + e] : from_float<In>(0.0f);
#pragma unroll
        for (int e = 0; e < 8; ++e) dst[r * SROW + c + e] = v[e];
      }
    }
  }
}

}  // namespace ctmatch::cuda::detail

namespace ctmatch::cuda {

/// Run-time facts about the operands that every thread of the grid shares (uniform branches).
struct MmFlags {
  bool vec_loads = false;  // 16-byte cp.async loads are legal (K, N, strides, pointers aligned)
  bool pair_stores = false;  // two adjacent outputs can be stored as one aligned word
};

/// The plan's numbers as integral constants, which device code may read (a constexpr host
/// function may not be called from a kernel).
template <tune::GemmConfig C>
struct MmaSyncShape {
  static constexpr bool ok = mma_sync_plan(C).ok;
  static constexpr int warps_m = mma_sync_plan(C).warps_m;
  static constexpr int warps_n = mma_sync_plan(C).warps_n;
  static constexpr int warp_tile_m = mma_sync_plan(C).warp_tile_m;
  static constexpr int warp_tile_n = mma_sync_plan(C).warp_tile_n;
  static constexpr int threads = mma_sync_plan(C).threads;
  static constexpr int smem_bytes = mma_sync_plan(C).smem_bytes;
};

/// The config is spelled as six integers: nvcc's host stubs cannot name a kernel whose template
/// argument is a class object (GemmConfig); launch_mma_sync<GemmConfig> unpacks it.
template <int BM_, int BN_, int BK_, int S_, int W_, int G_, class In, class Epi>
__global__ void __launch_bounds__(W_ * 32)
    mma_sync_mm_kernel(MmOperands<In> op, Epi epi, MmFlags flags) {
  constexpr tune::GemmConfig C{BM_, BN_, BK_, S_, W_, G_};
  using P = MmaSyncShape<C>;
  static_assert(P::ok, "this GemmConfig is not supported by the mma.sync template");
  static_assert(is_mma_input_v<In>, "mma.sync template takes bf16 or f16 operands");
  constexpr int BM = C.block_m, BN = C.block_n, BK = C.block_k, S = C.num_stages;
  constexpr int T = P::threads;
  constexpr int AS = BK + smem_pad_elems, BS = BN + smem_pad_elems;  // smem row strides
  constexpr int A_STAGE = BM * AS, B_STAGE = BK * BS;
  constexpr int MI = P::warp_tile_m / 16, NI = P::warp_tile_n / 8;

  extern __shared__ __align__(16) unsigned char smem_raw[];
  In* sA = reinterpret_cast<In*>(smem_raw);
  In* sB = sA + S * A_STAGE;

  // Block -> tile, grouped by group_m along M so that neighbouring blocks share B in L2.
  const int grid_m = (op.m + BM - 1) / BM, grid_n = (op.n + BN - 1) / BN;
  const auto [m0, n0] = grouped_tile_origin(static_cast<int>(blockIdx.x), grid_m, grid_n, C.group_m, BM, BN);

  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int wm = warp / P::warps_n, wn = warp % P::warps_n;

  float acc[MI][NI][4];
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < NI; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

  const int KT = (op.k + BK - 1) / BK;
  auto load_stage = [&](int stage, int kt) {
    detail::load_tile<BM, BK, AS, T>(sA + stage * A_STAGE, op.a, op.lda, m0, kt * BK, op.m, op.k,
                                     flags.vec_loads);
    detail::load_tile<BK, BN, BS, T>(sB + stage * B_STAGE, op.b, op.ldb, kt * BK, n0, op.k, op.n,
                                     flags.vec_loads);
  };
  auto compute_stage = [&](int stage) {
    const In* a_s = sA + stage * A_STAGE + (wm * P::warp_tile_m) * AS;
    const In* b_s = sB + stage * B_STAGE + wn * P::warp_tile_n;
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      std::uint32_t af[MI][4];
      std::uint32_t bfr[NI / 2][4];
#pragma unroll
      for (int i = 0; i < MI; ++i)
        detail::ldmatrix_x4(af[i], a_s + (i * 16 + lane % 16) * AS + kk + (lane / 16) * 8);
#pragma unroll
      for (int j = 0; j < NI / 2; ++j)
        detail::ldmatrix_x4_trans(bfr[j], b_s + (kk + lane % 16) * BS + j * 16 + (lane / 16) * 8);
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j)
          detail::mma_16816<In>(acc[i][j], af[i], bfr[j / 2][(j % 2) * 2], bfr[j / 2][(j % 2) * 2 + 1]);
    }
  };

  if constexpr (S == 1) {
    for (int kt = 0; kt < KT; ++kt) {
      load_stage(0, kt);
      detail::cp_async_commit();
      detail::cp_async_wait<0>();
      __syncthreads();
      compute_stage(0);
      __syncthreads();
    }
  } else {
#pragma unroll
    for (int s = 0; s < S - 1; ++s) {
      if (s < KT) load_stage(s, s);
      detail::cp_async_commit();
    }
    for (int kt = 0; kt < KT; ++kt) {
      detail::cp_async_wait<S - 2>();  // tile kt has landed (for this thread)
      __syncthreads();                 // ... for all threads; stage (kt-1)%S is free again
      const int next = kt + S - 1;
      if (next < KT) load_stage(next % S, next);
      detail::cp_async_commit();
      compute_stage(kt % S);
    }
    detail::cp_async_wait<0>();
  }

  // Accumulator fragment (m16n8): c0,c1 at row lane/4, cols 2*(lane%4)+{0,1}; c2,c3 8 rows down.
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < NI; ++j) {
      const int row = m0 + wm * P::warp_tile_m + i * 16 + lane / 4;
      const int col = n0 + wn * P::warp_tile_n + j * 8 + (lane % 4) * 2;
      store_pair(epi, row, col, acc[i][j][0], acc[i][j][1], op.m, op.n, flags.pair_stores);
      store_pair(epi, row + 8, col, acc[i][j][2], acc[i][j][3], op.m, op.n,
                         flags.pair_stores);
    }
}

}  // namespace ctmatch::cuda
