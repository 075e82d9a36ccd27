#pragma once
// The order in which a GEMM's output tiles are taken, shared by every kernel template: tile
// ids run along M in groups of group_m rows of tiles, so that the blocks running at the same
// time share B's columns (and A's rows) in L2 (Triton's and Inductor's grouped ordering).

namespace ctmatch::cuda {

struct TileOrigin {
  int m0, n0;  // the tile's first row and column
};

/// The origin of tile `tile` of a grid_m x grid_n grid of block_m x block_n tiles.
__host__ __device__ inline TileOrigin grouped_tile_origin(int tile, int grid_m, int grid_n, int group_m,
                                                          int block_m, int block_n) {
  const int width = group_m * grid_n;
  const int group_id = tile / width;
  const int first_m = group_id * group_m;
  const int rest = grid_m - first_m;
  const int group_size = rest < group_m ? rest : group_m;
  return {(first_m + (tile % width) % group_size) * block_m, ((tile % width) / group_size) * block_n};
}

}  // namespace ctmatch::cuda
