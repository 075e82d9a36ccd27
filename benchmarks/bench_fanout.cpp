// Wide graphs (tests/wide_graphs.hpp): a placeholder with N users, and a cat with N inputs.
// Reading, verifying and rewriting them must be linear in nodes + edges; the target is a
// placeholder with 1M users read, verified and passed in under 1 s.
//   fanout_read/N      FX text -> Graph
//   fanout_verify/N    verify() of the graph as read
//   fanout_fixpoint/N  fixpoint with the default rules (permute_noop rewrites every user of
//                      the placeholder: each rewrite drops a user of it and adds one)
//   fanout_sweep/N     the same with sweep
//   fanout_total/N     read + verify + fixpoint: what ctmatch-opt does with the file in a
//                      Release build (--mode fixpoint --emit none), and the target's three steps
//   fanout_file/N      the same from a file, as ctmatch-opt reads it (read_graph_file maps a
//                      large file rather than copying it)
// The graphs have 2N + 3 nodes; nodes/s counts them.
#include <benchmark/benchmark.h>

#include <ctmatch/graph/verify.hpp>
#include <ctmatch/io/fx_text.hpp>
#include <ctmatch/io/read.hpp>
#include <ctmatch/rewrite.hpp>
#include <ctmatch/rules/default.hpp>

#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>

#include "wide_graphs.hpp"

using namespace ctmatch;

namespace {

const std::string& text_of(std::size_t n) {
  static std::map<std::size_t, std::string> texts;  // one size at a time: each is large
  auto it = texts.find(n);
  if (it == texts.end()) {
    texts.clear();
    it = texts.emplace(n, fanout_fx_text(n)).first;
  }
  return it->second;
}

void counters(benchmark::State& state, std::size_t n) {
  const double nodes = static_cast<double>(2 * n + 3);
  state.counters["nodes"] = nodes;
  state.counters["nodes/s"] = benchmark::Counter(nodes, benchmark::Counter::kIsIterationInvariantRate);
}

PassOptions quiet() {
  PassOptions o;
  o.verify_after_pass = false;
  o.record_roots = false;
  return o;
}

void bm_read(benchmark::State& state) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  const std::string& t = text_of(n);
  for (auto _ : state) {
    Graph g = io::read_fx_text(t, "fanout.fx.txt");
    benchmark::DoNotOptimize(g.size());
  }
  counters(state, n);
}

void bm_verify(benchmark::State& state) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  Graph g = io::read_fx_text(text_of(n), "fanout.fx.txt");
  for (auto _ : state) verify(g);
  counters(state, n);
}

template <bool Fixpoint>
void bm_pass(benchmark::State& state) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  const Graph original = io::read_fx_text(text_of(n), "fanout.fx.txt");
  const auto rules = rules::default_rules();
  std::size_t rewrites = 0;
  for (auto _ : state) {
    state.PauseTiming();
    Graph g = original;
    state.ResumeTiming();
    PassStats s = Fixpoint ? fixpoint(g, rules, quiet()) : sweep(g, rules, quiet());
    rewrites = s.total_matches();
    state.PauseTiming();
    { Graph done = std::move(g); }  // freed outside the timed region
    state.ResumeTiming();
  }
  if (rewrites != n) state.SkipWithError("the pass did not rewrite every user of the placeholder");
  counters(state, n);
}

void bm_total(benchmark::State& state) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  const std::string& t = text_of(n);
  const auto rules = rules::default_rules();
  for (auto _ : state) {
    Graph g = io::read_fx_text(t, "fanout.fx.txt");
    verify(g);
    PassStats s = fixpoint(g, rules, quiet());
    benchmark::DoNotOptimize(s.total_matches());
  }
  counters(state, n);
}

void bm_file(benchmark::State& state) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("ctmatch_fanout_" + std::to_string(::getpid()) + ".fx.txt")).string();
  write_file_atomically(path, text_of(n));
  const auto rules = rules::default_rules();
  for (auto _ : state) {
    Graph g = io::read_graph_file(path);
    verify(g);
    PassStats s = fixpoint(g, rules, quiet());
    benchmark::DoNotOptimize(s.total_matches());
  }
  std::filesystem::remove(path);
  counters(state, n);
}

void sizes(benchmark::internal::Benchmark* b) {
  b->Arg(10'000)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();
}

}  // namespace

BENCHMARK(bm_read)->Name("fanout_read")->Apply(sizes);
BENCHMARK(bm_verify)->Name("fanout_verify")->Apply(sizes);
BENCHMARK(bm_pass<true>)->Name("fanout_fixpoint")->Apply(sizes);
BENCHMARK(bm_pass<false>)->Name("fanout_sweep")->Apply(sizes);
BENCHMARK(bm_total)->Name("fanout_total")->Apply(sizes);
BENCHMARK(bm_file)->Name("fanout_file")->Apply(sizes);

BENCHMARK_MAIN();
