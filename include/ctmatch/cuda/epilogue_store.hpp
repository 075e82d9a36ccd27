#pragma once
// How a GEMM kernel's threads store two neighbouring accumulators of one row through an
// epilogue: both templates hold their fp32 fragments as (row, col), (row, col + 1) pairs, so
// this one function applies the epilogue, rounds to its output type and writes both with one
// store where the pair is aligned and inside the problem, else element by element (masked).
#include <type_traits>

#include "element.hpp"

namespace ctmatch::cuda {

template <class Epi>
__device__ inline void store_pair(const Epi& epi, int row, int col, float v0, float v1, int m, int n,
                                  bool pair_ok) {
  using Out = typename Epi::out_type;
  if (row >= m) return;
  Out* p = epi.out + row * epi.ldo + col;
  if (pair_ok && col + 1 < n) {
    const Out o0 = from_float<Out>(epi.apply(v0, row, col));
    const Out o1 = from_float<Out>(epi.apply(v1, row, col + 1));
    if constexpr (std::is_same_v<Out, float>) {
      *reinterpret_cast<float2*>(p) = make_float2(o0, o1);
    } else {
      struct alignas(2 * sizeof(Out)) Pair { Out x, y; };
      *reinterpret_cast<Pair*>(p) = Pair{o0, o1};
    }
  } else {
    if (col < n) p[0] = from_float<Out>(epi.apply(v0, row, col));
    if (col + 1 < n) p[1] = from_float<Out>(epi.apply(v1, row, col + 1));
  }
}

}  // namespace ctmatch::cuda
