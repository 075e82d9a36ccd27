// Every instantiated cuda::mm_wgmma config (Hopper: TMA + wgmma) against a float64 CPU
// reference, bf16 and f16 operands, on fresh random never-zero inputs: edge tiles in M, N and
// K (TMA zero-fills, the epilogue masks), row strides wider than the rows, several tiles per
// persistent block with the pipeline wrapping around, output poisoned with NaN before each run.
// Operands TMA cannot describe (row strides not a multiple of 16 bytes, unaligned base) are
// refused with an error and leave the output untouched. K split into slices: every config with
// 2, 3 and 4 slices (uneven slices, more units than multiprocessors, the tickets left ready
// for the next launch, the same bits on every launch); a ping-pong config refuses a split.
// Cluster configs (pairs of blocks) on the same shapes: pairs whose second tile lies past M,
// more pairs than the device runs at once, with and without a split.
// Split into CTMATCH_SHARDS executables like test_mm_configs; this one checks the configs
// with index % SHARDS == SHARD.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>

#include <ctmatch/cuda/config_sets.hpp>
#include <ctmatch/cuda/epilogue.hpp>
#include <ctmatch/cuda/wgmma_launch.hpp>

#include "gemm_check.hpp"

#ifndef CTMATCH_SHARD
#define CTMATCH_SHARD 0
#define CTMATCH_SHARDS 1
#endif

using namespace ctmatch::cuda;
using namespace ctmatch::cuda::test;
using ctmatch::tune::GemmConfig;

namespace {

// Edge tiles in every dimension with K and N multiples of 8 (TMA row strides); N = 45 read
// through a padded row stride of 48; row strides wider than the rows; K smaller than one
// k-block; a long K loop (the stage ring wraps); more tiles than multiprocessors (each
// persistent block takes several, and the pipeline's phases carry over between tiles), with
// one k-block and with several (ping-pong consumers skip each other's k-blocks in the ring).
constexpr Shape shapes[] = {{67, 48, 40},         {130, 96, 200},   {67, 45, 40, 40, 48}, {77, 136, 72, 88, 144},
                            {256, 256, 1000}, {2200, 2104, 64}, {1600, 1544, 328}};

/// Config C of cuda::mm_wgmma on shape s: gemm_check.hpp's check_config with this template's launcher.
template <class In, GemmConfig C>
void check_wgmma(const Shape& s) {
  test::check_config<In>("cuda::mm_wgmma", C, s, [](const MmOperands<In>& op, const epilogue::Identity<In>& epi) {
    launch_wgmma<C, In>(op, epi, nullptr);
  });
}

// K split: 16 k-blocks of 64 in 2, 3 (6, 6, 4) and 4 slices; an edge tile in every dimension;
// more units than multiprocessors (each block sums some tiles and leaves others to others).
constexpr Shape split_shapes[] = {{256, 256, 1000}, {67, 520, 1000, 1008, 528}, {1100, 1040, 512}};

/// Config C with K in `split_k` slices on shape s, launched twice, each into a poisoned
/// output: each launch writes every element and matches the float64 reference, and both give
/// the same bits (the sum runs in slice order; the first launch leaves the tickets at zero).
template <class In, GemmConfig C>
void check_wgmma_split(const Shape& s, int split_k) {
  GemmConfig c = C;
  c.split_k = split_k;
  Problem<In> p(s.m, s.n, s.k, s.lda, s.ldb);
  DeviceBuffer<In> out(static_cast<std::size_t>(s.m) * s.n);
  const auto ref = p.reference();
  std::vector<In> runs[2];
  for (auto& run : runs) {
    out.poison();
    launch_wgmma<C, In>(p.operands(), epilogue::Identity<In>{out.ptr, s.n}, nullptr, split_k);
    CTMATCH_CUDA_CHECK(cudaDeviceSynchronize());
    run = out.download();
    const auto cmp = compare(run, ref, s.m, s.n, s.n);
    INFO("config ", to_string(c), " shape ", s.m, "x", s.n, "x", s.k, " rel_err ", cmp.rel_err);
    CHECK(cmp.nonfinite == 0);
    CHECK(cmp.rel_err < bf16_tolerance);
  }
  INFO("config ", to_string(c), " shape ", s.m, "x", s.n, "x", s.k);
  CHECK(std::memcmp(runs[0].data(), runs[1].data(), runs[0].size() * sizeof(In)) == 0);
}

template <std::size_t I>
void check_index() {
  if constexpr (I % CTMATCH_SHARDS == CTMATCH_SHARD) {
    constexpr GemmConfig C = wgmma_configs[I];
    for (const Shape& s : shapes) check_wgmma<bf16, C>(s);
    check_wgmma<f16, C>(shapes[0]);
    check_wgmma<f16, C>(shapes[3]);
    if constexpr (!C.pingpong) {
      for (const Shape& s : split_shapes)
        for (int split : {2, 3, 4}) check_wgmma_split<bf16, C>(s, split);
      check_wgmma_split<f16, C>(split_shapes[1], 3);
    } else {
      Problem<bf16> p(256, 256, 1000);
      DeviceBuffer<bf16> out(256 * 256);
      auto split_launch = [&] { launch_wgmma<wgmma_configs[I], bf16>(p.operands(), epilogue::Identity<bf16>{out.ptr, 256}, nullptr, 2); };
      CHECK_THROWS_WITH_AS(split_launch(), doctest::Contains("pingpong does not split K"), Error);
    }
  }
}

bool all_nan(const std::vector<bf16>& v) {
  for (bf16 x : v)
    if (!std::isnan(to_float(x))) return false;
  return true;
}

}  // namespace

