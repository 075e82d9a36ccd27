// Malformed torch.export JSON that is generated rather than committed (nesting 100000 deep,
// inputs the format detector would not pass on), errors at exact positions, and the reader
// staying usable after an error. The committed corpus (tests/data/bad/json_*.json with
// their .expect files) is checked by test_bad_inputs.cpp; here we check that it exists.
#include <doctest/doctest.h>

#include <ctmatch/io/export_json.hpp>

#include <filesystem>
#include <limits>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "json_error_helpers.hpp"
#include "test_data.hpp"

using namespace ctmatch;
using test::error_of;
using test::pos;
using test::replace;

namespace {

/// A small valid document: x, w -> mm -> relu.
const std::string small =
    "{\"graph_module\": {\"graph\": {\n"
    "\"inputs\": [{\"as_tensor\": {\"name\": \"x\"}}, {\"as_tensor\": {\"name\": \"w\"}}],\n"
    "\"outputs\": [{\"as_tensor\": {\"name\": \"relu\"}}],\n"
    "\"nodes\": [\n"
    "{\"target\": \"torch.ops.aten.mm.default\", \"inputs\": [{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}, \"kind\": 1}, "
    "{\"name\": \"mat2\", \"arg\": {\"as_tensor\": {\"name\": \"w\"}}, \"kind\": 1}], \"outputs\": [{\"as_tensor\": {\"name\": \"mm\"}}], \"metadata\": {}},\n"
    "{\"target\": \"torch.ops.aten.relu.default\", \"inputs\": [{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"mm\"}}, \"kind\": 1}], "
    "\"outputs\": [{\"as_tensor\": {\"name\": \"relu\"}}], \"metadata\": {\"note\": \"META\"}}],\n"
    "\"tensor_values\": {}}}}\n";

}  // namespace

TEST_CASE("the small document reads (the cases below break it one way each)") {
  Graph g = io::read_export_json(small);
  CHECK(g.size() == 5);
}

TEST_CASE("nesting 100000 deep is an error at the level past the limit, not a stack overflow") {
  const std::size_t depth = 100000, limit = io::export_json::detail::max_depth;
  const std::string too_deep = ": error: JSON nested deeper than " + std::to_string(limit) + " levels";
  // inside a node's unknown field, kept as JSON text by a recursive walk: the bracket that
  // opens level limit + 1 of that field is named
  std::string deep = std::string(depth, '[') + std::string(depth, ']');
  std::string text = replace(small, "\"metadata\": {}}", "\"metadata\": {}, \"extra\": " + deep + "}");
  CHECK(error_of(text) == "in.json:" + pos(text, text.find("\"extra\": ") + 9 + limit) + too_deep);
  // objects, at the top level
  std::string objects;
  for (std::size_t i = 0; i < depth; ++i) objects += "{\"a\": ";
  objects += "1" + std::string(depth, '}');
  std::string top = "{\"extra\": " + objects + "}";
  CHECK(error_of(top) == "in.json:" + pos(top, 10 + 6 * limit) + too_deep);
  // as an argument: not a tensor, whatever its depth
  std::string arg = replace(small, "\"arg\": {\"as_tensor\": {\"name\": \"mm\"}}", "\"arg\": {\"as_ints\": " + deep + "}");
  CHECK(error_of(arg).find("error: expected an integer for an element of 'as_ints', found an array") != std::string::npos);
  // only brackets: the text is not an object
  CHECK(error_of(deep) == "in.json:1:1: error: expected a JSON object (the exported_program document)");
}

TEST_CASE("inputs that are not an exported_program object") {
  CHECK(error_of("") == "in.json:1:1: error: expected a JSON object (the exported_program document), found an empty file");
  CHECK(error_of("  \n\t") == "in.json:2:2: error: expected a JSON object (the exported_program document), found an empty file");
  CHECK(error_of("[1, 2]") == "in.json:1:1: error: expected a JSON object (the exported_program document)");
  CHECK(error_of("null") == "in.json:1:1: error: expected a JSON object (the exported_program document)");
  CHECK(error_of("{") == "in.json:1:2: error: the text ends inside an array or object");
  CHECK(error_of("{\"graph_module\": {\"graph\": {}}}") ==
        "in.json:1:28: error: missing field 'inputs' in 'graph'");
}

