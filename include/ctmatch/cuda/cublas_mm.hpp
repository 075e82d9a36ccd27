#pragma once
// The extern choices: `aten::mm` through cuBLAS (bf16/f16 in, fp32 compute, output in the input
// type, as torch.mm), and the unfused pair for an epilogue: cuBLAS, then one elementwise kernel
// of ours that applies the epilogue to the stored product (what PyTorch eager does, in one
// kernel instead of several).
#include <cublas_v2.h>

#include <cstdint>
#include <memory>

#include "element.hpp"
#include "epilogue.hpp"
#include "error.hpp"
#include "mm_problem.hpp"

namespace ctmatch::cuda {

/// A cuBLAS handle with a 32 MiB workspace, bound to one stream.
class CublasHandle {
 public:
  CublasHandle() {
    CTMATCH_CUDA_CHECK(cublasCreate(&h_));
    CTMATCH_CUDA_CHECK(cudaMalloc(&workspace_, workspace_bytes));
    CTMATCH_CUDA_CHECK(cublasSetWorkspace(h_, workspace_, workspace_bytes));
  }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  ~CublasHandle() {
    cudaFree(workspace_);
    cublasDestroy(h_);
  }
  cublasHandle_t get(cudaStream_t s) {
    CTMATCH_CUDA_CHECK(cublasSetStream(h_, s));
    return h_;
  }
  static constexpr std::size_t workspace_bytes = 32u << 20;

 private:
  cublasHandle_t h_ = nullptr;
  void* workspace_ = nullptr;
};

template <class T>
constexpr cudaDataType_t cuda_data_type() {
  if constexpr (std::is_same_v<T, bf16>) return CUDA_R_16BF;
  else if constexpr (std::is_same_v<T, f16>) return CUDA_R_16F;
  else return CUDA_R_32F;
}

/// aten::mm: c[m, n] = a[m, k] @ b[k, n], row-major. cuBLAS is column-major, so it computes
/// c^T = b^T a^T, which is the same memory.
template <class In, class Out>
void cublas_mm(CublasHandle& handle, const MmOperands<In>& op, Out* c, std::int64_t ldc,
               cudaStream_t stream) {
  if (op.m == 0 || op.n == 0) return;
  const float alpha = 1.0f, beta = 0.0f;
  CTMATCH_CUDA_CHECK(cublasGemmEx(handle.get(stream), CUBLAS_OP_N, CUBLAS_OP_N, op.n, op.m, op.k,
                                  &alpha, op.b, cuda_data_type<In>(), static_cast<int>(op.ldb),
                                  op.a, cuda_data_type<In>(), static_cast<int>(op.lda), &beta, c,
                                  cuda_data_type<Out>(), static_cast<int>(ldc),
                                  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

namespace detail {
/// One thread per 8 consecutive elements of a row: 16-byte loads of the bf16/f16 product.
template <class In, class Epi>
__global__ void epilogue_kernel(const In* x, std::int64_t ldx, int m, int n, Epi epi) {
  using Out = typename Epi::out_type;
  const int per_row = (n + 7) / 8;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<std::int64_t>(m) * per_row) return;
  const int row = static_cast<int>(i / per_row), col = static_cast<int>(i % per_row) * 8;
  const In* src = x + row * ldx + col;
  Out* dst = epi.out + row * epi.ldo + col;
  const bool full = col + 8 <= n && ldx % 8 == 0 && reinterpret_cast<std::uintptr_t>(x) % 16 == 0;
  if (full) {
    alignas(16) In v[8];
    *reinterpret_cast<uint4*>(v) = *reinterpret_cast<const uint4*>(src);
    alignas(16) Out o[8];
#pragma unroll
    for (int e = 0; e < 8; ++e) o[e] = from_float<Out>(epi.apply(to_float(v[e]), row, col + e));
    const bool out_aligned = epi.ldo % 8 == 0 && reinterpret_cast<std::uintptr_t>(epi.out) % 16 == 0;
    if (out_aligned) {
      if constexpr (sizeof(Out) == 1) {
        *reinterpret_cast<uint2*>(dst) = *reinterpret_cast<const uint2*>(o);
      } else if constexpr (sizeof(Out) == 2) {
        *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(o);
      } else {
        reinterpret_cast<uint4*>(dst)[0] = reinterpret_cast<const uint4*>(o)[0];
        reinterpret_cast<uint4*>(dst)[1] = reinterpret_cast<const uint4*>(o)[1];
      }
      return;
    }
#pragma unroll
    for (int e = 0; e < 8; ++e) dst[e] = o[e];
    return;
  }
  for (int e = 0; e < 8 && col + e < n; ++e)
    dst[e] = from_float<Out>(epi.apply(to_float(src[e]), row, col + e));
}
}  // namespace detail

/// Applies `epi` to x[m, n] (the stored product) in one pass.
template <class In, class Epi>
void launch_epilogue(const In* x, std::int64_t ldx, int m, int n, const Epi& epi,
                     cudaStream_t stream) {
  if (m == 0 || n == 0) return;
  const std::int64_t work = static_cast<std::int64_t>(m) * ((n + 7) / 8);
  const int block = 256;
  const std::int64_t grid = (work + block - 1) / block;
  if (grid > 0x7fffffffL) throw Error("epilogue: problem too large for a 1-d grid");
  detail::epilogue_kernel<In, Epi><<<static_cast<unsigned>(grid), block, 0, stream>>>(x, ldx, m, n, epi);
  CTMATCH_CUDA_CHECK_LAUNCH();
}

/// The unfused pair: cuBLAS into `tmp` (m x n, In, row stride n), then the epilogue kernel.
template <class In, class Epi>
void cublas_mm_then_epilogue(CublasHandle& handle, const MmOperands<In>& op, In* tmp,
                             const Epi& epi, cudaStream_t stream) {
  cublas_mm(handle, op, tmp, op.n, stream);
  launch_epilogue(tmp, op.n, op.m, op.n, epi, stream);
}

}  // namespace ctmatch::cuda