static_assert(CTMATCH_SHARD < wgmma_configs.size(), "a shard without configs would check nothing");

TEST_CASE("cuda::mm_wgmma: every instantiated config matches the float64 reference") {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (check_index<I>(), ...);
  }(std::make_index_sequence<wgmma_configs.size()>{});
}

#if CTMATCH_SHARD == 0
namespace {
constexpr GemmConfig first_config = wgmma_configs[0];
}  // namespace

TEST_CASE("cuda::mm_wgmma: operands TMA cannot describe are refused, the output untouched") {
  auto refused = [](const MmOperands<bf16>& op, DeviceBuffer<bf16>& out, std::int64_t ldo) {
    out.poison();
    epilogue::Identity<bf16> epi{out.ptr, ldo};
    std::string what;
    try {
      launch_wgmma<first_config, bf16>(op, epi, nullptr);
    } catch (const Error& e) {
      what = e.what();
    }
    CTMATCH_CUDA_CHECK(cudaDeviceSynchronize());
    INFO("error: ", what);
    CHECK(!what.empty());
    CHECK(all_nan(out.download()));
    return what;
  };
  SUBCASE("N = 45 with a dense row stride of 90 bytes") {
    Problem<bf16> p(67, 45, 40);
    DeviceBuffer<bf16> out(67 * 45);
    CHECK(refused(p.operands(), out, 45).find("16 bytes") != std::string::npos);
  }
  SUBCASE("K = 33 with a dense row stride of A") {
    Problem<bf16> p(64, 64, 33);
    DeviceBuffer<bf16> out(64 * 64);
    CHECK(refused(p.operands(), out, 64).find("16 bytes") != std::string::npos);
  }
  SUBCASE("A's base address 2 bytes past a 16-byte boundary") {
    Problem<bf16> p(64, 64, 64, 72, 64);
    DeviceBuffer<bf16> out(64 * 64);
    MmOperands<bf16> op = p.operands();
    op.a += 1;
    CHECK(refused(op, out, 64).find("aligned operand addresses") != std::string::npos);
  }
  SUBCASE("K = 0") {
    Problem<bf16> p(64, 64, 8);
    DeviceBuffer<bf16> out(64 * 64);
    MmOperands<bf16> op = p.operands();
    op.k = 0;
    CHECK(!refused(op, out, 64).empty());
  }
}
#endif
