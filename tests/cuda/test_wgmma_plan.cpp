// The host side of cuda::mm_wgmma, which needs no GPU and runs in CI: how the plan maps a
// config onto warpgroups, what it accepts and refuses (tile shapes, shared memory,
// accumulators, warps), which operand layouts TMA can describe, the instantiated sets, when K
// is split (which problems, into how many slices, what the heuristic offers), the deep twins
// (as many stages as shared memory holds), and the ping-pong schedule (what it accepts, its
// twins in the sets and among the offered configs).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include <ctmatch/cuda/config_sets.hpp>
#include <ctmatch/cuda/heuristics.hpp>
#include <ctmatch/tune/choices.hpp>

using namespace ctmatch::cuda;
using ctmatch::tune::GemmConfig;

namespace {
bool says(const char* why, const char* what) { return std::string(why).find(what) != std::string::npos; }
}  // namespace

TEST_CASE("wgmma_plan: warpgroups, wgmma atoms, shared memory and accumulators of a config") {
  const auto p = wgmma_plan({128, 256, 64, 3, 8, 8});
  REQUIRE(p.ok);
  CHECK(p.consumers == 2);
  CHECK(p.wg_tile_m == 64);
  CHECK(p.m_atoms == 1);
  CHECK(p.threads == 384);  // producer + two consumers
  CHECK(p.acc_regs == 128);
  CHECK(p.stage_bytes == (128 * 64 + 64 * 256) * 2);
  CHECK(p.smem_bytes == 3 * p.stage_bytes + 1024 + 3 * 16 + wgmma_ticket_bytes);

  const auto q = wgmma_plan({128, 128, 64, 5, 4, 8});  // num_warps 4: one consumer, two m64 atoms
  REQUIRE(q.ok);
  CHECK(q.consumers == 1);
  CHECK(q.m_atoms == 2);
  CHECK(q.threads == 256);
  CHECK(q.acc_regs == 128);

  const auto r = wgmma_plan({64, 256, 64, 3, 8, 8});  // block_m 64: one consumer takes it all
  REQUIRE(r.ok);
  CHECK(r.consumers == 1);
  CHECK(r.m_atoms == 1);
}

TEST_CASE("wgmma_plan refuses what the template cannot run, and says why") {
  // Tile shapes: m64 atoms, 64-column swizzled boxes, k in 128-byte rows.
  CHECK(says(wgmma_plan({32, 128, 64, 3, 4, 8}).why, "block_m"));
  CHECK(says(wgmma_plan({128, 32, 64, 3, 4, 8}).why, "block_n"));
  CHECK(says(wgmma_plan({128, 96, 64, 3, 4, 8}).why, "block_n"));
  CHECK(says(wgmma_plan({128, 512, 64, 3, 8, 8}).why, "block_n"));
  CHECK(says(wgmma_plan({128, 128, 32, 3, 4, 8}).why, "block_k"));
  CHECK(says(wgmma_plan({128, 128, 16, 3, 4, 8}).why, "block_k"));
  // Shared memory over 227 KB: 256x128x128 x 4 stages = 384 KB.
  CHECK(says(wgmma_plan({256, 128, 128, 4, 8, 8}).why, "shared memory"));
  CHECK(says(wgmma_plan({128, 256, 64, 5, 8, 8}).why, "shared memory"));  // 240 KB
  // Accumulators: one warpgroup for 128x256 needs 256 registers per thread.
  CHECK(says(wgmma_plan({128, 256, 64, 3, 4, 8}).why, "accumulator"));
  CHECK(says(wgmma_plan({256, 256, 64, 2, 8, 8}).why, "accumulator"));
  // Warps: a warpgroup is 4 warps.
  CHECK(says(wgmma_plan({128, 128, 64, 3, 2, 8}).why, "num_warps"));
  CHECK(says(wgmma_plan({128, 128, 64, 3, 16, 8}).why, "num_warps"));
  CHECK(says(wgmma_plan({128, 128, 64, 0, 8, 8}).why, "num_stages"));
  CHECK(says(wgmma_plan({128, 128, 64, 3, 8, 8}, 4).why, "2-byte"));  // fp32 operands
  CHECK(says(wgmma_plan({128, 128, 64, 3, 8, 0}).why, "group_m"));
  // The smallest limit a device may report refuses a config the default limit accepts.
  CHECK(wgmma_plan({128, 256, 64, 3, 8, 8}).ok);
  CHECK(!wgmma_plan({128, 256, 64, 3, 8, 8}, 2, 100 * 1024).ok);
}

