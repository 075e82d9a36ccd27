// Every instantiated cuda::mm config against a float64 CPU reference, bf16 and f16 operands,
// on fresh random inputs of odd and aligned sizes (edge tiles in M, N and K; unaligned K and N
// take the element-wise load path). The set is split into CTMATCH_SHARDS executables so that
// the full set compiles in parallel; this one checks the configs with index % SHARDS == SHARD.
#include <doctest/doctest.h>

#include <ctmatch/cuda/config_sets.hpp>
#include <ctmatch/cuda/epilogue.hpp>
#include <ctmatch/cuda/mma_sync_launch.hpp>

#include "gemm_check.hpp"

#ifndef CTMATCH_SHARD
#define CTMATCH_SHARD 0
#define CTMATCH_SHARDS 1
#endif

using namespace ctmatch::cuda;
using namespace ctmatch::cuda::test;
using ctmatch::tune::GemmConfig;

namespace {

// odd everything (element-wise loads); aligned K and N with edge tiles in every dimension;
// row strides wider than the rows; one shape with several full tiles and a long K loop.
constexpr Shape shapes[] = {{67, 45, 33}, {130, 96, 200}, {77, 136, 72, 88, 144}, {256, 256, 320}};

/// Config C of cuda::mm on shape s: gemm_check.hpp's check_config with this template's launcher.
template <class In, GemmConfig C>
void check_mm(const Shape& s) {
  test::check_config<In>("cuda::mm", C, s, [](const MmOperands<In>& op, const epilogue::Identity<In>& epi) {
    launch_mma_sync<C, In>(op, epi, nullptr);
  });
}

template <std::size_t I>
void check_index() {
  if constexpr (I % CTMATCH_SHARDS == CTMATCH_SHARD) {
    constexpr GemmConfig C = mma_sync_configs[I];
    for (const Shape& s : shapes) check_mm<bf16, C>(s);
    check_mm<f16, C>(shapes[0]);
    check_mm<f16, C>(shapes[1]);
  }
}

}  // namespace

static_assert(CTMATCH_SHARD < mma_sync_configs.size(), "a shard without configs would check nothing");

TEST_CASE("cuda::mm: every instantiated config matches the float64 reference") {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (check_index<I>(), ...);
  }(std::make_index_sequence<mma_sync_configs.size()>{});
}
