#pragma once
// How a GEMM kernel's threads store two neighbouring accumulators of one row through an
// epilogue: both templates hold their fp32 fragments as (row, col), (row, col + 1) pairs, so
// this one function applies the epilogue, rounds to its output type and writes both with one
// store where the pair is aligned and inside the problem, else element by element (masked).
#include <cstdint>
#include <cstring>
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

/// 16-byte row stores from the wgmma accumulator fragment, for 2-byte outputs. Of four chunks
/// of 8 columns from col0, a lane (q = lane % 4) holds in v[4c], v[4c+1] row `row`, columns
/// 8c + 2q + {0, 1}, and in v[4c+2], v[4c+3] the same of row + 8. Each lane applies the
/// epilogue to its own values; then the four lanes of a quad trade 4-byte words, so that lane q
/// holds all of chunk q of both rows and writes each with one 16-byte store. store_pair would
/// write 4 bytes per lane: a warp store covers 8 rows x 16 bytes, half a sector of each row.
/// The caller guarantees col0 + 32 <= n, 16-byte aligned rows (n and ldo multiples of 8, the
/// output 16-byte aligned) and that the whole warp calls it (the shuffles).
template <class Epi>
__device__ inline void store_row_chunks(const Epi& epi, int row, int col0, const float* v, int m, int lane) {
  using Out = typename Epi::out_type;
  static_assert(sizeof(Out) == 2, "16-byte row chunks are 8 two-byte outputs");
  const int q = lane & 3;
  auto pack = [](Out lo, Out hi) {
    struct alignas(4) Pair { Out x, y; } pr{lo, hi};
    std::uint32_t w;
    std::memcpy(&w, &pr, sizeof w);
    return w;
  };
  std::uint32_t mine[4][2];  // [chunk][row, row + 8]: this lane's word of each
#pragma unroll
  for (int c = 0; c < 4; ++c)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = row + 8 * h, col = col0 + 8 * c + 2 * q;
      mine[c][h] = r < m ? pack(from_float<Out>(epi.apply(v[4 * c + 2 * h], r, col)),
                                from_float<Out>(epi.apply(v[4 * c + 2 * h + 1], r, col + 1)))
                         : 0u;
    }
  std::uint32_t chunk[2][4];  // [row, row + 8][word]: chunk q, gathered
#pragma unroll
  for (int t = 0; t < 4; ++t) {
    // Round t: lane q reads word `from` of its chunk q from lane `from`, which sends its word of
    // the chunk of the lane reading from it, (its q - t) mod 4. Registers picked by value, not
    // indexed at run time (that would put them in local memory).
    const int from = (q + t) & 3, send = (q - t) & 3;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const std::uint32_t out = send == 0 ? mine[0][h] : send == 1 ? mine[1][h] : send == 2 ? mine[2][h] : mine[3][h];
      const std::uint32_t got = __shfl_sync(0xffffffffu, out, (lane & ~3) | from);
#pragma unroll
      for (int w = 0; w < 4; ++w)
        if (w == from) chunk[h][w] = got;
    }
  }
#pragma unroll
  for (int h = 0; h < 2; ++h)
    if (row + 8 * h < m)
      *reinterpret_cast<uint4*>(epi.out + static_cast<std::int64_t>(row + 8 * h) * epi.ldo + col0 + 8 * q) =
          make_uint4(chunk[h][0], chunk[h][1], chunk[h][2], chunk[h][3]);
}

}  // namespace ctmatch::cuda
