// The `bench` rule set in sweep mode (match + rewrite, the whole pass) per graph, beside
// PyTorch Inductor's PatternMatcherPass on the same graphs and rules (its times from the
// reference run, tests/data/bench_expected.json's source), and the scaling of the pass on
// synthetic graphs made by repeating gpt2 (12 transformer blocks each, its placeholders shared)
// at about 1k, 10k, 100k and 1M nodes, and the peak memory per node at 1M.
//
//   bench_pass [DATA_DIR] [google benchmark flags]
// DATA_DIR (default: the test data) is searched for NAME.export.json, then NAME.export.fx.txt,
// for seed_mlp, resnet18, gpt2 and bert; a missing graph is left out.
//
// Each iteration restores the input graph by copy assignment (not timed), so the arena of the
// graph under test has room to grow, as a graph read from a file usually has; the "fresh copy"
// variant also times the first growth of an exactly-sized copy.
#include <benchmark/benchmark.h>

#include <ctmatch/io/read.hpp>
#include <ctmatch/rewrite.hpp>
#include <ctmatch/rewrite/bench_rules.hpp>
#include <ctmatch/schema/builtin.hpp>

#include <fstream>
#include <map>
#include <string>

using namespace ctmatch;

namespace {
std::string data_dir = CTMATCH_TEST_DATA;

// Inductor's median time for match + rewrite with the same rules (torch 2.11, the GPU
// machine's CPU), from the reference run (expected_dev.json).
const std::map<std::string, double> inductor_ms = {
    {"seed_mlp", 1.30}, {"resnet18", 2.44}, {"gpt2", 18.0}, {"bert", 22.8}};

bool exists(const std::string& p) { return std::ifstream(p).good(); }

PassOptions fast() {
  PassOptions o;
  o.verify_after_pass = false;
  return o;
}

void run_sweep(benchmark::State& state, const Graph& input, double inductor, bool fresh) {
  auto rules = rules::bench_rules();
  Graph g = input;
  std::size_t matches = 0;
  for (auto _ : state) {
    state.PauseTiming();
    if (fresh) g = Graph(input);
    else g = input;
    state.ResumeTiming();
    matches = sweep(g, rules, fast()).total_matches();
    benchmark::DoNotOptimize(matches);
  }
  double n = static_cast<double>(input.size());
  state.counters["nodes"] = n;
  state.counters["matches"] = static_cast<double>(matches);
  // Seconds per node (CPU time), printed with an SI prefix: 110n is 110 ns per node.
  state.counters["per_node"] =
      benchmark::Counter(n, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  if (inductor > 0) state.counters["inductor_ms"] = inductor;
}

/// `copies` copies of `g` side by side: placeholders shared, every other node renamed
/// NAME_cK, one output gathering every copy's results.
Graph repeat(const Graph& g, std::size_t copies) {
  Graph out;
  std::vector<NodeId> shared(g.id_bound(), no_node);
  for (const Node& n : g.nodes())
    if (n.kind() == NodeKind::Placeholder) shared[n.id()] = out.placeholder(n.name());
  std::vector<Value> results;
  std::vector<NodeId> map(g.id_bound(), no_node);
  for (std::size_t c = 0; c < copies; ++c) {
    auto remap = [&](Value v) {
      std::vector<std::pair<NodeId, NodeId>> pairs;
      v.for_each_node([&](NodeId id) { pairs.emplace_back(id, shared[id] != no_node ? shared[id] : map[id]); });
      for (auto [from, to] : pairs) v.replace_node(from, to);
      return v;
    };
    for (const Node& n : g.nodes()) {
      if (n.kind() == NodeKind::Placeholder) continue;
      if (n.kind() == NodeKind::Output) {
        for (const Value& v : n.args()) results.push_back(remap(v));
        continue;
      }
      NodeSpec s{n.kind(), n.op(), n.name() + "_c" + std::to_string(c), n.target(), {}, {}};
      for (const Value& v : n.args()) s.args.push_back(remap(v));
      for (const Kwarg& k : n.kwargs()) s.kwargs.push_back(Kwarg{k.name, remap(k.value)});
      map[n.id()] = out.create(std::move(s));
      out[map[n.id()]].meta = n.meta;
    }
  }
  out.output(std::move(results));
  return out;
}

long rss_kb(const char* field) {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(std::string(field).size()));
  return 0;
}

std::map<std::string, Graph>& graphs() {
  static std::map<std::string, Graph> gs;
  return gs;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && argv[1][0] != '-') {
    data_dir = argv[1];
    for (int i = 1; i + 1 < argc; ++i) argv[i] = argv[i + 1];
    --argc;
  }
  schema::ensure_builtin_schemas();
  for (const char* name : {"seed_mlp", "resnet18", "gpt2", "bert"}) {
    for (const char* suffix : {".export.json", ".export.fx.txt"}) {
      std::string path = data_dir + "/" + name + suffix;
      if (!exists(path)) continue;
      graphs().emplace(name, io::read_graph_file(path));
      const Graph& g = graphs().at(name);
      double ind = inductor_ms.at(name);
      benchmark::RegisterBenchmark((std::string("sweep/") + name).c_str(),
                                   [&g, ind](benchmark::State& s) { run_sweep(s, g, ind, false); })
          ->Unit(benchmark::kMicrosecond);
      benchmark::RegisterBenchmark((std::string("sweep_fresh_copy/") + name).c_str(),
                                   [&g, ind](benchmark::State& s) { run_sweep(s, g, ind, true); })
          ->Unit(benchmark::kMicrosecond);
      break;
    }
  }
  // Scaling: gpt2 repeated to about 1k, 10k, 100k and 1M nodes.
  if (graphs().count("gpt2")) {
    const Graph& base = graphs().at("gpt2");
    std::size_t per_copy = 0;  // repeat() shares placeholders: a copy adds the other nodes
    for (const Node& n : base.nodes()) per_copy += n.kind() != NodeKind::Placeholder;
    const std::size_t million_copies = (1000000 + per_copy / 2) / per_copy;
    // Peak memory at 1M nodes: resident memory of the graph, and the peak while the pass runs.
    benchmark::RegisterBenchmark(("memory/gpt2x" + std::to_string(million_copies)).c_str(),
                                 [&base, million_copies](benchmark::State& s) {
      for (auto _ : s) {
        long before = rss_kb("VmRSS:");
        Graph g = repeat(base, million_copies);
        long built = rss_kb("VmRSS:");
        PassStats st = sweep(g, rules::bench_rules(), fast());
        long peak = rss_kb("VmHWM:");
        double n = static_cast<double>(st.nodes_before);
        s.counters["nodes"] = n;
        s.counters["graph_bytes_per_node"] = 1024.0 * static_cast<double>(built - before) / n;
        s.counters["peak_bytes_per_node"] = 1024.0 * static_cast<double>(peak - before) / n;
        s.counters["pass_s"] = st.seconds;
      }
    })->Iterations(1)->Repetitions(1)->Unit(benchmark::kMillisecond);

    for (std::size_t target : {1000, 10000, 100000, 1000000}) {
      std::size_t copies = std::max<std::size_t>(1, (target + per_copy / 2) / per_copy);
      benchmark::RegisterBenchmark(("scaling/gpt2x" + std::to_string(copies)).c_str(),
                                   [&base, copies](benchmark::State& s) {
                                     static std::map<std::size_t, Graph> cache;
                                     if (!cache.count(copies)) cache.emplace(copies, repeat(base, copies));
                                     run_sweep(s, cache.at(copies), 0, false);
                                   })
          ->Unit(benchmark::kMillisecond)
          ->Iterations(copies >= 1000 ? 3 : copies >= 100 ? 10 : 50)
          ->Repetitions(copies >= 1000 ? 1 : 3);
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
