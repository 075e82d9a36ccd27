// The ports of Inductor's joint-graph pattern passes (rules::inductor_joint, and the two passes
// Inductor runs around it, rules::inductor_joint_early and rules::inductor_joint_late) on the
// graphs Inductor's own passes were run on (tests/data/inductor: the Inductor-decomposed
// torch.export graphs of the oracle, tools/oracle/inductor_oracle.py). Each pass gets the graph
// Inductor hands it: early and joint the exported graph, late the graph joint leaves (the same
// on these four: joint changes none of them). Counters: the entries' handler calls, as Inductor
// counts them (matches + unchanged: they equal its `matched` where every entry that fires is
// ported), and `inductor_ms`, Inductor's time for its whole pass on the same graph (joint.json's
// median_s, taken on the GPU machine's CPU), where the oracle recorded it. To pair both sides
// in one run on one machine, point CTMATCH_INDUCTOR_TIMES at the joint.json an oracle run just
// wrote (`inductor_oracle.py --passes joint --only gpt2 bert llama resnet18 --out DIR`).
//
//   bench_inductor_rules --benchmark_filter='joint/'     (early/, late/)
#include <benchmark/benchmark.h>

#include <boost/json/src.hpp>

#include <chrono>
#include <cstdlib>
#include <map>
#include <string>

#include <ctmatch/io/read.hpp>
#include <ctmatch/rewrite.hpp>
#include <ctmatch/rules/inductor_joint.hpp>
#include <ctmatch/rules/inductor_joint_early.hpp>
#include <ctmatch/rules/inductor_joint_late.hpp>
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

template <class Set>
void run(benchmark::State& state, const Set& rules, const Graph& input, const boost::json::value* inductor_s) {
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
  if (inductor_s) state.counters["inductor_ms"] = inductor_s->as_double() * 1e3;
}
template <class Set>
void add(const char* pass, const char* name, Set rules, const Graph& g, const boost::json::value* inductor_s) {
  benchmark::RegisterBenchmark((std::string(pass) + "/" + name).c_str(),
                               [rules, &g, inductor_s](benchmark::State& s) { run(s, rules, g, inductor_s); })
      ->UseManualTime()
      ->MinTime(0.05)  // of timed passes: each iteration also copies the graph, untimed, which costs more
      ->Unit(benchmark::kMicrosecond);
}
const bool registered = [] {
  schema::ensure_builtin_schemas();
  static std::map<std::string, Graph> graphs;
  const char* times = std::getenv("CTMATCH_INDUCTOR_TIMES");
  static const boost::json::value joint = boost::json::parse(io::read_file(times ? times : oracle + "/joint.json"));
  for (const char* name : {"gpt2", "bert", "llama", "resnet18"}) {
    const Graph& g = graphs.emplace(name, io::read_graph_file(oracle + "/joint/" + name + ".export.fx.txt")).first->second;
    const boost::json::object& rec = joint.at("graphs").at(name).as_object();
    auto median_of = [&](const char* pass) -> const boost::json::value* {
      const boost::json::value* r = rec.if_contains(pass);
      return r ? r->as_object().if_contains("median_s") : nullptr;
    };
    add("early", name, rules::inductor_joint_early(), g, median_of("early"));
    add("joint", name, rules::inductor_joint(), g, rec.if_contains("median_s"));
    add("late", name, rules::inductor_joint_late(), g, median_of("later"));
  }
  return true;
}();
}  // namespace

BENCHMARK_MAIN();