TEST_CASE("wgmma_operand_refusal: what TMA can describe") {
  CHECK(std::string(wgmma_operand_refusal(4096, 4096, 4096, 4096, 4096, 0x1000, 0x2000)).empty());
  CHECK(std::string(wgmma_operand_refusal(67, 48, 40, 40, 48)).empty());    // odd M, edge tiles
  CHECK(std::string(wgmma_operand_refusal(67, 45, 40, 40, 48)).empty());    // odd N, padded stride
  CHECK(says(wgmma_operand_refusal(67, 45, 40, 40, 45), "16 bytes"));        // dense N = 45
  CHECK(says(wgmma_operand_refusal(67, 48, 33, 33, 48), "16 bytes"));        // dense K = 33
  CHECK(says(wgmma_operand_refusal(64, 64, 64, 64, 64, 0x1002, 0x2000), "aligned"));
  CHECK(says(wgmma_operand_refusal(64, 64, 64, 64, 64, 0x1000, 0x2008), "aligned"));
  CHECK(says(wgmma_operand_refusal(64, 64, 64, 32, 64), "overlapping"));
  CHECK(says(wgmma_operand_refusal(64, 64, 0, 64, 64), "empty"));
  CHECK(says(wgmma_operand_refusal(0, 64, 64, 64, 64), "empty"));
}

TEST_CASE("wgmma config sets: every config runnable, the reduced set inside the full one") {
  for (const GemmConfig& c : wgmma_full_configs) {
    INFO(c.block_m, "x", c.block_n, "x", c.block_k, " s", c.num_stages, " w", c.num_warps);
    CHECK(wgmma_supported(c));
  }
  // Inductor's persistent list itself is runnable as written.
  for (const GemmConfig& c : ctmatch::tune::persistent_mm_configs) CHECK(wgmma_supported(c));
  for (const GemmConfig& c : wgmma_reduced_configs) CHECK(in_config_set<wgmma_full_configs>(c));
  // Scaled to small problems, the list reaches configs the template refuses (block_k 32):
  // those are left out of the full set, so the heuristic must drop them (cuda_mm_wgmma_refusal does).
  const auto reachable = ctmatch::tune::reachable_mm_configs(ctmatch::tune::persistent_mm_configs);
  CHECK(wgmma_full_count < ctmatch::tune::with_pingpong_twins(reachable).size());
  // 49 cooperative configs (the list's and their deep twins), the cluster twins of those of
  // 128 rows or more with an even number of B boxes, and the ping-pong twins of those of two
  // warpgroups whose whole tile fits a warpgroup's 128 accumulators.
  int pingpong = 0, clustered = 0;
  for (std::size_t i = 0; i < wgmma_full_count; ++i) {
    const GemmConfig& c = wgmma_full_configs[i];
    if (i > 0) CHECK(ctmatch::tune::sort_key(wgmma_full_configs[i - 1]) < ctmatch::tune::sort_key(c));  // sorted, unique
    GemmConfig single = c;
    single.pingpong = false;
    single.cluster_m = 1;
    if (c.pingpong) {
      ++pingpong;
      CHECK(c.block_m * c.block_n <= 128 * 128);
      CHECK(in_config_set<wgmma_full_configs>(single));
    }
    if (c.cluster_m != 1) {
      ++clustered;
      CHECK(c.cluster_m == 2);
      CHECK(!c.pingpong);
      CHECK(c.block_m >= 128);
      CHECK(c.block_n % 128 == 0);
      CHECK(in_config_set<wgmma_full_configs>(single));
    }
  }
  CHECK(wgmma_full_count - pingpong - clustered == 49);
  CHECK(pingpong == 27);
  CHECK(clustered == 12);
  // Every config's deep twin is in the full set.
  for (const GemmConfig& c : wgmma_full_configs) CHECK(in_config_set<wgmma_full_configs>(wgmma_deepest(c)));
}

