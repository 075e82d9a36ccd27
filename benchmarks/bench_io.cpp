// Reader and writer throughput for every graph file of tests/data (and of an optional
// directory given as the last argument: `bench_io [benchmark flags] [DIR]`), in both formats:
//   read_json/NAME, read_fx/NAME      text -> Graph (MB/s as bytes_per_second, nodes/s)
//   write_json/NAME, write_fx/NAME    Graph -> text
// and, on the JSON files, the libraries the JSON reader could be built on (what decided it):
//   boost_json_dom/NAME               Boost.JSON: parse into its DOM (header-only build)
//   simdjson_dom/NAME                 simdjson: parse into its DOM
//   simdjson_ondemand_walk/NAME       simdjson On-Demand: visit every value once, as the
//                                     reader does, without building anything
#include <benchmark/benchmark.h>
#include <boost/json/src.hpp>  // Boost.JSON header-only: compiled here, in this one file

#include <ctmatch/io/export_json.hpp>
#include <ctmatch/io/fx_text.hpp>
#include <ctmatch/io/read.hpp>
#include <ctmatch/schema/builtin.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace ctmatch;

namespace {

struct GraphFile {
  std::string name;  // e.g. gpt2.export.json
  std::string text;
  bool json;
  std::size_t nodes;
};

void set_counters(benchmark::State& state, const GraphFile& f) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * f.text.size()));
  state.counters["nodes/s"] = benchmark::Counter(static_cast<double>(f.nodes), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["nodes"] = static_cast<double>(f.nodes);
}

Graph read(const GraphFile& f) {
  return f.json ? io::read_export_json(f.text, f.name) : io::read_fx_text(f.text, f.name);
}

void bm_read(benchmark::State& state, const GraphFile* f) {
  for (auto _ : state) {
    Graph g = read(*f);
    benchmark::DoNotOptimize(g.size());
  }
  set_counters(state, *f);
}

void bm_write(benchmark::State& state, const GraphFile* f) {
  Graph g = read(*f);
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::string s = f->json ? io::write_export_json(g) : io::write_fx_text(g);
    bytes = s.size();
    benchmark::DoNotOptimize(s.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
  state.counters["nodes/s"] = benchmark::Counter(static_cast<double>(f->nodes), benchmark::Counter::kIsIterationInvariantRate);
}

void bm_boost_dom(benchmark::State& state, const GraphFile* f) {
  for (auto _ : state) {
    boost::json::monotonic_resource mr;
    boost::json::parse_options opt;
    opt.max_depth = 1024;
    boost::json::value v = boost::json::parse(f->text, &mr, opt);
    benchmark::DoNotOptimize(v.is_object());
  }
  set_counters(state, *f);
}

void bm_simdjson_dom(benchmark::State& state, const GraphFile* f) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(f->text);
  for (auto _ : state) {
    simdjson::dom::element doc;
    auto err = parser.parse(padded).get(doc);
    benchmark::DoNotOptimize(err);
  }
  set_counters(state, *f);
}

/// Visits every value of an On-Demand document (strings unescaped, numbers parsed).
std::size_t walk(simdjson::ondemand::value v) {
  using simdjson::ondemand::json_type;
  switch (v.type().value_unsafe()) {
    case json_type::object: {
      std::size_t n = 1;
      for (auto field : v.get_object()) {
        std::string_view key = field.unescaped_key().value_unsafe();
        n += key.size() > 0;
        n += walk(field.value());
      }
      return n;
    }
    case json_type::array: {
      std::size_t n = 1;
      for (auto item : v.get_array()) n += walk(item.value_unsafe());
      return n;
    }
    case json_type::string: return v.get_string().value_unsafe().size() > 0;
    case json_type::number: return v.get_double().value_unsafe() != 0;
    case json_type::boolean: return v.get_bool().value_unsafe();
    case json_type::null: return v.is_null().value_unsafe();
  }
  return 0;
}

void bm_simdjson_ondemand(benchmark::State& state, const GraphFile* f) {
  simdjson::ondemand::parser parser;
  simdjson::padded_string padded(f->text);
  for (auto _ : state) {
    auto doc = parser.iterate(padded);
    simdjson::ondemand::value root = doc.get_value().value_unsafe();
    benchmark::DoNotOptimize(walk(root));
  }
  set_counters(state, *f);
}

std::vector<std::unique_ptr<GraphFile>> load(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> paths;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::string n = e.path().filename().string();
    bool json = n.size() > 12 && n.substr(n.size() - 12) == ".export.json";
    bool fx = n.size() > 7 && n.substr(n.size() - 7) == ".fx.txt";
    if (json || fx) paths.push_back(e.path());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<std::unique_ptr<GraphFile>> files;
  for (const auto& p : paths) {
    auto f = std::make_unique<GraphFile>();
    f->name = p.filename().string();
    f->text = io::read_file(p.string());
    f->json = f->name.substr(f->name.size() - 5) == ".json";
    f->nodes = read(*f).size();
    files.push_back(std::move(f));
  }
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  schema::ensure_builtin_schemas();  // once per process, not part of a read
  std::vector<std::unique_ptr<GraphFile>> files = load(CTMATCH_TEST_DATA);
  if (argc > 1)
    for (auto& f : load(argv[argc - 1])) files.push_back(std::move(f));
  for (const auto& f : files) {
    const GraphFile* p = f.get();
    std::string fmt = p->json ? "json" : "fx";
    benchmark::RegisterBenchmark(("read_" + fmt + "/" + p->name).c_str(), bm_read, p)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("write_" + fmt + "/" + p->name).c_str(), bm_write, p)->Unit(benchmark::kMillisecond);
    if (p->json) {
      benchmark::RegisterBenchmark(("boost_json_dom/" + p->name).c_str(), bm_boost_dom, p)->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("simdjson_dom/" + p->name).c_str(), bm_simdjson_dom, p)->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("simdjson_ondemand_walk/" + p->name).c_str(), bm_simdjson_ondemand, p)
          ->Unit(benchmark::kMillisecond);
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
