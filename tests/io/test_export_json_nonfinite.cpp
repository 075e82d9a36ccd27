// Non-finite floats in torch.export JSON. JSON has no number for them: torch's serializer
// writes the strings "Infinity", "-Infinity" and "NaN" (vit_b_16's attention mask holds
// `{"as_float": "-Infinity"}`), Python's json.dumps the same words bare. The reader takes
// both wherever a float is read; the writer writes torch's strings, so its output is JSON and
// torch's spelling comes back; any other string is an error at its position.
#include <doctest/doctest.h>

#include <ctmatch/io/export_json.hpp>

#include <simdjson.h>

#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "json_error_helpers.hpp"

using namespace ctmatch;
using test::error_of;
using test::pos;
using test::replace;

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

/// A document as torch 2.11 writes it: x -> mul(-inf) -> mul_1(inf) -> mul_2(nan) ->
/// upsample (as_floats) -> lists (as_float_lists) -> sym (a SymFloat constant).
const std::string doc =
    "{\"graph_module\": {\"graph\": {\n"
    "\"inputs\": [{\"as_tensor\": {\"name\": \"x\"}}],\n"
    "\"outputs\": [{\"as_tensor\": {\"name\": \"sym\"}}],\n"
    "\"nodes\": [\n"
    "{\"target\": \"torch.ops.aten.mul.Scalar\", \"inputs\": [{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}, \"kind\": 1}, "
    "{\"name\": \"other\", \"arg\": {\"as_float\": \"-Infinity\"}, \"kind\": 1}], \"outputs\": [{\"as_tensor\": {\"name\": \"mul\"}}], \"metadata\": {}},\n"
    "{\"target\": \"torch.ops.aten.mul.Scalar\", \"inputs\": [{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"mul\"}}, \"kind\": 1}, "
    "{\"name\": \"other\", \"arg\": {\"as_float\": \"Infinity\"}, \"kind\": 1}], \"outputs\": [{\"as_tensor\": {\"name\": \"mul_1\"}}], \"metadata\": {}},\n"
    "{\"target\": \"torch.ops.aten.mul.Scalar\", \"inputs\": [{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"mul_1\"}}, \"kind\": 1}, "
    "{\"name\": \"other\", \"arg\": {\"as_float\": \"NaN\"}, \"kind\": 1}], \"outputs\": [{\"as_tensor\": {\"name\": \"mul_2\"}}], \"metadata\": {}},\n"
    "{\"target\": \"torch.ops.aten.upsample_nearest2d.vec\", \"inputs\": [{\"name\": \"input\", \"arg\": {\"as_tensor\": {\"name\": \"mul_2\"}}, \"kind\": 1}, "
    "{\"name\": \"output_size\", \"arg\": {\"as_none\": true}, \"kind\": 1}, "
    "{\"name\": \"scale_factors\", \"arg\": {\"as_floats\": [2.0, \"Infinity\", \"-Infinity\", \"NaN\"]}, \"kind\": 1}], "
    "\"outputs\": [{\"as_tensor\": {\"name\": \"upsample\"}}], \"metadata\": {}},\n"
    "{\"target\": \"torch.ops.test.float_lists.default\", \"inputs\": [{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"upsample\"}}, \"kind\": 1}, "
    "{\"name\": \"lists\", \"arg\": {\"as_float_lists\": [[1.5, \"NaN\"], [\"-Infinity\"]]}, \"kind\": 1}], "
    "\"outputs\": [{\"as_tensor\": {\"name\": \"lists\"}}], \"metadata\": {}},\n"
    "{\"target\": \"torch.ops.test.sym_float.default\", \"inputs\": [{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"lists\"}}, \"kind\": 1}, "
    "{\"name\": \"scale\", \"arg\": {\"as_sym_float\": {\"as_float\": \"Infinity\"}}, \"kind\": 1}], "
    "\"outputs\": [{\"as_tensor\": {\"name\": \"sym\"}}], \"metadata\": {}}],\n"
    "\"tensor_values\": {}}}}\n";

const Value& arg(const Graph& g, std::string_view node, std::size_t i) {
  NodeId id = g.find(node);
  REQUIRE_MESSAGE(id != no_node, "no node " << node);
  REQUIRE(g[id].args().size() > i);
  return g[id].args()[i];
}

double number(const Value& v) {
  REQUIRE(v.is<double>());
  return *v.get_if<double>();
}

std::vector<double> numbers(const Value& v) {
  REQUIRE(v.is_list());
  std::vector<double> out;
  for (const Value& x : *v.items()) out.push_back(number(x));
  return out;
}

/// Every non-finite float of `doc` as read: -inf, inf, NaN, the list, the list of lists, the
/// SymFloat constant. Finite ones stay what they were.
void check_values(const Graph& g) {
  CHECK(number(arg(g, "mul", 1)) == -inf);
  CHECK(number(arg(g, "mul_1", 1)) == inf);
  CHECK(std::isnan(number(arg(g, "mul_2", 1))));
  std::vector<double> scales = numbers(arg(g, "upsample", 2));
  REQUIRE(scales.size() == 4);
  CHECK(scales[0] == 2.0);
  CHECK(scales[1] == inf);
  CHECK(scales[2] == -inf);
  CHECK(std::isnan(scales[3]));
  const Value& lists = arg(g, "lists", 1);
  REQUIRE(lists.is_list());
  REQUIRE(lists.items()->size() == 2);
  std::vector<double> first = numbers((*lists.items())[0]), second = numbers((*lists.items())[1]);
  REQUIRE(first.size() == 2);
  CHECK(first[0] == 1.5);
  CHECK(std::isnan(first[1]));
  CHECK(second == std::vector<double>{-inf});
  CHECK(number(arg(g, "sym", 1)) == inf);
}

