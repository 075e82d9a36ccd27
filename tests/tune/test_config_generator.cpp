// The constexpr config generator against Inductor's own output (tests/data/mm_configs_expected.json,
// produced by torch 2.11's CUDA heuristic), plus its filters and the reachable set.
#include <doctest/doctest.h>

#include <boost/json/src.hpp>  // Boost.JSON, header-only: compiled into this test only

#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <ctmatch/tune/config_generator.hpp>
#include <ctmatch/tune/device_facts.hpp>

using namespace ctmatch::tune;

namespace {
boost::json::value load_expected() {
  std::ifstream in(std::string(CTMATCH_TEST_DATA) + "/mm_configs_expected.json");
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return boost::json::parse(ss.str());
}
int field(const boost::json::object& o, const char* name) { return static_cast<int>(o.at(name).as_int64()); }

// Constant expressions: these are evaluated by the compiler.
constexpr auto tiny = preprocess_mm_configs(8, 8, 8, default_mm_configs);
static_assert(tiny.size() == 5);
static_assert(tiny[0] == GemmConfig{16, 16, 16, 1, 1, 8});
static_assert(next_power_of_2(0) == 0 && next_power_of_2(1) == 1 && next_power_of_2(17) == 32 &&
              next_power_of_2(64) == 64);
// Past 2^62 the result saturates instead of overflowing (it once looped forever there).
static_assert(next_power_of_2((std::int64_t{1} << 62) + 1) == std::int64_t{1} << 62 &&
              next_power_of_2(std::numeric_limits<std::int64_t>::max()) == std::int64_t{1} << 62);
static_assert(shared_memory_bytes({128, 128, 64, 5, 8, 8}, 2) == 163840);
static_assert(covers_every_problem(default_mm_configs, reachable_default_mm_configs));
}  // namespace

TEST_CASE("the default mm config list is Inductor's, in order") {
  const auto doc = load_expected();
  const auto& list = doc.at("default_mm_configs").as_array();
  REQUIRE(list.size() == default_mm_configs.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto& o = list[i].as_object();
    CAPTURE(i);
    CHECK(default_mm_configs[i] == GemmConfig{field(o, "block_m"), field(o, "block_n"), field(o, "block_k"),
                                              field(o, "num_stages"), field(o, "num_warps"), field(o, "group_m")});
  }
}

TEST_CASE("preprocess_mm_configs equals Inductor's list for every case, order included") {
  const auto doc = load_expected();
  const auto& cases = doc.at("cases").as_array();
  REQUIRE(cases.size() >= 5);
  for (const auto& cv : cases) {
    const auto& c = cv.as_object();
    const std::int64_t m = c.at("m").as_int64(), n = c.at("n").as_int64(), k = c.at("k").as_int64();
    PreprocessOptions opt;
    opt.dtype_size = static_cast<int>(c.at("dtype_size").as_int64());
    const auto got = preprocess_mm_configs(m, n, k, default_mm_configs, opt);
    const auto& want = c.at("configs").as_array();
    CAPTURE(m);
    CAPTURE(n);
    CAPTURE(k);
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      const auto& o = want[i].as_object();
      CAPTURE(i);
      CHECK(got[i] == GemmConfig{field(o, "BLOCK_M"), field(o, "BLOCK_N"), field(o, "BLOCK_K"), field(o, "num_stages"),
                                 field(o, "num_warps"), field(o, "GROUP_M")});
      // and each one is instantiated
      CHECK(index_of(reachable_default_mm_configs, got[i]) >= 0);
    }
  }
}

TEST_CASE("num_warps is clamped to BLOCK_M*BLOCK_N/256 with no lower bound, before deduplication") {
  const auto got = preprocess_mm_configs(16, 16, 4096, default_mm_configs);
  for (const auto& c : got) CHECK(c.num_warps == 1);
  // (64,64,32,3,4) and (128,64,32,3,4) scale to the same config for m = 64: kept once
  const auto m64 = preprocess_mm_configs(64, 4096, 4096, default_mm_configs);
  int seen = 0;
  for (const auto& c : m64) seen += c == GemmConfig{64, 64, 32, 3, 4, 8};
  CHECK(seen == 1);
}

