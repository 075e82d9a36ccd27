// The built-in schema table: every line parses and registers, no op appears twice, every op
// of the test graphs has a schema, and ensure_builtin_schemas() is idempotent and thread-safe.
#include <doctest/doctest.h>

#include <ctmatch/graph.hpp>
#include <ctmatch/schema/builtin.hpp>

#include "test_data.hpp"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace ctmatch;
using namespace ctmatch::schema;

namespace {
/// The call_function targets of an FX text file (`str(torch.fx.Graph)`), without `torch.ops.`.
std::set<std::string> call_targets(const std::filesystem::path& file) {
  std::ifstream in(file);
  REQUIRE_MESSAGE(in, file.string());
  std::set<std::string> targets;
  std::string line;
  const std::string marker = "call_function[target=";
  while (std::getline(in, line)) {
    auto p = line.find(marker);
    if (p == std::string::npos) continue;
    p += marker.size();
    auto e = line.find(']', p);
    REQUIRE(e != std::string::npos);
    std::string t = line.substr(p, e - p);
    if (t.rfind("torch.ops.", 0) == 0) t = t.substr(10);
    targets.insert(t);
  }
  return targets;
}
}  // namespace

TEST_CASE("builtin: every entry parses, converts and has a unique op key") {
  std::set<std::string> keys;
  for (std::string_view s : builtin_schemas) {
    CAPTURE(s);
    auto r = parse_schema(s);
    REQUIRE(r.ok);
    CHECK_NOTHROW(to_signature(r.schema));
    CHECK_MESSAGE(keys.insert(op_key(r.schema)).second, "duplicate op ", op_key(r.schema));
  }
  CHECK(keys.size() == std::size(builtin_schemas));
  CHECK(keys.size() > 190);
}

TEST_CASE("builtin: ensure_builtin_schemas registers everything once, from many threads") {
  std::vector<std::thread> threads;
  std::vector<std::size_t> counts(4);
  for (std::size_t i = 0; i < counts.size(); ++i)
    threads.emplace_back([&counts, i] { counts[i] = ensure_builtin_schemas(); });
  for (auto& t : threads) t.join();
  for (std::size_t c : counts) CHECK(c == std::size(builtin_schemas));
  std::size_t registered = SchemaRegistry::global().size();
  CHECK(ensure_builtin_schemas() == std::size(builtin_schemas));
  CHECK(SchemaRegistry::global().size() == registered);  // idempotent
  CHECK(skipped_builtin_schemas().empty());
  for (std::string_view s : builtin_schemas) {
    auto r = parse_schema(s);
    const FunctionSchema* fs = find_schema(op_key(r.schema));
    REQUIRE_MESSAGE(fs, s);
    CHECK(fs->num_args == r.schema.num_args);
    CHECK(OpRegistry::global().signature(OpRegistry::global().find(op_key(r.schema))));
  }
}

TEST_CASE("builtin: a few facts of the table") {
  ensure_builtin_schemas();
  const FunctionSchema* gelu = find_schema("aten.gelu.default");
  REQUIRE(gelu);
  CHECK(gelu->args[1].kwarg_only);
  CHECK(default_value(gelu->args[1]) == Value(std::string("none")));
  const FunctionSchema* sc = find_schema("seedlib.scale_cast.default");
  REQUIRE(sc);
  CHECK(sc->args[1].type.base == BaseType::ScalarType);
  const OpSignature* iota = OpRegistry::global().signature(intern_op("prims.iota.default"));
  REQUIRE(iota);
  CHECK(iota->find("device") == 4);
  CHECK(find_schema("aten._assert_tensor_metadata.default")->args[4].type.base == BaseType::Device);
  CHECK(OpRegistry::global().signature(intern_op("aten._assert_tensor_metadata.default"))->is_impure);
  CHECK(OpRegistry::global().signature(intern_op("aten._native_batch_norm_legit.default"))->is_mutable);
  CHECK_FALSE(OpRegistry::global().signature(intern_op("aten.mm.default"))->is_impure);
  const OpSignature* pool = OpRegistry::global().signature(intern_op("aten.max_pool2d_with_indices.default"));
  REQUIRE(pool);
  CHECK(*pool->params[4].default_value == Value::list({Value(std::int64_t{1}), Value(std::int64_t{1})}));
  CHECK(find_schema("operator.getitem") == nullptr);  // an FX target, not an op
}

TEST_CASE("builtin: every op of every test graph has a schema") {
  ensure_builtin_schemas();
  std::size_t files = 0, ops = 0;
  for (const std::filesystem::path& path : test_graph_files()) {
    std::string name = path.filename().string();
    if (name.size() < 7 || name.substr(name.size() - 7) != ".fx.txt") continue;
    ++files;
    for (const std::string& t : call_targets(path)) {
      if (t == "operator.getitem") continue;
      CAPTURE(name);
      CAPTURE(t);
      CHECK(find_schema(t) != nullptr);
      ++ops;
    }
  }
  CHECK(files >= 9);
  CHECK(ops > 40);
}

TEST_CASE("builtin: nodes of table ops resolve omitted arguments to the schema defaults") {
  ensure_builtin_schemas();
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId plain = g.call(intern_op("aten.gelu.default"), {NodeRef{x}});
  NodeId tanh = g.call(intern_op("aten.gelu.default"), {NodeRef{x}}, {{"approximate", Value(std::string("tanh"))}});
  NodeId cast = g.call(intern_op("seedlib.scale_cast.default"), {NodeRef{x}},
                       {{"dtype", Value(ScalarType::Float)}, {"scale", Value(0.5)}});
  NodeId pool = g.call(intern_op("aten.max_pool2d_with_indices.default"),
                       {NodeRef{x}, Value::list({Value(3), Value(3)}), Value::list({Value(2), Value(2)})});
  g.output({NodeRef{plain}, NodeRef{tanh}, NodeRef{cast}, NodeRef{pool}});
  verify(g);
  CHECK(*g[plain].arg("approximate") == Value(std::string("none")));
  CHECK(*g[tanh].arg("approximate") == Value(std::string("tanh")));
  CHECK(*g[cast].arg("clamp") == Value(false));
  CHECK(*g[cast].arg("scale") == Value(0.5));
  CHECK(*g[pool].arg("padding") == Value::list({Value(0), Value(0)}));
  CHECK(*g[pool].arg("dilation") == Value::list({Value(1), Value(1)}));
  CHECK(*g[pool].arg("ceil_mode") == Value(false));
}