bool is_strict_json(const std::string& text) {
  simdjson::dom::parser parser;
  return parser.parse(text).error() == simdjson::SUCCESS;
}

const std::string only_these = " (the only strings a float may be are \"Infinity\", \"-Infinity\" and \"NaN\")";

}  // namespace

TEST_CASE("torch's strings \"Infinity\", \"-Infinity\", \"NaN\" read as floats wherever a float is read") {
  Graph g = io::read_export_json(doc, "nonfinite.json");
  CHECK(g.size() == 8);
  check_values(g);
}

TEST_CASE("written back, non-finite floats are torch's strings, the output is JSON, and it reads the same") {
  std::string written = io::write_export_json(io::read_export_json(doc));
  INFO(written);
  // torch's own spelling of each argument comes back
  CHECK(written.find("{\"name\": \"other\", \"arg\": {\"as_float\": \"-Infinity\"}, \"kind\": 1}") != std::string::npos);
  CHECK(written.find("{\"name\": \"other\", \"arg\": {\"as_float\": \"Infinity\"}, \"kind\": 1}") != std::string::npos);
  CHECK(written.find("{\"name\": \"other\", \"arg\": {\"as_float\": \"NaN\"}, \"kind\": 1}") != std::string::npos);
  CHECK(written.find("{\"as_floats\": [2.0, \"Infinity\", \"-Infinity\", \"NaN\"]}") != std::string::npos);
  CHECK(written.find("{\"as_float_lists\": [[1.5, \"NaN\"], [\"-Infinity\"]]}") != std::string::npos);
  CHECK(written.find("{\"as_sym_float\": {\"as_float\": \"Infinity\"}}") != std::string::npos);
  // no bare token left: strict JSON parsers (and torch's json.loads) read it
  CHECK(is_strict_json(written));
  Graph again = io::read_export_json(written, "written.json");
  check_values(again);
  CHECK(io::write_export_json(again) == written);
}

TEST_CASE("Python's bare tokens still read, and are written in torch's quoted spelling") {
  std::string bare = replace(replace(replace(doc, "{\"as_float\": \"-Infinity\"}", "{\"as_float\": -Infinity}"),
                                     "{\"as_float\": \"Infinity\"}", "{\"as_float\": Infinity}"),
                             "{\"as_float\": \"NaN\"}", "{\"as_float\":NaN}");
  bare = replace(bare, "[2.0, \"Infinity\", \"-Infinity\", \"NaN\"]", "[2.0, Infinity, -Infinity, NaN]");
  bare = replace(bare, "[[1.5, \"NaN\"], [\"-Infinity\"]]", "[[1.5, NaN], [-Infinity]]");
  CHECK_FALSE(is_strict_json(bare));
  Graph g = io::read_export_json(bare, "bare.json");
  check_values(g);
  CHECK(io::write_export_json(g) == io::write_export_json(io::read_export_json(doc)));
}

TEST_CASE("any other string where a float is read is an error at its line and column") {
  std::string abc = replace(doc, "{\"as_float\": \"-Infinity\"}", "{\"as_float\": \"abc\"}");
  CHECK(error_of(abc) == "in.json:" + pos(abc, abc.find("\"abc\"")) +
                             ": error: expected a number for as_float, found the string \"abc\"" + only_these);
  std::string in_list = replace(doc, "[2.0, \"Infinity\"", "[2.0, \"inf\"");
  CHECK(error_of(in_list) == "in.json:" + pos(in_list, in_list.find("\"inf\"")) +
                                 ": error: expected a number for an element of 'as_floats', found the string \"inf\"" +
                                 only_these);
  std::string in_lists = replace(doc, "[\"-Infinity\"]]", "[\"\"]]");
  CHECK(error_of(in_lists) == "in.json:" + pos(in_lists, in_lists.find("[\"\"]]") + 1) +
                                  ": error: expected a number for an element of 'as_float_lists', found the string \"\"" +
                                  only_these);
  std::string in_sym = replace(doc, "{\"as_sym_float\": {\"as_float\": \"Infinity\"}}", "{\"as_sym_float\": {\"as_float\": \"Inf\"}}");
  CHECK(error_of(in_sym) == "in.json:" + pos(in_sym, in_sym.find("\"Inf\"")) +
                                ": error: expected a number for a symbolic float, found the string \"Inf\"" + only_these);
  // a long string is cut in the message, and an escape in it stays escaped
  std::string long_text = replace(doc, "{\"as_float\": \"NaN\"}",
                                  "{\"as_float\": \"\\n" + std::string(60, 'x') + "\"}");
  CHECK(error_of(long_text) == "in.json:" + pos(long_text, long_text.find("\"\\n")) +
                                   ": error: expected a number for as_float, found the string \"\\n" +
                                   std::string(39, 'x') + "...\"" + only_these);
  // the words are torch's exactly: another spelling of them is no float either
  CHECK(error_of(replace(doc, "\"NaN\"}", "\"nan\"}")).find("found the string \"nan\"") != std::string::npos);
}
