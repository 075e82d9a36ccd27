// bench_match: match-only cost of the eight benchmark patterns (match_patterns.hpp), DSL
// beside hand-written C++, per candidate node (a node whose op is the pattern's root op), on
// gpt2 and bert (and seed_mlp, the only graph with gelu_tanh and mm_scale_cast candidates besides
// bert's gelus); and the whole eight-pattern match-only scan of a graph (every node, rules
// dispatched by root op through a table indexed by OpId), DSL and hand-written.
//
//   bench_match [DATA_DIR] [google benchmark flags]
// DATA_DIR holds NAME.export.json; default: the test data (gpt2 only, bert is not copied
// there). Graphs missing from DATA_DIR are skipped with a note. No graph has a _to_copy node, so
// to_copy_pair has no candidate anywhere (its matcher is covered by the tests).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <ctmatch/io/read.hpp>
#include <ctmatch/schema/builtin.hpp>

#include "match_patterns.hpp"

using namespace match_bench;

namespace {

struct Loaded {
  std::string name;
  Graph g;
};
std::vector<Loaded>& graphs() {
  static std::vector<Loaded> gs;
  return gs;
}

template <class P>
std::vector<NodeId> candidates(const P& p, const Graph& g) {
  auto ids = root_ops(p);
  std::vector<NodeId> out;
  for (const Node& n : g.nodes())
    for (OpId id : ids)
      if (n.op() == id) out.push_back(n.id());
  return out;
}

void per_candidate(benchmark::State& st, std::size_t n, std::size_t found) {
  st.counters["candidates"] = static_cast<double>(n);
  st.counters["matches"] = static_cast<double>(found);
  st.counters["per_cand"] = benchmark::Counter(static_cast<double>(n),
                                              benchmark::Counter::kIsIterationInvariantRate |
                                                  benchmark::Counter::kInvert);
}

template <class P>
void bench_dsl(benchmark::State& st, const P* p, const Graph* g) {
  std::vector<NodeId> cands = candidates(*p, *g);
  Match<P> m;
  std::size_t found = 0;
  for (auto _ : st) {
    found = 0;
    for (NodeId n : cands) found += match_into(*p, *g, n, m);
    benchmark::DoNotOptimize(found);
    benchmark::DoNotOptimize(m);
  }
  per_candidate(st, cands.size(), found);
}

template <class P, class C, class F>
void bench_hand(benchmark::State& st, const P* p, F f, const Graph* g) {
  static const Ops ops;
  std::vector<NodeId> cands = candidates(*p, *g);  // the same candidates as the DSL's
  C c{};
  std::size_t found = 0;
  for (auto _ : st) {
    found = 0;
    for (NodeId n : cands) found += f(ops, *g, n, c);
    benchmark::DoNotOptimize(found);
    benchmark::DoNotOptimize(c);
  }
  per_candidate(st, cands.size(), found);
}

// ---- the whole scan -------------------------------------------------------------------------
void bench_scan_dsl(benchmark::State& st, const Graph* gp) {
  const Graph& g = *gp;
  DslScan scan;
  std::size_t found = 0;
  for (auto _ : st) {
    found = scan.scan(g);
    benchmark::DoNotOptimize(found);
  }
  st.counters["nodes"] = static_cast<double>(g.size());
  st.counters["matches"] = static_cast<double>(found);
}

void bench_scan_hand(benchmark::State& st, const Graph* gp) {
  const Graph& g = *gp;
  static const Ops ops;
  std::vector<std::uint8_t> table = dispatch_table();
  hand::ViewView c0; hand::PermuteIdentity c1; hand::ToCopyPair c2; hand::MmBias c3;
  hand::Attention c4; hand::GeluTanh c5; hand::LayerNorm c6; hand::MmScaleCast c7;
  std::size_t found = 0;
  for (auto _ : st) {
    found = 0;
    for (NodeId n = g.first(); n != no_node; n = g.next(n)) {
      OpId op = g[n].op();
      if (op >= table.size() || !table[op]) continue;
      std::uint8_t mask = table[op];
      if (mask & 1) found += hand::view_view(ops, g, n, c0);
      if (mask & 2) found += hand::permute_identity(ops, g, n, c1);
      if (mask & 4) found += hand::to_copy_pair(ops, g, n, c2);
      if (mask & 8) found += hand::mm_bias(ops, g, n, c3);
      if (mask & 16) found += hand::attention(ops, g, n, c4);
      if (mask & 32) found += hand::gelu_tanh(ops, g, n, c5);
      if (mask & 64) found += hand::layer_norm(ops, g, n, c6);
      if (mask & 128) found += hand::mm_scale_cast(ops, g, n, c7);
    }
    benchmark::DoNotOptimize(found);
    benchmark::DoNotOptimize(c0); benchmark::DoNotOptimize(c6);
  }
  st.counters["nodes"] = static_cast<double>(g.size());
  st.counters["matches"] = static_cast<double>(found);
}

template <class P, class C, class F>
void register_pair(const char* rule, const P& p, F hand_fn) {
  for (const Loaded& l : graphs()) {
    benchmark::RegisterBenchmark((std::string("match/") + l.name + "/" + rule + "/dsl").c_str(),
                                 [&p, g = &l.g](benchmark::State& st) { bench_dsl(st, &p, g); });
    benchmark::RegisterBenchmark((std::string("match/") + l.name + "/" + rule + "/hand").c_str(),
                                 [&p, hand_fn, g = &l.g](benchmark::State& st) {
                                   bench_hand<P, C>(st, &p, hand_fn, g);
                                 });
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = CTMATCH_TEST_DATA;
  if (argc > 1 && argv[1][0] != '-') {
    dir = argv[1];
    for (int i = 1; i + 1 < argc; ++i) argv[i] = argv[i + 1];
    --argc;
  }
  schema::ensure_builtin_schemas();
  for (const char* name : {"gpt2", "bert", "seed_mlp"}) {
    std::filesystem::path file = std::filesystem::path(dir) / (std::string(name) + ".export.json");
    if (!std::filesystem::exists(file)) {
      std::fprintf(stderr, "bench_match: %s not found, skipped\n", file.c_str());
      continue;
    }
    graphs().push_back(Loaded{name, io::read_graph_file(file.string())});
  }
  graphs().shrink_to_fit();  // the registered lambdas keep pointers into it: no more growth

  register_pair<std::remove_const_t<decltype(view_view)>, hand::ViewView>("view_view", view_view, hand::view_view);
  register_pair<std::remove_const_t<decltype(permute_identity)>, hand::PermuteIdentity>("permute_identity", permute_identity, hand::permute_identity);
  register_pair<std::remove_const_t<decltype(to_copy_pair)>, hand::ToCopyPair>("to_copy_pair", to_copy_pair, hand::to_copy_pair);
  register_pair<std::remove_const_t<decltype(mm_bias)>, hand::MmBias>("mm_bias", mm_bias, hand::mm_bias);
  register_pair<std::remove_const_t<decltype(attention)>, hand::Attention>("attention", attention, hand::attention);
  register_pair<std::remove_const_t<decltype(gelu_tanh)>, hand::GeluTanh>("gelu_tanh", gelu_tanh, hand::gelu_tanh);
  register_pair<std::remove_const_t<decltype(layer_norm)>, hand::LayerNorm>("layer_norm", layer_norm, hand::layer_norm);
  register_pair<std::remove_const_t<decltype(mm_scale_cast)>, hand::MmScaleCast>("mm_scale_cast", mm_scale_cast, hand::mm_scale_cast);
  for (const Loaded& l : graphs()) {
    benchmark::RegisterBenchmark(("scan/" + l.name + "/dsl").c_str(),
                                 [g = &l.g](benchmark::State& st) { bench_scan_dsl(st, g); })
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("scan/" + l.name + "/hand").c_str(),
                                 [g = &l.g](benchmark::State& st) { bench_scan_hand(st, g); })
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