TEST_CASE("scaling options: scale, exclusion, int8 minimum BLOCK_K, max configs") {
  PreprocessOptions half;
  half.scale = 0.5;
  const auto h = preprocess_mm_configs(4096, 4096, 4096, default_mm_configs, half);
  CHECK(h[0] == GemmConfig{16, 16, 16, 1, 1, 8});  // 32*0.5 = 16, warps 16*16/256 = 1

  PreprocessOptions ex;
  ex.exclude = [](int bm, int bn, int) { return bm * bn > 4096; };
  for (const auto& c : preprocess_mm_configs(4096, 4096, 4096, default_mm_configs, ex)) CHECK(c.block_m * c.block_n <= 4096);

  PreprocessOptions i8;
  i8.has_int8_tensor = true;
  for (const auto& c : preprocess_mm_configs(8, 8, 8, default_mm_configs, i8)) CHECK(c.block_k == 32);

  PreprocessOptions cap;
  cap.max_configs = 3;
  CHECK(preprocess_mm_configs(4096, 4096, 4096, default_mm_configs, cap).size() == 3);
}

TEST_CASE("shared-memory filter: off by default, drops what exceeds the limit when on") {
  PreprocessOptions opt;
  opt.dtype_size = 4;
  const auto all = preprocess_mm_configs(4096, 4096, 4096, default_mm_configs, opt);
  opt.prune_shared_memory = true;
  opt.shared_memory_limit = sm90_shared_memory_bytes;
  const auto pruned = preprocess_mm_configs(4096, 4096, 4096, default_mm_configs, opt);
  CHECK(all.size() == 20);
  CHECK(pruned.size() < all.size());
  for (const auto& c : pruned) CHECK(shared_memory_bytes(c, 4) <= sm90_shared_memory_bytes);
  std::size_t over = 0;
  for (const auto& c : all) over += shared_memory_bytes(c, 4) > sm90_shared_memory_bytes;
  CHECK(pruned.size() + over == all.size());
  // the limit unknown (0): nothing is pruned, as Inductor without device properties
  opt.shared_memory_limit = 0;
  CHECK(preprocess_mm_configs(4096, 4096, 4096, default_mm_configs, opt).size() == all.size());
}

TEST_CASE("the exhaustive search space and its register-spill prune") {
  static_assert(exhaustive_mm_configs.size() == 5 * 5 * 5 * 5 * 3);
  CHECK(exhaustive_mm_configs[0] == GemmConfig{16, 16, 16, 1, 2, 8});
  CHECK(exhaustive_mm_configs[1] == GemmConfig{16, 16, 16, 1, 4, 8});
  CHECK(exhaustive_mm_configs.back() == GemmConfig{256, 256, 256, 5, 8, 8});
  PreprocessOptions opt;
  opt.dtype_size = 2;
  opt.exhaustive_prune = true;
  const auto got = preprocess_mm_configs(4096, 4096, 4096, exhaustive_mm_configs, opt);
  // 256x256 with 2 warps needs 1024 accumulator registers per thread: pruned; with 8: 256 > 255: pruned
  for (const auto& c : got) CHECK((c.block_m * c.block_n + c.num_warps * 32 - 1) / (c.num_warps * 32) <= 255);
  bool has_256_256 = false;
  for (const auto& c : got) has_256_256 |= c.block_m == 256 && c.block_n == 256;
  CHECK_FALSE(has_256_256);
  bool has_256_128_8 = false;
  for (const auto& c : got) has_256_128_8 |= c.block_m == 256 && c.block_n == 128 && c.num_warps == 8;
  CHECK(has_256_128_8);
}

TEST_CASE("the reachable set is exactly the union of every problem's selection") {
  static_assert(reachable_default_count == reachable_default_mm_configs.size());
  std::vector<GemmConfig> seen;
  for (std::int64_t m = 1; m <= 300; m = m * 2 + 1)
    for (std::int64_t n = 1; n <= 300; n = n * 2 + 1)
      for (std::int64_t k = 1; k <= 300; k = k * 2 + 1)
        for (const auto& c : preprocess_mm_configs(m, n, k, default_mm_configs)) {
          REQUIRE(index_of(reachable_default_mm_configs, c) >= 0);
          bool dup = false;
          for (const auto& s : seen) dup |= s == c;
          if (!dup) seen.push_back(c);
        }
  CHECK(seen.size() == reachable_default_mm_configs.size());  // nothing instantiated in vain
  for (std::size_t i = 1; i < reachable_default_mm_configs.size(); ++i)
    CHECK(sort_key(reachable_default_mm_configs[i - 1]) < sort_key(reachable_default_mm_configs[i]));
  // the wgmma list (blocks up to 256) enumerates too
  constexpr auto wgmma = reachable_mm_configs(persistent_mm_configs);
  CHECK(wgmma.size() > persistent_mm_configs.size());
}
