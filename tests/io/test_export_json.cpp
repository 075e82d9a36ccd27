// torch.export JSON: reading the graphs of tests/data, the serde enum numbering, the
// getitem nodes the format folds away, and the round trips read -> write -> read (identical
// graph) and write(read(file)) == file (torch's own document comes back byte for byte).
#include <doctest/doctest.h>

#include <ctmatch/graph/verify.hpp>
#include <ctmatch/io/export_json.hpp>
#include <ctmatch/schema/builtin.hpp>

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "graph_compare.hpp"
#include "test_data.hpp"

using namespace ctmatch;

namespace {

const Node& node(const Graph& g, std::string_view name) {
  NodeId id = g.find(name);
  REQUIRE_MESSAGE(id != no_node, "no node " << name);
  return g[id];
}

std::size_t count_op(const Graph& g, std::string_view op) {
  std::size_t n = 0;
  for (const Node& x : g.nodes())
    if (x.op() != no_op && op_name(x.op()) == op) ++n;
  return n;
}

struct Expected {
  const char* stem;
  std::size_t nodes;
  std::size_t getitems;
};
constexpr Expected graphs[] = {{"seed_mlp", 19, 0}, {"resnet18", 215, 21}, {"gpt2", 949, 61}};

}  // namespace

TEST_CASE("every graph of tests/data reads, verifies and has torch's node count") {
  for (const Expected& e : graphs) {
    INFO(e.stem);
    std::string text = read_test_data(std::string(e.stem) + ".export.json");
    Graph g = io::read_export_json(text, std::string(e.stem) + ".export.json");
    CHECK_NOTHROW(verify(g));
    CHECK(g.size() == e.nodes);
    CHECK(count_op(g, "operator.getitem") == e.getitems);
    CHECK(g[g.first()].kind() == NodeKind::Placeholder);
    CHECK(g[g.last()].kind() == NodeKind::Output);
    // Every call_function node of a known op bound its schema.
    for (const Node& n : g.nodes())
      if (n.kind() == NodeKind::CallFunction && op_name(n.op()) != "operator.getitem")
        CHECK_MESSAGE(n.signature() != nullptr, n.name() << " (" << op_name(n.op()) << ") has no signature");
  }
}

TEST_CASE("read -> write -> read gives an identical graph") {
  for (const Expected& e : graphs) {
    INFO(e.stem);
    Graph g = io::read_export_json(read_test_data(std::string(e.stem) + ".export.json"));
    std::string written = io::write_export_json(g);
    Graph h = io::read_export_json(written, "written.json");
    CHECK_NOTHROW(verify(h));
    check_same_graph(g, h);
    // and writing again is stable
    CHECK(io::write_export_json(h) == written);
  }
}

TEST_CASE("torch's own document comes back byte for byte") {
  // Every field the reader does not model is kept, in torch's spelling: writing what was read
  // reproduces the file exactly.
  for (const Expected& e : graphs) {
    INFO(e.stem);
    std::string text = read_test_data(std::string(e.stem) + ".export.json");
    std::string written = io::write_export_json(io::read_export_json(text));
    REQUIRE(written.size() == text.size());
    CHECK(written == text);
  }
}

TEST_CASE("seed_mlp: arguments, kwargs and metadata as torch.export wrote them") {
  Graph g = io::read_export_json(read_test_data("seed_mlp.export.json"), "seed_mlp.export.json");
  const Node& mm = node(g, "mm");
  CHECK(op_name(mm.op()) == "aten.mm.default");
  REQUIRE(mm.args().size() == 2);
  CHECK(g[mm.args()[0].node()].name() == "x");
  CHECK(g[mm.args()[1].node()].name() == "p_ws_0");
  CHECK(mm.kwargs().empty());

  const Node& sc = node(g, "scale_cast");
  CHECK(op_name(sc.op()) == "seedlib.scale_cast.default");
  REQUIRE(sc.kwargs().size() == 3);
  CHECK(sc.kwargs()[0].name == "dtype");
  CHECK(sc.kwargs()[0].value == Value(ScalarType::Float));  // serde 7
  CHECK(sc.kwargs()[1].value == Value(true));
  CHECK(sc.kwargs()[2].value == Value(0.5));
  const Node& sc1 = node(g, "scale_cast_1");
  CHECK(sc1.kwarg("clamp") == nullptr);  // left out where False
  REQUIRE(sc1.signature() != nullptr);
  CHECK(*sc1.arg("clamp") == Value(false));  // the schema's default

  CHECK(*node(g, "gelu").kwarg("approximate") == Value("tanh"));
  const Node& sum = node(g, "sum_1");
  CHECK(op_name(sum.op()) == "aten.sum.dim_IntList");
  REQUIRE(sum.args().size() == 3);
  CHECK(sum.args()[1] == Value::list({Value(1)}));
  CHECK(sum.args()[2] == Value(true));

  // tensor_values -> meta
  const Node& x = node(g, "x");
  CHECK(x.meta().dtype == ScalarType::Float);
  CHECK(x.meta().shape == std::vector<Value>{Value(64), Value(512)});
  CHECK(node(g, "p_ws_0").meta().shape == std::vector<Value>{Value(512), Value(512)});
  // what is not modelled is kept
  const std::string* st = io::export_json::find_annotation(mm.annotations(), io::export_json::key_metadata);
  REQUIRE(st != nullptr);
  CHECK(st->find("torch.mm(x, w)") != std::string::npos);
  CHECK(io::export_json::find_annotation(g.annotations, "json:graph_module.signature") != nullptr);
  CHECK(*io::export_json::find_annotation(g.annotations, "json:schema_version") == "{\"major\": 8, \"minor\": 17}");

  // the output node returns a tuple of the graph outputs
  const Node& out = g[g.last()];
  REQUIRE(out.args().size() == 1);
  REQUIRE(out.args()[0].items()->size() == 1);
  CHECK(g[(*out.args()[0].items())[0].node()].name() == "sum_1");
}

