// Parity with PyTorch Inductor: the `bench` rule set in sweep mode finds exactly the matches,
// the root nodes and the op histogram after the pass that Inductor's PatternMatcherPass finds
// with the reference implementation of the same rules (tests/data/bench_expected.json, copied
// from the reference run), for every graph copied into tests/data: seed_mlp, resnet18 and gpt2
// (torch.export JSON and FX text), bert, llama and vit_b_16 (FX text only, to keep the data
// small). vit_b_16 is the only one where permute_identity fires, and it holds a -inf literal;
// llama has only view_view matches.
#include <doctest/doctest.h>

#include <boost/json/src.hpp>

#include <ctmatch/io/read.hpp>
#include <ctmatch/rewrite.hpp>
#include <ctmatch/rules/bench.hpp>

#include <map>
#include <string>
#include <vector>

using namespace ctmatch;

namespace {
const boost::json::object& expected_models() {
  static const boost::json::value v =
      boost::json::parse(io::read_file(std::string(CTMATCH_TEST_DATA) + "/bench_expected.json"));
  return v.at("models").as_object();
}

std::map<std::string, std::size_t> counts(const boost::json::object& o) {
  std::map<std::string, std::size_t> m;
  for (const auto& [k, v] : o) m[std::string(k)] = static_cast<std::size_t>(v.as_int64());
  return m;
}
std::map<std::string, std::vector<std::string>> names(const boost::json::object& o) {
  std::map<std::string, std::vector<std::string>> m;
  for (const auto& [k, v] : o)
    for (const auto& n : v.as_array()) m[std::string(k)].push_back(std::string(n.as_string()));
  return m;
}

void check_parity(const std::string& model, const std::string& file) {
  CAPTURE(file);
  const auto& exp = expected_models().at(model).as_object();
  Graph g = io::read_graph_file(std::string(CTMATCH_TEST_DATA) + "/" + file);
  CHECK(g.size() == static_cast<std::size_t>(exp.at("nodes").as_int64()));
  PassOptions o;
  o.verify_after_pass = true;
  PassStats st = sweep(g, rules::bench_rules(), o);
  CHECK(st.matches() == counts(exp.at("matches").as_object()));
  CHECK(st.root_names(g) == names(exp.at("roots").as_object()));
  CHECK(op_histogram(g) == counts(exp.at("hist_after").as_object()));
  for (const RuleStats& r : st.rules) {
    CHECK(r.failed == 0);
    CHECK(r.refused == 0);
  }
}
}  // namespace

TEST_CASE("bench rules, sweep: Inductor's matches, roots and histogram on every graph of tests/data") {
  std::size_t files = 0;
  for (const auto& [model, exp] : expected_models())
    for (const auto& file : exp.at("files").as_array()) {
      check_parity(std::string(model), std::string(file.as_string()));
      ++files;
    }
  CHECK(files == 9);
}

TEST_CASE("the expected data covers the graphs it should, and some rules do fire") {
  const auto& m = expected_models();
  CHECK(m.contains("seed_mlp"));
  CHECK(m.contains("gpt2"));
  CHECK(m.contains("resnet18"));
  CHECK(m.contains("bert"));  // the only one with attention matches
  CHECK(m.at("bert").at("matches").at("attention").as_int64() == 12);
  CHECK(m.contains("llama"));
  CHECK(m.contains("vit_b_16"));  // the only one with permute_identity matches
  CHECK(m.at("vit_b_16").at("matches").at("permute_identity").as_int64() == 12);
  Graph g = io::read_graph_file(std::string(CTMATCH_TEST_DATA) + "/gpt2.export.json");
  CHECK(sweep(g, rules::bench_rules()).total_matches() == 37);
}

TEST_CASE("bench rules: fixpoint on gpt2 goes further than sweep where chains remain") {
  Graph a = io::read_graph_file(std::string(CTMATCH_TEST_DATA) + "/gpt2.export.json");
  Graph b = a;
  PassStats s = sweep(a, rules::bench_rules());
  PassStats f = fixpoint(b, rules::bench_rules());
  CHECK_FALSE(f.cap_hit);
  CHECK(f.total_matches() >= s.total_matches());
  // At a fixed point, a second run finds nothing.
  CHECK(fixpoint(b, rules::bench_rules()).total_matches() == 0);
  verify(b);
}
