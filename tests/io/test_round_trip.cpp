// Every graph ctmatch accepts can be written by every writer it offers and read back the same,
// or the writer refuses it naming the node and where it was read; and no index, name or value
// that reaches a writer is used unchecked.
#include <doctest/doctest.h>

#include <unistd.h>

#include <ctmatch/graph/verify.hpp>
#include <ctmatch/io/export_json.hpp>
#include <ctmatch/io/fx_text.hpp>
#include <ctmatch/io/read.hpp>
#include <ctmatch/schema/builtin.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "test_data.hpp"

using namespace ctmatch;

namespace {

/// One graph's FX text, after going through JSON when `via_json`.
std::string fx_after(const std::string& fx, bool via_json) {
  Graph g = io::read_fx_text(fx, "in.fx.txt");
  if (via_json) g = io::read_export_json(io::write_export_json(g), "written.json");
  return io::write_fx_text(g);
}

/// The message of the WriteError writing `fx` as JSON throws, placed as ctmatch-opt places it.
std::string json_refusal(const std::string& fx) {
  Graph g = io::read_fx_text(fx, "in.fx.txt");
  try {
    io::write_export_json(g);
  } catch (const io::WriteError& e) {
    return io::describe_at(e, g, fx, "in.fx.txt");
  }
  return "written";
}

const std::string layer_norm_head =
    "graph():\n    %x : [num_users=1] = placeholder[target=x]\n"
    "    %native_layer_norm : [num_users=1] = call_function[target=torch.ops.aten.native_layer_norm.default]"
    "(args = (%x, [4], None, None, 1e-05), kwargs = {})\n";

}  // namespace

TEST_CASE("every graph of tests/data round-trips: FX -> FX, FX -> JSON -> FX, JSON -> JSON -> JSON") {
  std::size_t via_json = 0, refused = 0;
  for (const std::filesystem::path& path : test_graph_files()) {
    const std::string name = path.filename().string();
    INFO(name);
    if (name.size() > 7 && name.substr(name.size() - 7) == ".fx.txt") {
      const std::string fx = read_test_file(path);
      const std::string back = io::write_fx_text(io::read_fx_text(fx, name));
      CHECK(fx.rfind(back, 0) == 0);  // the file may end with a newline
      // JSON holds it, or refuses it at the node it cannot hold (the joint graphs' get_attr).
      if (std::string r = json_refusal(fx); r == "written") {
        CHECK(fx_after(fx, true) == back);
        ++via_json;
      } else {
        CHECK(r.find("in.fx.txt:") == 0);
        CHECK(r.find(": error: cannot write node '") != std::string::npos);
        ++refused;
      }
    } else if (name.size() > 12 && name.substr(name.size() - 12) == ".export.json") {
      Graph g = io::read_export_json(read_test_file(path), name);
      const std::string once = io::write_export_json(g);
      CHECK(io::write_export_json(io::read_export_json(once, "once.json")) == once);
      CHECK(io::write_fx_text(io::read_fx_text(io::write_fx_text(g), "fx")) == io::write_fx_text(g));
    }
  }
  CHECK(via_json >= 8);
  CHECK(refused >= 1);
}

TEST_CASE("a getitem index that picks no output is refused by the reader, and never used unchecked by the writer") {
  // The FX reader: at the index, against the producer's number of returns.
  for (const char* i : {"-1", "-2", "3", "99", "100000000", "-2147483649"}) {
    INFO(i);
    const std::string fx = layer_norm_head + "    %getitem : [num_users=1] = call_function[target=operator.getitem](args = (%native_layer_norm, " +
                           i + "), kwargs = {})\n    return (getitem,)";
    CHECK_THROWS_WITH_AS(io::read_fx_text(fx, "g.fx.txt"), doctest::Contains("is out of range: 'native_layer_norm'"), io::ParseError);
  }
  // A graph built in C++ (or by a pass) is not read: the JSON writer checks the index itself.
  schema::ensure_builtin_schemas();
  for (std::int64_t i : {std::int64_t{-1}, std::int64_t{3}, std::int64_t{100000000}}) {
    INFO(i);
    Graph g;
    NodeId x = g.placeholder("x");
    NodeId ln = g.call(intern_op("aten.native_layer_norm.default"),
                       {Value(NodeRef{x}), Value::list({Value(4)}), Value(None{}), Value(None{}), Value(1e-5)});
    NodeId gi = g.call(intern_op("operator.getitem"), {Value(NodeRef{ln}), Value(i)});
    g.output({Value(NodeRef{gi})});
    const std::string expected = "getitem index " + std::to_string(i) + " is not an output of 'native_layer_norm'";
    CHECK_THROWS_WITH_AS(io::write_export_json(g), doctest::Contains(expected.c_str()), io::WriteError);
  }
  const std::string ok = layer_norm_head +
                         "    %getitem : [num_users=1] = call_function[target=operator.getitem](args = (%native_layer_norm, 2), kwargs = {})\n"
                         "    return (getitem,)";
  CHECK(fx_after(ok, true) == io::write_fx_text(io::read_fx_text(ok)));
}