TEST_CASE("gpt2: getitem nodes recreated after their multi-output node, unused outputs not") {
  Graph g = io::read_export_json(read_test_data("gpt2.export.json"), "gpt2.export.json");
  // split_with_sizes: one `as_tensors` output of three names
  const Node& split = node(g, "split_with_sizes");
  CHECK(split.users().size() == 3);
  NodeId n = g.next(split.id());
  for (std::int64_t i = 0; i < 3; ++i, n = g.next(n)) {
    const Node& gi = g[n];
    CHECK(gi.name() == "getitem_" + std::to_string(3 + i));
    CHECK(op_name(gi.op()) == "operator.getitem");
    CHECK(gi.args()[0].node() == split.id());
    CHECK(gi.args()[1] == Value(i));
    CHECK(gi.meta().dtype == ScalarType::Float);
  }
  // native_layer_norm: three `as_tensor` outputs, two of them `_unused_`
  const Node& ln = node(g, "native_layer_norm");
  REQUIRE(ln.users().size() == 1);
  const Node& gi = g[ln.users()[0]];
  CHECK(gi.name() == "getitem");
  CHECK(gi.args()[1] == Value(0));
  CHECK(g.find("native_layer_norm_unused_1") == no_node);
  const std::string* unused = io::export_json::find_annotation(ln.annotations(), io::export_json::key_unused_tensor_values);
  REQUIRE(unused != nullptr);
  CHECK(unused->find("\"native_layer_norm_unused_1\": {\"dtype\": 7") == 0);
  // serde numbering against the FX text of the same graph: `dtype: torch.bool` (12),
  // `memory_format: torch.contiguous_format` (1), `layout: torch.strided` (7), `device: cpu`
  CHECK(*node(g, "full").kwarg("dtype") == Value(ScalarType::Bool));
  bool saw_memory_format = false, saw_layout = false;
  for (const Node& x : g.nodes()) {
    if (const Value* m = x.kwarg("memory_format")) {
      CHECK(*m == Value(MemoryFormat::Contiguous));
      saw_memory_format = true;
    }
    if (const Value* l = x.kwarg("layout")) {
      CHECK(*l == Value(Layout::Strided));
      CHECK(*x.kwarg("device") == Value(Device{DeviceType::CPU, -1}));
      saw_layout = true;
    }
  }
  CHECK(saw_memory_format);
  CHECK(saw_layout);
  // as_tensors input of a known op: a list of node references
  const Node& cat = node(g, "cat");
  CHECK(cat.args()[0].items()->size() == 2);
  CHECK(g[(*cat.args()[0].items())[0].node()].name() == "sub");
  // input_ids are int64 (serde 5)
  CHECK(node(g, "input_ids").meta().dtype == ScalarType::Long);
}

TEST_CASE("serde enum numbering is torch/_export/serde/schema.py's, both ways") {
  using namespace io::serde;
  const std::map<std::int64_t, ScalarType> dtypes = {
      {1, ScalarType::Byte},          {2, ScalarType::Char},           {3, ScalarType::Short},
      {4, ScalarType::Int},           {5, ScalarType::Long},           {6, ScalarType::Half},
      {7, ScalarType::Float},         {8, ScalarType::Double},         {9, ScalarType::ComplexHalf},
      {10, ScalarType::ComplexFloat}, {11, ScalarType::ComplexDouble}, {12, ScalarType::Bool},
      {13, ScalarType::BFloat16},     {28, ScalarType::UInt16},        {29, ScalarType::Float8_e4m3fn},
      {30, ScalarType::Float8_e5m2},  {31, ScalarType::Float8_e4m3fnuz}, {32, ScalarType::Float8_e5m2fnuz},
      {33, ScalarType::Float8_e8m0fnu}, {34, ScalarType::UInt32},      {35, ScalarType::UInt64}};
  for (std::int64_t code = -1; code < 40; ++code) {
    auto it = dtypes.find(code);
    INFO(code);
    if (it == dtypes.end()) {
      CHECK_FALSE(scalar_type_from_serde(code).has_value());
    } else {
      CHECK(scalar_type_from_serde(code) == it->second);
      CHECK(scalar_type_to_serde(it->second) == code);
    }
  }
  CHECK_FALSE(scalar_type_to_serde(ScalarType::QInt8).has_value());
  CHECK(layout_from_serde(1) == Layout::Sparse);
  CHECK(layout_from_serde(6) == Layout::Mkldnn);
  CHECK(layout_from_serde(7) == Layout::Strided);
  CHECK_FALSE(layout_from_serde(0).has_value());
  CHECK_FALSE(layout_to_serde(Layout::Jagged).has_value());
  CHECK(memory_format_from_serde(1) == MemoryFormat::Contiguous);
  CHECK(memory_format_from_serde(2) == MemoryFormat::ChannelsLast);
  CHECK(memory_format_from_serde(3) == MemoryFormat::ChannelsLast3d);
  CHECK(memory_format_from_serde(4) == MemoryFormat::Preserve);
  CHECK(memory_format_to_serde(MemoryFormat::Preserve) == 4);
  CHECK_FALSE(memory_format_from_serde(5).has_value());
}

