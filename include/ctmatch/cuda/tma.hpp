#pragma once
// TMA tensor maps for row-major 2-d operands, encoded on the host with the driver's
// cuTensorMapEncodeTiled. The driver function is looked up through the runtime
// (cudaGetDriverEntryPointByVersion), so programs need no -lcuda. Every box is 64 two-byte
// elements wide (one 128-byte swizzle row) and `box_rows` tall, with 128-byte swizzle, which is
// the layout the wgmma descriptors of wgmma_ptx.hpp read; elements outside the tensor are
// loaded as zeros, so edge tiles need no masking on load.
#include <cuda.h>
#include <cudaTypedefs.h>

#include <cstdint>
#include <string>

#include "element.hpp"
#include "error.hpp"
#include "wgmma_plan.hpp"

namespace ctmatch::cuda {

inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    CTMATCH_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000,
                                                        cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || p == nullptr)
      throw Error("cuTensorMapEncodeTiled is not available from the CUDA driver (needs CUDA 12+)");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

template <class T>
constexpr CUtensorMapDataType tensor_map_dtype() {
  static_assert(is_mma_input_v<T>, "TMA operands are bf16 or f16 here");
  return std::is_same_v<T, bf16> ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
}

/// The map of a rows x cols row-major matrix with row stride `ld` elements, in boxes of
/// box_rows x 64 elements. Throws with the driver's status if the layout cannot be encoded.
template <class T>
CUtensorMap make_tensor_map_sw128(const T* base, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                                  int box_rows) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * sizeof(T)};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(wgmma_swizzle_elems), static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t elem_strides[2] = {1, 1};
  const CUresult r = tensor_map_encoder()(
      &map, tensor_map_dtype<T>(), 2, const_cast<T*>(base), dims, strides, box, elem_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw Error("cuTensorMapEncodeTiled failed (CUresult " + std::to_string(static_cast<int>(r)) + ") for a " +
                std::to_string(rows) + "x" + std::to_string(cols) + " operand with row stride " +
                std::to_string(ld));
  return map;
}

}  // namespace ctmatch::cuda
