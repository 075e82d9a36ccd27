#pragma once
// The element types the CUDA kernels read and write, and their conversions to and from the
// fp32 the tensor cores accumulate in. One place maps ScalarType to a C++ type. The 8-bit
// floats are outputs only (fp8.hpp: torch's conversion).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "../graph/scalar_type.hpp"
#include "fp8.hpp"

namespace ctmatch::cuda {

using bf16 = __nv_bfloat16;
using f16 = __half;

template <class T>
inline constexpr bool is_mma_input_v = std::is_same_v<T, bf16> || std::is_same_v<T, f16>;
template <class T>
inline constexpr bool is_fp8_v = std::is_same_v<T, fp8_e4m3fn> || std::is_same_v<T, fp8_e5m2>;
template <class T>
inline constexpr bool is_output_v = is_mma_input_v<T> || std::is_same_v<T, float> || is_fp8_v<T>;

template <class T>
__host__ __device__ inline float to_float(T v) {
  if constexpr (std::is_same_v<T, float>) return v;
  else if constexpr (std::is_same_v<T, bf16>) return __bfloat162float(v);
  else return __half2float(v);
}

/// Round to nearest even, as torch's `.to(dtype)` does.
template <class T>
__host__ __device__ inline T from_float(float v) {
  if constexpr (std::is_same_v<T, float>) return v;
  else if constexpr (std::is_same_v<T, bf16>) return __float2bfloat16_rn(v);
  else if constexpr (std::is_same_v<T, fp8_e4m3fn>) return fp8_e4m3fn_from_float(v);
  else if constexpr (std::is_same_v<T, fp8_e5m2>) return fp8_e5m2_from_float(v);
  else return __float2half_rn(v);
}

template <class T>
constexpr ScalarType scalar_type_of() {
  if constexpr (std::is_same_v<T, float>) return ScalarType::Float;
  else if constexpr (std::is_same_v<T, bf16>) return ScalarType::BFloat16;
  else if constexpr (std::is_same_v<T, fp8_e4m3fn>) return ScalarType::Float8_e4m3fn;
  else if constexpr (std::is_same_v<T, fp8_e5m2>) return ScalarType::Float8_e5m2;
  else {
    static_assert(std::is_same_v<T, f16>, "no ScalarType for this element type");
    return ScalarType::Half;
  }
}

/// Calls f(T{}) with the C++ type of an output dtype; false if the kernels cannot write it.
template <class F>
bool visit_output_type(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Float: f(float{}); return true;
    case ScalarType::BFloat16: f(bf16{}); return true;
    case ScalarType::Half: f(f16{}); return true;
    case ScalarType::Float8_e4m3fn: f(fp8_e4m3fn{}); return true;
    case ScalarType::Float8_e5m2: f(fp8_e5m2{}); return true;
    default: return false;
  }
}

}  // namespace ctmatch::cuda
