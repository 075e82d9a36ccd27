// Matching allocates nothing: a counting global operator new around match attempts on a real
// graph (every node, the eight benchmark patterns, matches and failures alike).
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include <ctmatch/io/read.hpp>
#include <ctmatch/schema/builtin.hpp>

#include "../../benchmarks/match_patterns.hpp"

namespace {
std::atomic<std::size_t> allocations{0};
}  // namespace

// The replacement operator new allocates with malloc, so its delete frees: g++ 12 cannot see
// that pairing through inlining and warns.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

void* operator new(std::size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

using namespace match_bench;

TEST_CASE("match_into allocates nothing, whether it matches or not") {
  schema::ensure_builtin_schemas();
  Graph g = io::read_graph_file(std::string(CTMATCH_TEST_DATA) + "/bert.export.fx.txt");
  DslScan s;
  s.scan_all(g);  // first use interns the ops and registers their schemas

  std::size_t before = allocations.load();
  std::size_t found = s.scan_all(g);
  std::size_t after = allocations.load();
  CHECK(found == 48 + 12 + 25);
  CHECK(after - before == 0);
  // The counter works: explain (which builds text) does allocate.
  auto e = explain(layer_norm, g, g.find("view_2"));
  CHECK_FALSE(e.matched);
  CHECK(allocations.load() > after);
}
