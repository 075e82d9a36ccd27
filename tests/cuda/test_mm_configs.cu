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

struct Shape {
  int m, n, k;
  std::int64_t lda = 0, ldb = 0;
};
// odd everything (element-wise loads); aligned K and N with edge tiles in every dimension;
// row strides wider than the rows; one shape with several full tiles and a long K loop.
constexpr Shape shapes[] = {{67, 45, 33}, {130, 96, 200}, {77, 136, 72, 88, 144}, {256, 256, 320}};

template <class In, GemmConfig C>
void check_config(const Shape& s) {
  Problem<In> p(s.m, s.n, s.k, s.lda, s.ldb);
  DeviceBuffer<In> out(static_cast<std::size_t>(s.m) * s.n);
  out.poison();
  epilogue::Identity<In> epi{out.ptr, s.n};
  launch_mma_sync<C, In>(p.operands(), epi, nullptr);
  CTMATCH_CUDA_CHECK(cudaDeviceSynchronize());
  const auto cmp = compare(out.download(), p.reference(), s.m, s.n, s.n);
  INFO("config ", to_string(C), " shape ", s.m, "x", s.n, "x", s.k, " rel_err ", cmp.rel_err);
  CHECK(cmp.nonfinite == 0);
  CHECK(cmp.rel_err < bf16_tolerance);
  MESSAGE("cuda::mm ", to_string(C), std::string(std::is_same_v<In, bf16> ? " bf16 " : " f16 "),
          s.m, "x", s.n, "x", s.k, " rel_err=", cmp.rel_err);
}

template <std::size_t I>
void check_index() {
  if constexpr (I % CTMATCH_SHARDS == CTMATCH_SHARD) {
    constexpr GemmConfig C = mma_sync_configs[I];
    for (const Shape& s : shapes) check_config<bf16, C>(s);
    check_config<f16, C>(shapes[0]);
    check_config<f16, C>(shapes[1]);
  }
}

}  // namespace

static_assert(CTMATCH_SHARD < mma_sync_configs.size(), "a shard without configs would check nothing");

TEST_CASE("cuda::mm: every instantiated config matches the float64 reference") {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (check_index<I>(), ...);
  }(std::make_index_sequence<mma_sync_configs.size()>{});
}
