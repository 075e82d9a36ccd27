#pragma once
// The GPU half of the Python package (_ctmatch_cuda), behind a plain C++ interface so that the
// pybind11 module is a host translation unit and only cuda_ops.cu is compiled by nvcc.
// Pointers and streams travel as integers: torch hands over `tensor.data_ptr()` and
// `torch.cuda.current_stream().cuda_stream`, and nothing here links against libtorch.
#include <cstddef>
#include <cstdint>
#include <string>

namespace ctmatch::python::cuda_ops {

/// seedlib::mm_scale_cast(a, b, *, dtype, clamp, scale) on bf16 row-major operands (column
/// stride 1, row strides lda and ldb) into a contiguous m x n output of `dtype` (a torch name:
/// float32, float16, bfloat16, float8_e4m3fn, float8_e5m2), on `stream` of CUDA device
/// `device` (made current for the call). The GEMM is the autotuned choice for the problem
/// (tuned on its first call in this process, or answered by the cache file set with
/// set_cache). Returns the choice's label (`cuda::mm_wgmma 128x256x64 s4 w8 g8`, `aten::mm`).
/// Throws std::invalid_argument for operands it cannot take.
struct MmScaleCast {
  std::uintptr_t a = 0, b = 0, out = 0;
  std::int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0;
  std::string dtype;
  bool clamp = false;
  double scale = 1.0;
  std::uintptr_t stream = 0;
  int device = 0;
};
std::string mm_scale_cast(const MmScaleCast& call);

/// The epilogue's rounding alone: dst[i] = cast<dtype>(src[i]) for n fp32 values on the GPU,
/// through the same conversion the kernels store with (for checking it against torch's .to()).
void cast_from_float(std::uintptr_t src, std::uintptr_t dst, std::int64_t n, const std::string& dtype,
                     std::uintptr_t stream);

/// The autotune cache file (empty: none); takes effect for problems not yet tuned.
void set_cache(const std::string& path);

/// Counters since the module was loaded: calls of mm_scale_cast, and how many of them ran one
/// of ctmatch's own kernels (cuda::mm or cuda::mm_wgmma) rather than cuBLAS + epilogue.
struct Counters {
  std::size_t calls = 0;
  std::size_t ctmatch_kernel_calls = 0;
  std::size_t problems_tuned = 0;
};
Counters counters();

}  // namespace ctmatch::python::cuda_ops
