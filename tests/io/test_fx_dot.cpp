// Graphviz DOT output: one vertex per node with its name and op, an edge per distinct input,
// highlighted nodes filled.
#include <doctest/doctest.h>

#include <ctmatch/io/dot.hpp>
#include <ctmatch/io/fx_text.hpp>

#include <algorithm>
#include <string>

using namespace ctmatch;

namespace {
std::size_t count(const std::string& s, std::string_view what) {
  std::size_t n = 0;
  for (std::size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("write_dot: vertices, edges from inputs, highlighted nodes") {
  Graph g = io::read_fx_text(
      "graph():\n"
      "    %x : [num_users=2] = placeholder[target=x]\n"
      "    %w : [num_users=1] = get_attr[target=layer.weight]\n"
      "    %mm : [num_users=1] = call_function[target=torch.ops.aten.mm.default](args = (%x, %w), kwargs = {})\n"
      "    %add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mm, %x), kwargs = {alpha: 2})\n"
      "    %mul : [num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%add, %add), kwargs = {})\n"
      "    return (mul,)");
  NodeId x = g.find("x"), w = g.find("w"), mm = g.find("mm"), add = g.find("add"), mul = g.find("mul");
  NodeId out = g.last();
  auto id = [](NodeId n) { return std::string("n").append(std::to_string(n)); };

  std::string dot = io::write_dot(g);
  CHECK(dot.rfind("digraph G {\n", 0) == 0);
  CHECK(dot.size() >= 2);
  CHECK(dot.substr(dot.size() - 2) == "}\n");
  CHECK(dot.find(id(mm) + " [label=\"mm\\naten.mm.default\"];") != std::string::npos);
  CHECK(dot.find(id(x) + " [label=\"x\\nplaceholder\", shape=ellipse];") != std::string::npos);
  CHECK(dot.find(id(w) + " [label=\"w\\nget_attr layer.weight\", shape=ellipse];") != std::string::npos);
  CHECK(dot.find(id(out) + " [label=\"output\\noutput\", shape=doubleoctagon];") != std::string::npos);
  // One edge per distinct input: mul uses add twice but has one edge from it.
  CHECK(count(dot, " -> ") == 6);
  CHECK(count(dot, id(add) + " -> " + id(mul) + ";") == 1);
  CHECK(dot.find(id(x) + " -> " + id(mm) + ";") != std::string::npos);
  CHECK(dot.find(id(w) + " -> " + id(mm) + ";") != std::string::npos);
  CHECK(dot.find(id(x) + " -> " + id(add) + ";") != std::string::npos);
  CHECK(dot.find(id(mul) + " -> " + id(out) + ";") != std::string::npos);
  CHECK(count(dot, "fillcolor") == 0);

  std::string hl = io::write_dot(g, {mm, mul});
  CHECK(count(hl, "style=filled") == 2);
  CHECK(hl.find(id(mm) + " [label=\"mm\\naten.mm.default\", style=filled") != std::string::npos);
  CHECK(hl.find(id(mul) + " [label=\"mul\\naten.mul.Tensor\", style=filled") != std::string::npos);
}

TEST_CASE("write_dot escapes quotes and backslashes in labels") {
  Graph g = io::read_fx_text(
      "graph():\n"
      "    %x : [num_users=1] = placeholder[target=x]\n"
      "    %m : [num_users=1] = call_method[target=we\"ird\\name](args = (%x,), kwargs = {})\n"
      "    return m");
  std::string dot = io::write_dot(g);
  CHECK(dot.find("call_method we\\\"ird\\\\name") != std::string::npos);
}