TEST_CASE("wgmma_deepest: as many stages as shared memory holds; the generator adds the deep twins") {
  // 48 KiB stages: 4 fit in 227 KiB, 5 do not.
  CHECK(wgmma_deepest({128, 256, 64, 3, 8, 8}) == GemmConfig{128, 256, 64, 4, 8, 8});
  CHECK(!wgmma_supported({128, 256, 64, 5, 8, 8}));
  // 32 KiB stages: 7 (the ping-pong twin's turn barriers fit too).
  CHECK(wgmma_deepest({128, 128, 64, 4, 8, 8}) == GemmConfig{128, 128, 64, 7, 8, 8});
  CHECK(wgmma_deepest({128, 128, 64, 4, 8, 8, 1, true}) == GemmConfig{128, 128, 64, 7, 8, 8, 1, true});
  // 24 KiB stages: 9.
  CHECK(wgmma_deepest({64, 128, 64, 4, 8, 8}) == GemmConfig{64, 128, 64, 9, 8, 8});
  // 16 KiB stages, the narrowest tile: 14, short of the plan's bound of 16.
  CHECK(wgmma_deepest({64, 64, 64, 3, 4, 8}) == GemmConfig{64, 64, 64, 14, 4, 8});
  CHECK(!wgmma_supported({64, 64, 64, 15, 4, 8}));
  CHECK(says(wgmma_plan({64, 64, 64, wgmma_max_stages + 1, 4, 8}).why, "num_stages"));
  // Already as deep as it goes; a split keeps its split.
  CHECK(wgmma_deepest({128, 128, 128, 3, 8, 8}) == GemmConfig{128, 128, 128, 3, 8, 8});
  CHECK(wgmma_deepest({64, 128, 64, 4, 8, 8, 4}) == GemmConfig{64, 128, 64, 9, 8, 8, 4});
  // A config the plan refuses is its own twin.
  CHECK(wgmma_deepest({128, 128, 32, 3, 8, 8}) == GemmConfig{128, 128, 32, 3, 8, 8});
  static_assert(wgmma_deepest({128, 256, 64, 3, 8, 8}).num_stages == 4, "a constant expression");

  ctmatch::tune::ConfigList<3> list;
  list.push_back({128, 128, 64, 4, 8, 8});
  list.push_back({128, 128, 64, 5, 8, 8});
  list.push_back({128, 256, 64, 3, 8, 8});
  const auto twins = ctmatch::tune::with_deep_twins(list, [](GemmConfig c) { return wgmma_deepest(c); });
  // sorted, and the two 128x128 configs share one twin
  REQUIRE(twins.size() == 5);
  CHECK(twins[0] == list[0]);
  CHECK(twins[1] == list[1]);
  CHECK(twins[2] == GemmConfig{128, 128, 64, 7, 8, 8});
  CHECK(twins[3] == list[2]);
  CHECK(twins[4] == GemmConfig{128, 256, 64, 4, 8, 8});
}

