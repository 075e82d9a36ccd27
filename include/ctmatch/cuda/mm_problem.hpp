#pragma once
// One GEMM problem as the kernels see it: C[m, n] = A[m, k] @ B[k, n], both operands
// row-major with a row stride (leading dimension) of at least their width. Anything else
// (transposed or non-unit column strides) is refused by `check_layout`, never computed wrongly.
#include <cstdint>
#include <string>

namespace ctmatch::cuda {

template <class In>
struct MmOperands {
  const In* a = nullptr;
  const In* b = nullptr;
  int m = 0, n = 0, k = 0;
  std::int64_t lda = 0, ldb = 0;  // row strides in elements
};

/// Strides as a tensor reports them: (row stride, column stride), in elements.
struct Strides2d {
  std::int64_t row = 0, col = 1;
};

/// Empty when the kernels can read this layout; otherwise why not.
inline std::string check_layout(int m, int n, int k, Strides2d a, Strides2d b) {
  if (m < 0 || n < 0 || k < 0) return "negative size";
  if (a.col != 1 || b.col != 1) return "operands must have unit column stride (row-major)";
  if (a.row < k || b.row < n) return "row stride smaller than the row (overlapping rows)";
  return {};
}

}  // namespace ctmatch::cuda