TEST_CASE("a node's name is a Python identifier that is not a keyword: what FX text can refer to") {
  for (const char* bad : {"a b", "1x", "x.y", "x%", "a\\b", "q\"", "None", "True", "False", "for", "\xc3\xa9", "a\nb", ""}) {
    INFO(bad);
    CHECK_FALSE(is_node_name(bad));
    Graph g;
    if (*bad) CHECK_THROWS_WITH_AS(g.placeholder(bad), doctest::Contains("invalid node name"), GraphError);
  }
  std::string nul("a\0b", 3);
  CHECK_FALSE(is_node_name(nul));
  for (const char* good : {"x", "_x", "x_1", "p_fc1_weight", "inf", "nan", "none", "Tensor"}) CHECK(is_node_name(good));
  // A node called `inf` or `nan` is referred to by bare name in the returned value, where
  // Python would print a float the same way: the node wins.
  const std::string fx = "graph():\n    %inf : [num_users=1] = placeholder[target=inf]\n    %nan : [num_users=1] = placeholder[target=nan]\n"
                         "    return (inf, nan)";
  Graph g = io::read_fx_text(fx);
  CHECK(io::write_fx_text(g) == fx);
  CHECK(fx_after(fx, true) == fx);
}

TEST_CASE("what FX text carries and torch.export JSON has no field for is refused, at the node, not dropped") {
  const std::string x = "    %x : [num_users=1] = placeholder[target=x]\n";
  const std::string relu = "    %r : [num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%x,), kwargs = {})\n";
  CHECK(json_refusal("graph():\n    %x : [num_users=1] = placeholder[target=x](default=2)\n" + relu + "    return (r,)") ==
        "in.fx.txt:2:5: error: cannot write node 'x' as torch.export JSON: the format has no field for a placeholder's default value");
  CHECK(json_refusal("graph():\n    %x : [num_users=1] = placeholder[target=y]\n" + relu + "    return (r,)") ==
        "in.fx.txt:2:5: error: cannot write node 'x' as torch.export JSON: the format has no field for a placeholder target ('y') other than its name");
  CHECK(json_refusal("graph():\n" + x + "    %r : torch.Tensor [num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%x,), kwargs = {})\n    return (r,)") ==
        "in.fx.txt:3:5: error: cannot write node 'r' as torch.export JSON: the format has no field for its type annotation");
  CHECK(json_refusal("graph() -> torch.Tensor:\n" + x + relu + "    return (r,)").find("return type annotation") != std::string::npos);
  CHECK(json_refusal("graph():\n" + x + "    %c : [num_users=1] = get_attr[target=const]\n" +
                     "    %a : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%x, %c), kwargs = {})\n    return (a,)")
            .find("in.fx.txt:3:5: error: cannot write node 'c' as torch.export JSON: a get_attr node") == 0);
  // An output that is not a tuple (AOT autograd's joint graphs return a list) would come back
  // as one.
  for (const char* out : {"[r]", "r"}) {
    CAPTURE(out);
    CHECK(json_refusal("graph():\n" + x + relu + "    return " + out).find(
              "error: cannot write node 'output' as torch.export JSON: its value is not a tuple") != std::string::npos);
  }
  CHECK(json_refusal("graph():\n" + x + relu + "    return (r,)") == "written");
  // Values without a serde spelling: a dtype list, a dtype without a serde number.
  CHECK(json_refusal("graph():\n" + x + "    %f : [num_users=1] = call_function[target=torch.ops.mylib.f.default](args = (%x, [torch.float32, torch.int64]), kwargs = {})\n    return (f,)") ==
        "in.fx.txt:3:5: error: cannot write argument 'arg1' as torch.export JSON: no serde Argument holds a list like it");
  CHECK(json_refusal("graph():\n" + x + "    %f : [num_users=1] = call_function[target=torch.ops.mylib.f.default](args = (%x, torch.qint8), kwargs = {})\n    return (f,)")
            .find("in.fx.txt:3:5: error: cannot write dtype qint8 as torch.export JSON") == 0);
}