TEST_CASE("pingpong: each of two consumer warpgroups takes a whole tile; the plan says what it cannot run") {
  const auto p = wgmma_plan({128, 128, 64, 5, 8, 8, 1, true});
  REQUIRE(p.ok);
  CHECK(p.pingpong);
  CHECK(p.consumers == 2);
  CHECK(p.wg_tile_m == 128);  // the whole tile, not half of it
  CHECK(p.m_atoms == 2);
  CHECK(p.acc_regs == 128);
  CHECK(p.threads == 384);
  CHECK(p.smem_bytes == wgmma_plan({128, 128, 64, 5, 8, 8}).smem_bytes + wgmma_turn_bytes);  // the same pipeline
  const auto q = wgmma_plan({64, 256, 64, 3, 8, 8, 1, true});  // block_m 64: still two consumers
  REQUIRE(q.ok);
  CHECK(q.consumers == 2);
  CHECK(q.m_atoms == 1);

  CHECK(says(wgmma_plan({128, 256, 64, 3, 8, 8, 1, true}).why, "128 accumulator"));
  CHECK(says(wgmma_plan({128, 128, 64, 5, 4, 8, 1, true}).why, "num_warps 8"));
  CHECK(says(wgmma_plan({128, 128, 64, 5, 8, 8, 2, true}).why, "pingpong does not split K"));
  CHECK(wgmma_split_k({128, 128, 64, 5, 8, 8, 1, true}, 64, 4096, 4096) == 1);  // never offered a split
  CHECK(says(mma_sync_plan({64, 64, 32, 2, 4, 8, 1, true}).why, "ping-pong"));

  // A kernel of its own (in the set apart from its cooperative twin), spelled PINGPONG only when set.
  const GemmConfig pp{128, 128, 64, 5, 8, 8, 1, true};
  CHECK(ctmatch::tune::kernel_config(pp) == pp);
  CHECK(ctmatch::tune::sort_key(pp) == ctmatch::tune::sort_key({128, 128, 64, 5, 8, 8}) + 1);
  const auto k = ctmatch::tune::to_kwargs(pp);
  CHECK(k.find("PINGPONG") != nullptr);
  CHECK(ctmatch::tune::gemm_config_of(k) == pp);
  CHECK_FALSE(ctmatch::tune::to_kwargs({128, 128, 64, 5, 8, 8}).contains("PINGPONG"));
  auto bad = k;
  bad.set("PINGPONG", 1);
  CHECK_FALSE(ctmatch::tune::gemm_config_of(bad).has_value());  // a bool, not an int

  // The generator: each config of two warpgroups followed by its twin, others alone.
  ctmatch::tune::ConfigList<3> list;
  list.push_back({64, 128, 64, 4, 4, 8});
  list.push_back({128, 128, 64, 4, 8, 8});
  list.push_back({128, 256, 64, 3, 8, 8});
  const auto twins = ctmatch::tune::with_pingpong_twins(list);
  REQUIRE(twins.size() == 5);
  CHECK(twins[0] == list[0]);
  CHECK(twins[1] == list[1]);
  CHECK(twins[2] == GemmConfig{128, 128, 64, 4, 8, 8, 1, true});
  CHECK(twins[3] == list[2]);
  CHECK(twins[4] == GemmConfig{128, 256, 64, 3, 8, 8, 1, true});  // the plan refuses it, not the generator
}

TEST_CASE("cluster_m: pairs of blocks sharing B's loads; the plan says what it cannot run") {
  const GemmConfig pair{128, 256, 64, 4, 8, 8, 1, false, 2};
  const auto p = wgmma_plan(pair);
  REQUIRE(p.ok);
  CHECK(p.cluster_m == 2);
  // The same pipeline, consumers and shared memory as the single block: every block still
  // receives whole stages.
  const auto single = wgmma_plan({128, 256, 64, 4, 8, 8});
  CHECK(p.smem_bytes == single.smem_bytes);
  CHECK(p.consumers == single.consumers);
  CHECK(wgmma_plan({128, 128, 64, 7, 8, 8, 4, false, 2}).ok);  // with K split

  CHECK(says(wgmma_plan({128, 192, 64, 4, 8, 8, 1, false, 2}).why, "block_n must be 128 or 256"));  // 3 B boxes
  CHECK(says(wgmma_plan({128, 64, 64, 4, 8, 8, 1, false, 2}).why, "block_n must be 128 or 256"));
  CHECK(says(wgmma_plan({128, 128, 64, 4, 8, 8, 1, true, 2}).why, "pingpong runs without clusters"));
  CHECK(says(wgmma_plan({128, 256, 64, 4, 8, 8, 1, false, 4}).why, "cluster_m must be 1 or 2"));
  CHECK(says(wgmma_plan({128, 256, 64, 4, 8, 8, 1, false, 0}).why, "cluster_m must be 1 or 2"));
  CHECK(says(mma_sync_plan({64, 64, 32, 2, 4, 8, 1, false, 2}).why, "cluster"));

  // A kernel of its own, spelled CLUSTER_M only past 1, sorting after the ping-pong twin.
  CHECK(ctmatch::tune::kernel_config(pair) == pair);
  CHECK(ctmatch::tune::sort_key(pair) == ctmatch::tune::sort_key({128, 256, 64, 4, 8, 8}) + 2);
  const auto k = ctmatch::tune::to_kwargs(pair);
  CHECK(k.get_int("CLUSTER_M") == 2);
  CHECK(ctmatch::tune::gemm_config_of(k) == pair);
  CHECK_FALSE(ctmatch::tune::to_kwargs({128, 256, 64, 4, 8, 8}).contains("CLUSTER_M"));
  auto bad = k;
  bad.set("CLUSTER_M", true);
  CHECK_FALSE(ctmatch::tune::gemm_config_of(bad).has_value());  // an int, not a bool
  CHECK(in_config_set<wgmma_reduced_configs>(pair));

  // The generator: the twin after its config where `wanted` takes it; then ping-pong twins
  // keep the order sorted and give clustered configs none.
  ctmatch::tune::ConfigList<2> list;
  list.push_back({64, 128, 64, 9, 8, 8});
  list.push_back({128, 128, 64, 4, 8, 8});
  const auto twins = ctmatch::tune::with_pingpong_twins(
      ctmatch::tune::with_cluster_twins(list, [](GemmConfig c) { return c.block_m >= 128; }));
  REQUIRE(twins.size() == 5);
  CHECK(twins[0] == list[0]);
  CHECK(twins[1] == GemmConfig{64, 128, 64, 9, 8, 8, 1, true});
  CHECK(twins[2] == list[1]);
  CHECK(twins[3] == GemmConfig{128, 128, 64, 4, 8, 8, 1, true});
  CHECK(twins[4] == GemmConfig{128, 128, 64, 4, 8, 8, 1, false, 2});
  for (std::size_t i = 1; i < twins.size(); ++i)
    CHECK(ctmatch::tune::sort_key(twins[i - 1]) < ctmatch::tune::sort_key(twins[i]));
}