TEST_CASE("nodes a rewrite creates are written from their schema, and the signature follows the outputs") {
  Graph g = io::read_export_json(read_test_data("seed_mlp.export.json"), "seed_mlp.export.json");
  NodeId sum = g.find("sum_1");
  NodeId out = g.last();
  // relu(sum_1) becomes the graph's output: a node with no annotations at all
  NodeId relu = g.call(intern_op("aten.relu.default"), {Value(NodeRef{sum})}, {}, out, "relu_out");
  CHECK(g.replace_all_uses(sum, relu) == 1);
  g[relu].edit_meta() = TensorMeta::of(ScalarType::Float, std::vector<Value>{Value(64), Value(1)});
  // a multi-output op with one of its outputs read, and a keyword argument
  NodeId x = g.find("x");
  NodeId ln = g.call(intern_op("aten.native_layer_norm.default"),
                     {Value(NodeRef{x}), Value::list({Value(512)}), Value(None{}), Value(None{}), Value(1e-5)}, {}, out);
  NodeId mean = g.call(intern_op("operator.getitem"), {Value(NodeRef{ln}), Value(1)}, {}, out, "ln_mean");
  NodeId cast = g.call(intern_op("aten._to_copy.default"), {Value(NodeRef{mean})}, {Kwarg{"dtype", Value(ScalarType::Half)}}, out);
  (void)cast;
  REQUIRE_NOTHROW(verify(g));

  std::string written = io::write_export_json(g);
  // torch's spelling of the new nodes
  CHECK(written.find("{\"target\": \"torch.ops.aten.relu.default\", \"inputs\": [{\"name\": \"self\", \"arg\": "
                     "{\"as_tensor\": {\"name\": \"sum_1\"}}, \"kind\": 1}], \"outputs\": [{\"as_tensor\": {\"name\": "
                     "\"relu_out\"}}], \"metadata\": {}, \"is_hop_single_tensor_return\": null, \"name\": \"relu_out\"}") !=
        std::string::npos);
  CHECK(written.find("\"outputs\": [{\"as_tensor\": {\"name\": \"native_layer_norm_unused_0\"}}, {\"as_tensor\": "
                     "{\"name\": \"ln_mean\"}}, {\"as_tensor\": {\"name\": \"native_layer_norm_unused_2\"}}]") != std::string::npos);
  CHECK(written.find("{\"name\": \"dtype\", \"arg\": {\"as_scalar_type\": 6}, \"kind\": 2}") != std::string::npos);
  CHECK(written.find("\"relu_out\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 64}, {\"as_int\": 1}], \"requires_grad\": false, "
                     "\"device\": {\"type\": \"cpu\", \"index\": null}, \"strides\": [{\"as_int\": 1}, {\"as_int\": 1}], "
                     "\"storage_offset\": {\"as_int\": 0}, \"layout\": 7}") != std::string::npos);
  // the graph signature's output spec names the new output, not the replaced one
  CHECK(written.find("\"output_specs\": [{\"user_output\": {\"arg\": {\"as_tensor\": {\"name\": \"relu_out\"}}}}]") !=
        std::string::npos);
  CHECK(written.find("{\"as_tensor\": {\"name\": \"sum_1\"}}}}]") == std::string::npos);

  Graph h = io::read_export_json(written, "written.json");
  CHECK_NOTHROW(verify(h));
  CHECK(h.size() == g.size());
  const Node& r = h[h.find("relu_out")];
  CHECK(h[r.args()[0].node()].name() == "sum_1");
  // what the new node's metadata lacks is written as torch would have it: dense, on the
  // graph's device
  CHECK(r.meta().dtype == g[relu].meta().dtype);
  CHECK(r.meta().shape == g[relu].meta().shape);
  CHECK(r.meta().strides == std::vector<Value>{Value(1), Value(1)});
  CHECK(r.meta().device == Device{DeviceType::CPU, -1});
  const Node& m = h[h.find("ln_mean")];
  CHECK(op_name(m.op()) == "operator.getitem");
  CHECK(m.args()[1] == Value(1));
  CHECK(*h[h.find("_to_copy")].kwarg("dtype") == Value(ScalarType::Half));
  // and from there on the round trip is exact
  CHECK(io::write_export_json(h) == written);
}
