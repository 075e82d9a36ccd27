// The two formats of one graph give one graph: for every model in tests/data, the
// torch.export JSON document and the FX text of the same ExportedProgram read to the same
// nodes, in the same order, with the same ops, arguments and keyword arguments. This is also
// what pins the serde enum numbering (a dtype, layout or memory format read through the
// wrong table would differ from the FX text's `torch.float32`).
#include <doctest/doctest.h>

#include <ctmatch/io/export_json.hpp>
#include <ctmatch/io/fx_text.hpp>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "graph_compare.hpp"
#include "test_data.hpp"

using namespace ctmatch;

namespace {


std::map<std::string, std::size_t> histogram(const Graph& g) {
  std::map<std::string, std::size_t> h;
  for (const Node& n : g.nodes())
    if (n.kind() == NodeKind::CallFunction) ++h[std::string(op_name(n.op()))];
  return h;
}

}  // namespace

TEST_CASE("JSON and FX text of each graph read to the same graph") {
  for (const char* stem : {"seed_mlp", "resnet18", "gpt2"}) {
    INFO(stem);
    Graph j = io::read_export_json(read_test_data(std::string(stem) + ".export.json"), "json");
    Graph f = io::read_fx_text(read_test_data(std::string(stem) + ".export.fx.txt"), "fx");
    REQUIRE(j.size() == f.size());
    CHECK(histogram(j) == histogram(f));
    std::size_t compared_kwargs = 0;
    NodeId x = j.first(), y = f.first();
    for (; x != no_node && y != no_node; x = j.next(x), y = f.next(y)) {
      const Node &a = j[x], &b = f[y];
      INFO("node " << a.name() << " / " << b.name());
      REQUIRE(a.name() == b.name());  // same names in the same order
      CHECK(a.kind() == b.kind());
      CHECK(a.op() == b.op());
      if (a.kind() == NodeKind::Placeholder) CHECK(a.target() == b.target());
      // Arguments as written: torch.export keeps FX's positional / keyword split (kind 1/2).
      REQUIRE(a.args().size() == b.args().size());
      for (std::size_t i = 0; i < a.args().size(); ++i)
        CHECK_MESSAGE(same_value(a.args()[i], j, b.args()[i], f), "argument " << i);
      REQUIRE(a.kwargs().size() == b.kwargs().size());
      for (std::size_t i = 0; i < a.kwargs().size(); ++i) {
        CHECK(a.kwargs()[i].name == b.kwargs()[i].name);
        CHECK_MESSAGE(same_value(a.kwargs()[i].value, j, b.kwargs()[i].value, f), "kwarg " << a.kwargs()[i].name);
        ++compared_kwargs;
      }
      // and through the schema, every argument the op declares
      CHECK((a.signature() == nullptr) == (b.signature() == nullptr));
      if (a.signature() && b.signature())
        for (std::size_t i = 0; i < a.signature()->params.size(); ++i) {
          const Value *p = a.arg(i), *q = b.arg(i);
          REQUIRE((p == nullptr) == (q == nullptr));
          if (p) CHECK_MESSAGE(same_value(*p, j, *q, f), "schema argument " << a.signature()->params[i].name);
        }
      // users follow from the arguments: same count
      CHECK(a.num_users() == b.num_users());
    }
    CHECK(x == no_node);
    CHECK(y == no_node);
    if (std::string(stem) != "resnet18") CHECK(compared_kwargs > 0);  // resnet18 has no kwargs
  }
}

TEST_CASE("a graph read from FX text writes as JSON that reads back to the same graph") {
  // The writer's path for graphs that never came from JSON: inputs named by the schema,
  // kind 1/2, outputs and getitems from the schema's returns, required fields filled in.
  for (const char* stem : {"seed_mlp", "resnet18", "gpt2"}) {
    INFO(stem);
    Graph f = io::read_fx_text(read_test_data(std::string(stem) + ".export.fx.txt"), "fx");
    Graph j = io::read_export_json(io::write_export_json(f), "written.json");
    REQUIRE(j.size() == f.size());
    NodeId x = j.first(), y = f.first();
    for (; x != no_node && y != no_node; x = j.next(x), y = f.next(y)) {
      const Node &a = j[x], &b = f[y];
      INFO("node " << b.name());
      REQUIRE(a.name() == b.name());
      CHECK(a.op() == b.op());
      REQUIRE(a.args().size() == b.args().size());
      for (std::size_t i = 0; i < a.args().size(); ++i) CHECK(same_value(a.args()[i], j, b.args()[i], f));
      REQUIRE(a.kwargs().size() == b.kwargs().size());
      for (std::size_t i = 0; i < a.kwargs().size(); ++i) CHECK(same_value(a.kwargs()[i].value, j, b.kwargs()[i].value, f));
    }
  }
}
