// ctmatch-opt --stats-json: `nodes` is len(graph.nodes) and `hist` counts call_function ops,
// the same from a model's torch.export JSON and its FX text, and equal to a count of the
// `target=` entries of the FX text made here by scanning the text.
#include <doctest/doctest.h>

#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "test_cli_run.hpp"

using cli_test::quote;
using cli_test::run;


namespace {
const std::filesystem::path data = CTMATCH_TEST_DATA;

struct Stats {
  std::int64_t nodes = -1;
  std::map<std::string, std::int64_t> hist;
};

/// --stats-json of the file, parsed with a JSON parser (so the test does not depend on layout).
Stats cli_stats(const std::filesystem::path& file) {
  auto r = run(quote(file.string()) + " --stats-json");
  INFO(file.string() << ": " << r.err);
  REQUIRE(r.status == 0);
  Stats s;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(parser.parse(r.out).get(doc) == simdjson::SUCCESS);
  REQUIRE(doc["nodes"].get(s.nodes) == simdjson::SUCCESS);
  simdjson::dom::object hist;
  REQUIRE(doc["hist"].get(hist) == simdjson::SUCCESS);
  std::string previous;
  for (auto field : hist) {
    std::string key(field.key);
    CHECK(key > previous);  // keys sorted
    previous = key;
    std::int64_t count = 0;
    REQUIRE(field.value.get(count) == simdjson::SUCCESS);
    s.hist[key] = count;
  }
  return s;
}

/// Counts by scanning FX text line by line: a node per `%name :` line plus the output, and
/// per call_function line its `target=` without `torch.ops.`.
Stats scan_fx(const std::string& text) {
  Stats s;
  s.nodes = 0;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    std::size_t first = line.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    if (line.compare(first, 1, "%") == 0 || line.compare(first, 7, "return ") == 0) ++s.nodes;
    const std::string marker = "= call_function[target=";
    std::size_t t = line.find(marker);
    if (t == std::string::npos) continue;
    t += marker.size();
    std::string target = line.substr(t, line.find(']', t) - t);
    if (target.rfind("torch.ops.", 0) == 0) target = target.substr(10);
    ++s.hist[target];
  }
  return s;
}

std::vector<std::filesystem::path> files_ending(std::string_view suffix) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(data)) {
    std::string n = e.path().filename().string();
    if (n.size() > suffix.size() && n.substr(n.size() - suffix.size()) == suffix) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

TEST_CASE("--stats-json hist equals the count of target= entries of every FX text file") {
  auto files = files_ending(".fx.txt");
  REQUIRE(files.size() >= 9);
  for (const auto& f : files) {
    INFO(f.filename().string());
    Stats expected = scan_fx(read_test_file(f));
    REQUIRE(!expected.hist.empty());
    Stats got = cli_stats(f);
    CHECK(got.nodes == expected.nodes);
    CHECK(got.hist == expected.hist);
  }
}

TEST_CASE("--stats-json gives the same nodes and hist from .export.json and .export.fx.txt") {
  auto jsons = files_ending(".export.json");
  REQUIRE(jsons.size() >= 3);
  for (const auto& j : jsons) {
    std::string name = j.filename().string();
    auto fx = data / (name.substr(0, name.size() - 5) + ".fx.txt");
    INFO(name);
    REQUIRE(std::filesystem::exists(fx));
    Stats from_json = cli_stats(j);
    Stats from_fx = cli_stats(fx);
    CHECK(from_json.nodes == from_fx.nodes);
    CHECK(from_json.hist == from_fx.hist);
    CHECK(from_json.hist == scan_fx(read_test_file(fx)).hist);
  }
  // gpt2: 949 nodes from either file, 61 of them getitem.
  Stats gpt2 = cli_stats(data / "gpt2.export.json");
  CHECK(gpt2.nodes == 949);
  CHECK(gpt2.hist["operator.getitem"] == 61);
}