TEST_CASE("errors point at the offending token") {
  std::string bad_meta = replace(small, "\"META\"", "17");
  CHECK(error_of(bad_meta) == "in.json:" + pos(small, small.find("\"META\"")) +
                                  ": error: expected a string for a metadata entry, found a number");
  std::string bad_escape = replace(small, "\"META\"", "\"a\\qb\"");
  CHECK(error_of(bad_escape) == "in.json:" + pos(bad_escape, bad_escape.find("\\q")) + ": error: invalid escape in a string");
  std::string bad_u = replace(small, "\"META\"", "\"\\u12G4\"");
  CHECK(error_of(bad_u) == "in.json:" + pos(bad_u, bad_u.find("G4")) + ": error: invalid \\u escape in a string");
  std::string undefined = replace(small, "{\"name\": \"mm\"}}, \"kind\"", "{\"name\": \"nope\"}}, \"kind\"");
  CHECK(error_of(undefined) == "in.json:" + pos(undefined, undefined.find("\"nope\"")) +
                                   ": error: reference to undefined node 'nope'");
  // a node that takes its own output as input: used before it is defined
  std::string self_use = replace(small, "{\"name\": \"mm\"}}, \"kind\"", "{\"name\": \"relu\"}}, \"kind\"");
  CHECK(error_of(self_use) == "in.json:" + pos(self_use, self_use.find("{\"name\": \"relu\"}}, \"kind\"") + 9) +
                                  ": error: 'relu' is used before it is defined");
  // a float where a float is expected may be Python's spelling of infinity
  Graph g = io::read_export_json(replace(small, "\"metadata\": {}}", "\"metadata\": {}}, "
                                         "{\"target\": \"torch.ops.aten.mul.Scalar\", \"inputs\": [{\"name\": \"self\", "
                                         "\"arg\": {\"as_tensor\": {\"name\": \"mm\"}}, \"kind\": 1}, {\"name\": \"other\", "
                                         "\"arg\": {\"as_float\": -Infinity}, \"kind\": 1}], \"outputs\": [{\"as_tensor\": "
                                         "{\"name\": \"mul\"}}], \"metadata\": {}}"));
  CHECK(*g[g.find("mul")].args()[1].get_if<double>() == -std::numeric_limits<double>::infinity());
  CHECK(error_of(replace(small, "\"kind\": 1}], \"outputs\": [{\"as_tensor\": {\"name\": \"relu\"",
                         "\"kind\": Infinity}], \"outputs\": [{\"as_tensor\": {\"name\": \"relu\""))
            .find("error: expected an integer for 'kind', found invalid JSON 'Infinity'") != std::string::npos);
}

TEST_CASE("the reader is usable again after an error (its per-thread parser is reused)") {
  for (int i = 0; i < 3; ++i) {
    CHECK(error_of(small.substr(0, small.size() / 2)).find("in.json:") == 0);
    CHECK(io::read_export_json(small).size() == 5);
  }
  // a large document after a small one and the other way round
  std::string gpt2 = read_test_data("gpt2.export.json");
  CHECK(io::read_export_json(gpt2).size() == 949);
  CHECK(io::read_export_json(small).size() == 5);
  CHECK(io::read_export_json(gpt2).size() == 949);
}

TEST_CASE("every truncation of a document fails cleanly with a position inside the text") {
  // Cut the small document at every byte: each prefix is an error (never a crash, a hang or
  // a graph), placed at or before the end of the prefix.
  for (std::size_t n = 0; n + 1 < small.size(); ++n) {
    std::string prefix = small.substr(0, n);
    INFO("prefix of " << n << " bytes");
    try {
      io::read_export_json(prefix, "in.json");
      FAIL("a truncated document was read");
    } catch (const io::ParseError& e) {
      auto [line, col] = io::line_column(prefix, prefix.size());
      CHECK((e.line() < line || (e.line() == line && e.column() <= col)));
    }
  }
}

TEST_CASE("the committed corpus has its JSON cases, each with an expectation") {
  const std::filesystem::path dir = std::filesystem::path(CTMATCH_TEST_DATA) / "bad";
  std::size_t cases = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::string n = e.path().filename().string();
    if (n.rfind("json_", 0) != 0 || e.path().extension() != ".json") continue;
    ++cases;
    std::filesystem::path expect = e.path();
    expect.replace_extension(".expect");
    CHECK_MESSAGE(std::filesystem::exists(expect), n);
  }
  CHECK(cases >= 30);
}

TEST_CASE("the writer refuses values the format has no spelling for") {
  Graph g = io::read_export_json(small);
  NodeId relu = g.find("relu");
  NodeId jag = g.call(intern_op("mylib.jagged.default"), {Value(NodeRef{relu}), Value(Layout::Jagged)});
  (void)jag;
  CHECK_THROWS_AS(io::write_export_json(g), std::invalid_argument);
  Graph h = io::read_export_json(small);
  h.call(intern_op("mylib.mixed.default"), {Value::list({Value(NodeRef{h.find("relu")}), Value("s")})});
  CHECK_THROWS_WITH_AS(io::write_export_json(h), doctest::Contains("no serde Argument holds"), std::invalid_argument);
}