// The refusals every CUDA choice goes through (heuristics, templates, launch dispatch): the
// plan, the instantiated set, the operands.
namespace {
constexpr std::array<GemmConfig, 1> one_mma{{{64, 64, 32, 2, 4, 8}}};
constexpr std::array<GemmConfig, 1> one_wgmma{{{128, 128, 64, 4, 8, 8}}};
bool refused_with(const char* why, const char* what) { return std::string(why).find(what) != std::string::npos; }
}  // namespace

TEST_CASE("cuda_mm_refusal and cuda_mm_wgmma_refusal: plan, instantiated set, operands") {
  CHECK(std::string(cuda_mm_refusal<one_mma>({64, 64, 32, 2, 4, 8})).empty());
  CHECK(refused_with(cuda_mm_refusal<one_mma>({128, 128, 128, 4, 8, 8}), "shared memory"));
  CHECK(refused_with(cuda_mm_refusal<one_mma>({128, 64, 32, 4, 8, 8}), "not instantiated"));
  static_assert(*cuda_mm_refusal<one_mma>({64, 64, 32, 2, 4, 8}) == '\0', "usable in constant expressions");

  const Strides2d a{4096, 1}, b{4096, 1};
  CHECK(std::string(cuda_mm_wgmma_refusal<one_wgmma>({128, 128, 64, 4, 8, 8}, 4096, 4096, 4096, a, b)).empty());
  CHECK(refused_with(cuda_mm_wgmma_refusal<one_wgmma>({128, 128, 32, 3, 8, 8}, 4096, 4096, 4096, a, b), "block_k"));
  CHECK(refused_with(cuda_mm_wgmma_refusal<one_wgmma>({128, 256, 64, 5, 8, 8}, 4096, 4096, 4096, a, b), "shared memory"));
  CHECK(refused_with(cuda_mm_wgmma_refusal<one_wgmma>({128, 256, 64, 3, 8, 8}, 4096, 4096, 4096, a, b), "not instantiated"));
  CHECK(refused_with(cuda_mm_wgmma_refusal<one_wgmma>({128, 128, 64, 4, 8, 8}, 64, 64, 64, {1, 64}, {64, 1}), "unit column stride"));
  // dense N = 4100: 8200-byte rows of B, which TMA cannot describe; a padded stride of 4104 can be
  CHECK(refused_with(cuda_mm_wgmma_refusal<one_wgmma>({128, 128, 64, 4, 8, 8}, 4096, 4100, 4096, a, {4100, 1}), "16 bytes"));
  CHECK(std::string(cuda_mm_wgmma_refusal<one_wgmma>({128, 128, 64, 4, 8, 8}, 4096, 4100, 4096, a, {4104, 1})).empty());
  // the build's own sets: what cuda_mm_runnable and the heuristics use
  for (const auto& c : mma_sync_configs) CHECK(cuda_mm_runnable(c));
  CHECK(!cuda_mm_runnable({128, 128, 128, 4, 8, 8}));
}