TEST_CASE("a Python callable target keeps its spelling through JSON") {
  const std::string fx = "graph():\n    %x : [num_users=1] = placeholder[target=x]\n"
                         "    %f : [num_users=1] = call_function[target=my_python_fn](args = (%x,), kwargs = {})\n"
                         "    %g : [num_users=1] = call_function[target=operator.neg](args = (%f,), kwargs = {})\n    return (g,)";
  CHECK(fx_after(fx, true) == fx);
}

TEST_CASE("a .pt2 archive (torch.export.save) reads as the exported program inside it") {
  // tests/data/seed_mlp.pt2: what torch 2.11's torch.export.save wrote for the seed MLP, less
  // its weights and sample inputs (not read); seed_mlp.export.fx.txt is str(graph) of the same
  // exported program.
  const std::string pt2 = read_test_data("seed_mlp.pt2");
  REQUIRE(io::is_zip(pt2));
#if !defined(CTMATCH_HAVE_LIBZIP)
  CHECK_THROWS_WITH(io::read_graph(pt2, "seed_mlp.pt2"), doctest::Contains("built without libzip"));
  return;
#endif
  Graph g = io::read_graph(pt2, "seed_mlp.pt2");
  verify(g);
  CHECK(io::write_fx_text(g) == read_test_data("seed_mlp.export.fx.txt"));
  Graph f = io::read_graph_file(std::string(CTMATCH_TEST_DATA) + "/seed_mlp.pt2");
  CHECK(io::write_fx_text(f) == io::write_fx_text(g));
  io::GraphSource inner = io::graph_source(pt2, "seed_mlp.pt2");
  CHECK(inner.name == "seed_mlp.pt2:seed_mlp/models/model.json");
  CHECK(inner.text.view().starts_with("{\"graph_module\""));
  // Text that is not an archive passes through as it is.
  io::GraphSource plain = io::graph_source(std::string("graph():\n    return ()"), "g.fx.txt");
  CHECK(plain.name == "g.fx.txt");
  CHECK(plain.text.view() == "graph():\n    return ()");
}

TEST_CASE("a large file is mapped, not copied, and reads as the same graph") {
  // A chain of relu nodes, over map_file_min_bytes.
  std::string fx = "graph():\n    %x : [num_users=1] = placeholder[target=x]\n";
  const int n = 12000;
  for (int i = 0; i < n; ++i)
    fx += "    %r" + std::to_string(i) + " : [num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%" +
          (i ? "r" + std::to_string(i - 1) : std::string("x")) + ",), kwargs = {})\n";
  fx += "    return (r" + std::to_string(n - 1) + ",)\n";
  REQUIRE(fx.size() > map_file_min_bytes);
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const auto path = std::filesystem::temp_directory_path() / ("ctmatch_map_" + std::to_string(::getpid()) + ".fx.txt");
  auto write = [&](const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
    REQUIRE(std::filesystem::file_size(path) == text.size());
  };
  const std::string expected = io::write_fx_text(io::read_fx_text(fx, "chain.fx.txt"));

  // Not a multiple of the page size: mapped, with the file's bytes, and what follows them is
  // a zero byte as after a std::string's.
  REQUIRE(fx.size() % page != 0);
  write(fx);
  {
    FileText t = read_file_text(path.string());
    CHECK(t.mapped());
    CHECK(t.view() == fx);
    CHECK(t.view().data()[t.view().size()] == '\0');
    FileText moved = std::move(t);  // the mapping moves with it, and is unmapped once
    CHECK(moved.mapped());
    CHECK(!t.mapped());
    CHECK(moved.view() == fx);
    t = std::move(moved);
    CHECK(t.view() == fx);
  }
  Graph g = io::read_graph_file(path.string());
  verify(g);
  CHECK(io::write_fx_text(g) == expected);
  // The limit is checked before anything is mapped.
  CHECK_THROWS_WITH_AS(read_file_text(path.string(), fx.size() - 1), doctest::Contains("is larger than the limit"), FileError);

  // A multiple of the page size (blank lines added): there would be no byte after it in a
  // mapping, so it is read into a string.
  std::string padded = fx + std::string(page - fx.size() % page, '\n');
  write(padded);
  {
    FileText t = read_file_text(path.string());
    CHECK(!t.mapped());
    CHECK(t.view() == padded);
  }
  CHECK(io::write_fx_text(io::read_graph_file(path.string())) == expected);

  // A small file is read into a string.
  write("graph():\n    return ()");
  CHECK(!read_file_text(path.string()).mapped());
  std::filesystem::remove(path);
}
