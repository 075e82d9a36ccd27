// The port of Inductor's joint-graph pass (rules::inductor_joint) on the graphs Inductor's own
// pass was run on (tests/data/inductor: the Inductor-decomposed torch.export graphs of the
// oracle, tools/oracle/inductor_oracle.py). Counters: the entries' handler calls, as Inductor
// counts them (matches + unchanged: they must equal its `matched` for the ported entries), and
// `inductor_ms`, Inductor's time for its whole joint pass on the same graph (joint.json's
// median_s, taken on the GPU machine's CPU; it runs all 138 entries, the port 3 so far, so the
// ratio is not like for like until the port is complete).
//
//   bench_inductor_rules --benchmark_filter='joint/'
#include <benchmark/benchmark.h>

#include <boost/json/src.hpp>

#include <chrono>
#include <map>
#include <string>

#include <ctmatch/io/read.hpp>
#include <ctmatch/rewrite.hpp>
#include <ctmatch/rules/inductor_joint.hpp>
#include <ctmatch/schema/builtin.hpp>

using namespace ctmatch;

namespace {
const std::string oracle = std::string(CTMATCH_TEST_DATA) + "/inductor";

PassOptions fast() {
  PassOptions o;
  o.verify_after_pass = false;
  o.record_roots = false;
  return o;
}

void run(benchmark::State& state, const Graph& input, double inductor_s) {
  const auto rules = rules::inductor_joint();
  Graph g = input;
  std::size_t calls = 0;
  for (auto _ : state) {
    g = input;  // restored, not timed
    auto t0 = std::chrono::steady_clock::now();
    PassStats st = sweep(g, rules, fast());
    auto t1 = std::chrono::steady_clock::now();
    calls = 0;
    for (const RuleStats& r : st.rules) calls += r.matches + r.unchanged;
    benchmark::DoNotOptimize(calls);
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
  }
  state.counters["nodes"] = static_cast<double>(input.size());
  state.counters["handler_calls"] = static_cast<double>(calls);
  state.counters["inductor_ms"] = inductor_s * 1e3;
}

const bool registered = [] {
  schema::ensure_builtin_schemas();
  static std::map<std::string, Graph> graphs;
  const boost::json::value joint = boost::json::parse(io::read_file(oracle + "/joint.json"));
  for (const char* name : {"gpt2", "bert", "llama", "resnet18"}) {
    graphs.emplace(name, io::read_graph_file(oracle + "/joint/" + name + ".export.fx.txt"));
    const double inductor_s = joint.at("graphs").at(name).at("median_s").as_double();
    benchmark::RegisterBenchmark((std::string("joint/") + name).c_str(),
                                 [name, inductor_s](benchmark::State& s) { run(s, graphs.at(name), inductor_s); })
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  }
  return true;
}();
}  // namespace

BENCHMARK_MAIN();