TEST_CASE("wgmma_split_k: K is split where the tiles leave multiprocessors idle") {
  const GemmConfig skinny{64, 128, 64, 4, 8, 8}, large{128, 256, 64, 3, 8, 8};
  // 64 x 4096 in 64 x 128 tiles: 32 tiles on 132 multiprocessors -> 4 slices of 16 k-blocks
  CHECK(wgmma_split_k(skinny, 64, 4096, 4096) == 4);
  CHECK(wgmma_split_k(skinny, 64, 4096, 4096, 64) == 2);  // a GPU of 64 multiprocessors
  // more than half as many tiles as multiprocessors: no split (1024 x 4096 in 128 x 256
  // tiles: 128 tiles; 66 tiles on 132; 67 tiles on 132)
  CHECK(wgmma_split_k(large, 1024, 4096, 1024) == 1);
  CHECK(wgmma_split_k(large, 128 * 66, 256, 4096) == 2);
  CHECK(wgmma_split_k(large, 128 * 67, 256, 4096) == 1);
  // enough tiles: no split
  CHECK(wgmma_split_k(large, 4096, 4096, 4096) == 1);
  CHECK(wgmma_split_k(skinny, 64, 4096 * 5, 4096) == 1);
  // every slice keeps at least four k-blocks: K = 256 (4 k-blocks) is never split, K = 512 in two
  CHECK(wgmma_split_k(skinny, 64, 4096, 256) == 1);
  CHECK(wgmma_split_k(skinny, 64, 4096, 512) == 2);
  // at most wgmma_max_split_k slices: one tile with a long K
  CHECK(wgmma_split_k(skinny, 64, 128, 1 << 20) == wgmma_max_split_k);
  CHECK(wgmma_split_k(skinny, 0, 4096, 4096) == 1);
}

TEST_CASE("wgmma_slices: no slice of K is empty") {
  auto slices = [](int split, std::int64_t k) {
    GemmConfig c{64, 128, 64, 4, 8, 8};
    c.split_k = split;
    return wgmma_slices(c, k);
  };
  CHECK(slices(1, 1000).slices == 1);
  CHECK(slices(1, 1000).k_blocks_per_slice == 16);
  CHECK(slices(3, 1000).slices == 3);  // 16 k-blocks: 6, 6, 4
  CHECK(slices(3, 1000).k_blocks_per_slice == 6);
  CHECK(slices(5, 1000).slices == 4);  // 4, 4, 4, 4: a fifth slice would be empty
  CHECK(slices(5, 1000).k_blocks_per_slice == 4);
  CHECK(slices(16, 40).slices == 1);  // one k-block
  CHECK(slices(4, 0).slices == 1);
  CHECK(slices(4, 0).k_blocks_per_slice == 0);
}

TEST_CASE("split_k: the plan bounds it, kwargs carry it, the kernel of a split config is the unsplit one") {
  GemmConfig c{64, 128, 64, 9, 8, 8};
  c.split_k = wgmma_max_split_k;
  CHECK(wgmma_plan(c).ok);
  c.split_k = wgmma_max_split_k + 1;
  CHECK(says(wgmma_plan(c).why, "split_k"));
  c.split_k = 0;
  CHECK(says(wgmma_plan(c).why, "split_k"));
  c.split_k = 4;
  CHECK(ctmatch::tune::kernel_config(c) == GemmConfig{64, 128, 64, 9, 8, 8});
  CHECK(in_config_set<wgmma_reduced_configs>(c));

  const auto k = ctmatch::tune::to_kwargs(c);
  CHECK(k.get_int("SPLIT_K") == 4);
  CHECK(ctmatch::tune::gemm_config_of(k) == c);
  CHECK_FALSE(ctmatch::tune::to_kwargs({64, 128, 64, 4, 8, 8}).contains("SPLIT_K"));  // Inductor's spelling
  CHECK(ctmatch::tune::gemm_config_of(ctmatch::tune::to_kwargs({64, 128, 64, 4, 8, 8}))->split_k == 1);

  // the mma.sync template never splits
  GemmConfig m{64, 64, 32, 2, 4, 8};
  m.split_k = 2;
  CHECK(says(mma_sync_plan(m).why, "split"));
}

