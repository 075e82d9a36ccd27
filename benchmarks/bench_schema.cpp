// Run-time cost of the schema layer: parsing schema text, converting it to an OpSignature
// (defaults to typed Values), and looking a schema up by op id. The built-in table is parsed
// once per process by ensure_builtin_schemas(); this says what that once costs.
// Baseline in the same run: copying each schema text into a std::string (one allocation and
// a memcpy per schema), the least any parser that owns its result would do.
#include <benchmark/benchmark.h>

#include <ctmatch/schema.hpp>

#include <string>
#include <vector>

using namespace ctmatch;
using namespace ctmatch::schema;

namespace {
std::vector<std::string> table_texts() {
  return {std::begin(builtin_schemas), std::end(builtin_schemas)};
}
std::size_t table_bytes(const std::vector<std::string>& t) {
  std::size_t n = 0;
  for (const auto& s : t) n += s.size();
  return n;
}
}  // namespace

// Baseline: one std::string copy per schema text.
static void BM_copy_texts_baseline(benchmark::State& state) {
  auto texts = table_texts();
  for (auto _ : state) {
    for (const auto& t : texts) {
      std::string copy(t);
      benchmark::DoNotOptimize(copy.data());
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * texts.size()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * table_bytes(texts)));
}
BENCHMARK(BM_copy_texts_baseline);

// parse_schema at run time over the whole built-in table.
static void BM_parse_table(benchmark::State& state) {
  auto texts = table_texts();
  for (auto _ : state) {
    for (const auto& t : texts) {
      ParseResult r = parse_schema(t);
      benchmark::DoNotOptimize(r.schema.num_args);
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * texts.size()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * table_bytes(texts)));
}
BENCHMARK(BM_parse_table);

// parse + OpSignature + op key: everything ensure_builtin_schemas() does per op except the
// (mutex-guarded) interning.
static void BM_parse_and_signature_table(benchmark::State& state) {
  auto texts = table_texts();
  for (auto _ : state) {
    for (const auto& t : texts) {
      ParseResult r = parse_schema(t);
      OpSignature sig = to_signature(r.schema);
      std::string key = op_key(r.schema);
      benchmark::DoNotOptimize(sig.params.data());
      benchmark::DoNotOptimize(key.data());
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * texts.size()));
}
BENCHMARK(BM_parse_and_signature_table);

// find_schema(OpId): the lookup readers and explanations do per node.
static void BM_find_schema(benchmark::State& state) {
  ensure_builtin_schemas();
  std::vector<OpId> ids;
  for (std::string_view t : builtin_schemas) ids.push_back(intern_op(op_key(parse_schema(t).schema)));
  for (auto _ : state) {
    for (OpId id : ids) benchmark::DoNotOptimize(find_schema(id));
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * ids.size()));
}
BENCHMARK(BM_find_schema);

BENCHMARK_MAIN();
