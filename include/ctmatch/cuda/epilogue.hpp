#pragma once
// Epilogues: what a GEMM kernel does with each fp32 accumulator before it stores it. Each one
// names its output element type and holds its output pointer and row stride; `apply` maps
// (accumulator, row, column) to the fp32 value that is rounded to Out and stored. The same
// functors run inside our GEMM kernels (fused) and in the elementwise kernel that follows a
// cuBLAS call (unfused), so both compute the same function.
#include <cstdint>

#include "element.hpp"

namespace ctmatch::cuda::epilogue {

/// out = acc
template <class Out>
struct Identity {
  using out_type = Out;
  Out* out = nullptr;
  std::int64_t ldo = 0;
  __host__ __device__ float apply(float acc, int, int) const { return acc; }
};

/// addmm: out = beta * bias + alpha * acc. The bias is read through strides, so a row vector
/// broadcast over the rows (stride_m == 0) and a full matrix are the same epilogue.
template <class Out>
struct AddMM {
  using out_type = Out;
  Out* out = nullptr;
  std::int64_t ldo = 0;
  const Out* bias = nullptr;
  std::int64_t bias_stride_m = 0, bias_stride_n = 1;
  float alpha = 1.0f, beta = 1.0f;
  __host__ __device__ float apply(float acc, int row, int col) const {
    const float b = to_float(bias[row * bias_stride_m + col * bias_stride_n]);
    return beta * b + alpha * acc;
  }
};

/// seedlib::scale_cast: out = cast<Out>(clamp?(acc * scale, -1, 1)). The clamp keeps NaN, as
/// torch.clamp does.
template <class Out>
struct ScaleCast {
  using out_type = Out;
  Out* out = nullptr;
  std::int64_t ldo = 0;
  float scale = 1.0f;
  bool clamp = false;
  __host__ __device__ float apply(float acc, int, int) const {
    const float v = acc * scale;
#ifdef __CUDA_ARCH__
    // On the device without a branch: min/max.NaN return NaN for a NaN operand, and without the
    // clamp the bound is +inf (the bound is the same for every element: computed once). A
    // branch on `clamp` made the compiler unroll the GEMM epilogue twice, and the fused
    // 128x256 kernel ran 4-13% slower than with the identity epilogue (H100).
    const float bound = clamp ? 1.0f : __int_as_float(0x7f800000);
    float r;
    asm("min.NaN.f32 %0, %1, %2;\n\tmax.NaN.f32 %0, %0, %3;" : "=f"(r) : "f"(v), "f"(bound), "f"(-bound));
    return r;
#else
    return clamp ? (v < -1.0f ? -1.0f : (v > 1.0f ? 1.0f : v)) : v;  // comparisons with NaN are false
#endif
  }
};

}  // namespace ctmatch::cuda::epilogue