TEST_CASE("the cuda::mm_wgmma heuristic offers a config with K split (two ways), or its ping-pong and cluster twins, right after the config, and its deep twin") {
  using namespace ctmatch::tune;
  DeclaredKernelTemplate<uids::cuda_mm_wgmma> wgmma;
  TuneOptions o;
  o.max_autotune = true;
  Choices choices(o, cuda_heuristic_registry());
  auto configs = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
    std::vector<GemmConfig> out;
    for (const auto& c : choices.get_mm_configs(MMKernelInputs::mm(m, n, k, DType::bf16, "cuda"), {&wgmma}, "mm"))
      out.push_back(*c.config());
    return out;
  };
  // Small problems: each config, then its split that fills the multiprocessors, then half of it.
  const auto skinny = configs(64, 4096, 4096);
  int split = 0, halves = 0;
  for (std::size_t i = 0; i < skinny.size(); ++i) {
    if (skinny[i].split_k == 1) continue;
    REQUIRE(i > 0);
    const bool half = skinny[i - 1].split_k > 1;
    const GemmConfig whole = skinny[i - (half ? 2 : 1)];
    CHECK(kernel_config(skinny[i]) == whole);
    const int full_split = wgmma_split_k(whole, 64, 4096, 4096);
    CHECK(skinny[i].split_k == (half ? full_split / 2 : full_split));
    ++(half ? halves : split);
  }
  CHECK(split > 0);
  CHECK(halves > 0);  // 64x128 tiles: 32 of them, 4 slices, then 2
  // Large problems: no split; each config whose ping-pong twin this build runs, then the twin.
  const auto large = configs(4096, 4096, 4096);
  int twins = 0;
  for (std::size_t i = 0; i < large.size(); ++i) {
    CHECK(large[i].split_k == 1);
    if (!large[i].pingpong) continue;
    ++twins;
    REQUIRE(i > 0);
    GemmConfig cooperative = large[i];
    cooperative.pingpong = false;
    CHECK(large[i - 1] == cooperative);
    CHECK(cuda_mm_wgmma_runnable(large[i]));
  }
  int runnable_twins = 0;
  for (const GemmConfig& c : wgmma_configs) runnable_twins += c.pingpong ? 1 : 0;
  CHECK(twins >= (runnable_twins > 0 ? 1 : 0));
  // Deep twins: offered where this build runs them, each config once. Inductor's 128x256x64
  // has 3 stages; every build runs its 4-stage twin.
  for (const auto& offered : {skinny, large}) {
    for (std::size_t i = 0; i < offered.size(); ++i) {
      const GemmConfig& c = offered[i];
      CHECK(std::count(offered.begin(), offered.end(), c) == 1);
      GemmConfig deep = wgmma_deepest(kernel_config(c));
      if (deep != kernel_config(c) && cuda_mm_wgmma_runnable(deep)) CHECK(std::count(offered.begin(), offered.end(), deep) == 1);
    }
  }
  CHECK(std::count(large.begin(), large.end(), GemmConfig{128, 256, 64, 4, 8, 8}) == 1);
  // Cluster twins: right after the config (or its ping-pong twin), only where M has a second
  // row of tiles; every build runs 128x256x64 s4's.
  int pairs = 0;
  for (std::size_t i = 0; i < large.size(); ++i) {
    if (large[i].cluster_m == 1) continue;
    ++pairs;
    REQUIRE(i > 0);
    GemmConfig single = large[i];
    single.cluster_m = 1;
    GemmConfig before = large[i - 1];
    before.pingpong = false;
    CHECK(before == single);
    CHECK(cuda_mm_wgmma_runnable(large[i]));
  }
  CHECK(pairs > 0);
  CHECK(std::count(large.begin(), large.end(), GemmConfig{128, 256, 64, 4, 8, 8, 1, false, 2}) == 1);
  for (const GemmConfig& c : skinny) CHECK(c.cluster_m == 1);  // 64 rows: nothing to pair with
  // One row of tiles: the narrow, deep tile too (every build runs 64x64x64 s14), and not where
  // M has several rows.
  CHECK(std::count(skinny.begin(), skinny.end(), GemmConfig{64, 64, 64, 14, 8, 8}) == 1);
  CHECK(std::count(large.begin(), large.end(), GemmConfig{64, 64, 64, 14, 8, 8}) == 0);
}
