// FX text reader and writer: every graph in tests/data reads, verifies and round-trips byte for
// byte; every literal FX prints reads into the right Value kind and prints back the same.
#include <doctest/doctest.h>

#include <ctmatch/graph/verify.hpp>
#include <ctmatch/io/fx_text.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "graph_compare.hpp"
#include "test_data.hpp"

using namespace ctmatch;

namespace {

std::vector<std::filesystem::path> fx_files() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(CTMATCH_TEST_DATA)) {
    std::string n = e.path().filename().string();
    if (n.size() > 7 && n.substr(n.size() - 7) == ".fx.txt") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// The node called `name` (must exist).
const Node& node(const Graph& g, std::string_view name) {
  NodeId id = g.find(name);
  REQUIRE_MESSAGE(id != no_node, "no node " << name);
  return g[id];
}

}  // namespace

TEST_CASE("every FX text graph in tests/data reads, verifies and round-trips byte for byte") {
  auto files = fx_files();
  REQUIRE(files.size() >= 9);  // seed_mlp, resnet18 and gpt2, three stages each
  for (const auto& path : files) {
    INFO(path.filename().string());
    std::string text = read_test_file(path);
    Graph g = io::read_fx_text(text, path.filename().string());
    CHECK_NOTHROW(verify(g));
    // torch counts len(graph.nodes): one node per `%` line plus the output.
    std::size_t defs = 0;
    for (std::size_t p = text.find("\n    %"); p != std::string::npos; p = text.find("\n    %", p + 1)) ++defs;
    CHECK(g.size() == defs + 1);
    CHECK(g[g.last()].kind() == NodeKind::Output);

    std::string written = io::write_fx_text(g);
    CHECK(written == text);
    Graph again = io::read_fx_text(written, "written");
    check_same_graph(g, again);
  }
}

TEST_CASE("seed_mlp: ops, kwargs of every kind and users as the file says") {
  Graph g = io::read_fx_text(read_test_file(std::filesystem::path(CTMATCH_TEST_DATA) / "seed_mlp.export.fx.txt"));
  CHECK(g.size() == 19);
  const Node& x = node(g, "x");
  CHECK(x.kind() == NodeKind::Placeholder);
  CHECK(x.target() == "x");
  const Node& mm = node(g, "mm");
  CHECK(mm.kind() == NodeKind::CallFunction);
  CHECK(op_name(mm.op()) == "aten.mm.default");
  CHECK(mm.target().empty());  // spelled as FX spells the op: nothing kept
  REQUIRE(mm.args().size() == 2);
  CHECK(mm.args()[0].node() == g.find("x"));
  CHECK(mm.args()[1].node() == g.find("p_ws_0"));
  CHECK(x.num_users() == 1);
  CHECK(g[x.users()[0]].name() == "mm");

  const Node& sc = node(g, "scale_cast");
  CHECK(op_name(sc.op()) == "seedlib.scale_cast.default");
  REQUIRE(sc.kwargs().size() == 3);
  CHECK(sc.kwargs()[0].name == "dtype");
  CHECK(sc.kwargs()[0].value == Value(ScalarType::Float));
  CHECK(sc.kwargs()[1].name == "clamp");
  CHECK(sc.kwargs()[1].value == Value(true));
  CHECK(sc.kwargs()[2].name == "scale");
  CHECK(sc.kwargs()[2].value == Value(0.5));

  const Node& gelu = node(g, "gelu");
  REQUIRE(gelu.kwarg("approximate"));
  CHECK(*gelu.kwarg("approximate") == Value("tanh"));  // a bare word in kwargs is a string

  const Node& sum = node(g, "sum_1");
  REQUIRE(sum.args().size() == 3);
  CHECK(sum.args()[1] == Value::list({1}));
  CHECK(sum.args()[2] == Value(true));

  const Node& out = g[g.last()];
  REQUIRE(out.args().size() == 1);
  CHECK(out.args()[0] == Value::tuple({NodeRef{g.find("sum_1")}}));
}

TEST_CASE("every literal FX prints reads into its Value kind and writes back the same") {
  const std::string text =
      "graph():\n"
      "    %a : [num_users=3] = placeholder[target=a]\n"
      "    %b : [num_users=1] = placeholder[target=b]\n"
      "    %f : [num_users=1] = call_function[target=torch.ops.mylib.literals.default](args = ("
      "%a, 3, -7, 9223372036854775807, -9223372036854775808, 0.5, 1.0, -0.0, 1e-05, 1.5e+16, "
      "-3.4028234663852886e+38, inf, -inf, nan, True, False, None), kwargs = {})\n"
      "    %g : [num_users=1] = call_function[target=torch.ops.mylib.consts.default](args = ("
      "%f, torch.float32, torch.bfloat16, torch.float8_e4m3fn, torch.int64, torch.bool, torch.complex64, "
      "torch.uint8, torch.strided, torch.sparse_coo, torch.contiguous_format, torch.channels_last, "
      "torch.channels_last_3d, torch.preserve_format), kwargs = {device: cuda:0, other: cpu, name: tanh, "
      "empty: [], nested: [[1, 2], (3,), ((%a, %b), [])], q: 'a, b', dq: \"'q\", apo: it's})\n"
      "    %h : [num_users=1] = call_function[target=operator.getitem](args = (%g, 0), kwargs = {})\n"
      "    return (h, None, 1, 'str', [a])";
  Graph g = io::read_fx_text(text);
  CHECK_NOTHROW(verify(g));
  CHECK(io::write_fx_text(g) == text);

  const Node& f = node(g, "f");
  REQUIRE(f.args().size() == 17);
  CHECK(f.args()[1] == Value(3));
  CHECK(f.args()[2] == Value(-7));
  CHECK(f.args()[3] == Value(std::int64_t{9223372036854775807}));
  CHECK(f.args()[4] == Value(std::numeric_limits<std::int64_t>::min()));
  CHECK(f.args()[5] == Value(0.5));
  CHECK(f.args()[6] == Value(1.0));
  CHECK(f.args()[6].kind() == Value::Kind::Double);
  CHECK(f.args()[8] == Value(1e-05));
  CHECK(f.args()[9] == Value(1.5e16));
  CHECK(f.args()[10] == Value(-3.4028234663852886e+38));
  CHECK(f.args()[11] == Value(std::numeric_limits<double>::infinity()));
  CHECK(f.args()[12] == Value(-std::numeric_limits<double>::infinity()));
  REQUIRE(f.args()[13].get_if<double>());
  CHECK(std::isnan(*f.args()[13].get_if<double>()));
  CHECK(f.args()[14] == Value(true));
  CHECK(f.args()[15] == Value(false));
  CHECK(f.args()[16].is_none());

  const Node& c = node(g, "g");
  CHECK(c.args()[1] == Value(ScalarType::Float));
  CHECK(c.args()[2] == Value(ScalarType::BFloat16));
  CHECK(c.args()[3] == Value(ScalarType::Float8_e4m3fn));
  CHECK(c.args()[4] == Value(ScalarType::Long));
  CHECK(c.args()[5] == Value(ScalarType::Bool));
  CHECK(c.args()[6] == Value(ScalarType::ComplexFloat));
  CHECK(c.args()[7] == Value(ScalarType::Byte));
  CHECK(c.args()[8] == Value(Layout::Strided));
  CHECK(c.args()[9] == Value(Layout::Sparse));
  CHECK(c.args()[10] == Value(MemoryFormat::Contiguous));
  CHECK(c.args()[11] == Value(MemoryFormat::ChannelsLast));
  CHECK(c.args()[12] == Value(MemoryFormat::ChannelsLast3d));
  CHECK(c.args()[13] == Value(MemoryFormat::Preserve));
  CHECK(*c.kwarg("device") == Value(Device{DeviceType::CUDA, 0}));
  CHECK(*c.kwarg("other") == Value(Device{DeviceType::CPU, -1}));
  CHECK(*c.kwarg("name") == Value("tanh"));
  CHECK(*c.kwarg("empty") == Value::list({}));
  NodeRef a{g.find("a")}, b{g.find("b")};
  CHECK(*c.kwarg("nested") ==
        Value::list({Value::list({1, 2}), Value::tuple({3}), Value::tuple({Value::tuple({a, b}), Value::list({})})}));
  CHECK(*c.kwarg("q") == Value("a, b"));
  CHECK(*c.kwarg("dq") == Value("'q"));
  CHECK(*c.kwarg("apo") == Value("it's"));
  CHECK(node(g, "a").num_users() == 3);  // f, g and the output

  const Node& h = node(g, "h");
  CHECK(op_name(h.op()) == "operator.getitem");
  const Node& out = g[g.last()];
  CHECK(out.args()[0] == Value::tuple({NodeRef{g.find("h")}, None{}, 1, "str", Value::list({a})}));
}

TEST_CASE("every dtype, layout and memory format round-trips") {
  std::string text = "graph():\n    %c : [num_users=1] = call_function[target=torch.ops.mylib.all.default](args = (";
  for (std::size_t i = 0; i < scalar_type_count; ++i) {
    if (i) text += ", ";
    text += "torch.";
    text += torch_name(static_cast<ScalarType>(i));
  }
  for (std::uint8_t i = 0; i <= static_cast<std::uint8_t>(Layout::Jagged); ++i) {
    text += ", torch.";
    text += torch_name(static_cast<Layout>(i));
  }
  for (std::uint8_t i = 0; i <= static_cast<std::uint8_t>(MemoryFormat::ChannelsLast3d); ++i) {
    text += ", torch.";
    text += torch_name(static_cast<MemoryFormat>(i));
  }
  text += "), kwargs = {})\n    return c";
  Graph g = io::read_fx_text(text);
  const Node& c = node(g, "c");
  REQUIRE(c.args().size() == scalar_type_count + 8 + 4);
  for (std::size_t i = 0; i < scalar_type_count; ++i) CHECK(c.args()[i] == Value(static_cast<ScalarType>(i)));
  CHECK(c.args()[scalar_type_count + 7] == Value(Layout::Jagged));
  CHECK(c.args()[scalar_type_count + 8 + 3] == Value(MemoryFormat::ChannelsLast3d));
  CHECK(io::write_fx_text(g) == text);
  // `return c`: a single returned node, not a tuple.
  CHECK(g[g.last()].args()[0] == Value(NodeRef{g.find("c")}));
}

TEST_CASE("node kinds: placeholder defaults, get_attr, call_method, call_module, type annotations") {
  const std::string text =
      "graph() -> Tuple[torch.Tensor, torch.Tensor]:\n"
      "    %x : torch.Tensor [num_users=2] = placeholder[target=x]\n"
      "    %alpha : [num_users=1] = placeholder[target=alpha](default=1.5)\n"
      "    %mode : [num_users=0] = placeholder[target=mode](default=mean)\n"
      "    %w : [num_users=1] = get_attr[target=layer1.0.weight]\n"
      "    %view : [num_users=1] = call_method[target=view](args = (%x, -1), kwargs = {})\n"
      "    %conv : [num_users=1] = call_module[target=layer1.0.conv](args = (%view,), kwargs = {weight: %w})\n"
      "    %add : [num_users=2] = call_function[target=operator.add](args = (%conv, %alpha), kwargs = {})\n"
      "    %lin : [num_users=1] = call_function[target=torch._C._nn.linear](args = (%add, %x), kwargs = {})\n"
      "    %odd : [num_users=1] = call_function[target=mylib.f](args = (%lin,), kwargs = {})\n"
      "    return [odd, add]";
  Graph g = io::read_fx_text(text);
  CHECK_NOTHROW(verify(g));
  CHECK(io::write_fx_text(g) == text);
  CHECK(node(g, "x").annotations() == std::vector<Annotation>{{"fx.type", "torch.Tensor"}});
  CHECK(g.annotations == std::vector<Annotation>{{"fx.return_type", "Tuple[torch.Tensor, torch.Tensor]"}});
  CHECK(node(g, "alpha").args()[0] == Value(1.5));
  CHECK(node(g, "mode").args()[0] == Value("mean"));
  CHECK(node(g, "w").kind() == NodeKind::GetAttr);
  CHECK(node(g, "w").target() == "layer1.0.weight");
  CHECK(node(g, "view").kind() == NodeKind::CallMethod);
  CHECK(node(g, "view").target() == "view");
  CHECK(node(g, "conv").kind() == NodeKind::CallModule);
  CHECK(*node(g, "conv").kwarg("weight") == Value(NodeRef{g.find("w")}));
  CHECK(op_name(node(g, "add").op()) == "operator.add");
  CHECK(op_name(node(g, "lin").op()) == "torch._C._nn.linear");
  // A target FX would spell differently (no `torch.ops.`) is kept as written.
  CHECK(op_name(node(g, "odd").op()) == "mylib.f");
  CHECK(node(g, "odd").target() == "mylib.f");
  check_same_graph(g, io::read_fx_text(io::write_fx_text(g)));
}

TEST_CASE("strings that would read back as something else are written quoted") {
  Graph g;
  NodeId x = g.placeholder("x");
  OpId op = intern_op("mylib.strings.default");
  std::vector<Value> args{NodeRef{x}, "1", "None", "cuda:0", "", "a, b", " pad", "'q", "it's", "torch.float32", "%x",
                          "line\nbreak", "plain word"};
  NodeId c = g.call(op, args);
  g.output({NodeRef{c}});
  std::string text = io::write_fx_text(g);
  INFO(text);
  CHECK(text.find("(args = (%x, '1', 'None', 'cuda:0', '', 'a, b', ' pad', \"'q\", it's, 'torch.float32', '%x', "
                  "'line\\nbreak', plain word), kwargs = {})") != std::string::npos);
  Graph back = io::read_fx_text(text);
  check_same_graph(g, back);
  CHECK(io::write_fx_text(back) == text);
}

TEST_CASE("a `str` slot reads a string as FX prints it: to the next \", \" or closing bracket outside its own brackets") {
  // An einsum equation; torch.export's assertion messages, whose sympy expressions hold ", "
  // inside brackets, as the last argument and before another.
  const std::string text =
      "graph():\n"
      "    %a : [num_users=2] = placeholder[target=a]\n"
      "    %einsum : [num_users=1] = call_function[target=torch.ops.aten.einsum.default](args = (bij,bkj->bik, [%a, %a]), kwargs = {})\n"
      "    %gelu : [num_users=2] = call_function[target=torch.ops.aten.gelu.default](args = (%einsum,), kwargs = {approximate: a,b})\n"
      "    %sym_size_int : [num_users=1] = call_function[target=torch.ops.aten.sym_size.int](args = (%a, 0), kwargs = {})\n"
      "    %ge : [num_users=2] = call_function[target=operator.ge](args = (%sym_size_int, 2), kwargs = {})\n"
      "    %_assert_scalar_default : [num_users=0] = call_function[target=torch.ops.aten._assert_scalar.default](args = "
      "(%ge, Runtime assertion failed for expression Eq(Mod(s0, 2), 0) on node 'ge'), kwargs = {})\n"
      "    %dep : [num_users=0] = call_function[target=torch.ops.aten._functional_assert_scalar.default](args = "
      "(%ge, Max(s0, 2) >= [2, 3], %gelu), kwargs = {})\n"
      "    return (gelu,)";
  Graph g = io::read_fx_text(text);
  verify(g);
  const Value a{NodeRef{g.find("a")}};
  CHECK(node(g, "einsum").args()[0] == Value("bij,bkj->bik"));
  CHECK(node(g, "einsum").args()[1] == Value::list({a, a}));
  CHECK(*node(g, "gelu").kwarg("approximate") == Value("a,b"));
  CHECK(node(g, "_assert_scalar_default").args()[1] ==
        Value("Runtime assertion failed for expression Eq(Mod(s0, 2), 0) on node 'ge'"));
  CHECK(node(g, "dep").args()[1] == Value("Max(s0, 2) >= [2, 3]"));
  CHECK(node(g, "dep").args()[2] == Value(NodeRef{g.find("gelu")}));
  CHECK(io::write_fx_text(g) == text);
  // A string the reader's word would not hold whole is written quoted, and reads back.
  Graph built;
  NodeId x = built.placeholder("x");
  std::vector<Value> outs;
  for (const char* s : {"a,", "a, b", "a,,b", "x,y", "f(a, b)", "f(a", "a)", "[1, 2", "g(a)]"})
    outs.emplace_back(NodeRef{built.call(intern_op("aten.gelu.default"), {NodeRef{x}}, {{"approximate", std::string(s)}})});
  built.output(outs);
  std::string written = io::write_fx_text(built);
  INFO(written);
  for (const char* printed : {"{approximate: 'a,'}", "{approximate: 'a, b'}", "{approximate: 'a,,b'}", "{approximate: x,y}",
                              "{approximate: f(a, b)}", "{approximate: 'f(a'}", "{approximate: 'a)'}",
                              "{approximate: '[1, 2'}", "{approximate: 'g(a)]'}"})
    CHECK(written.find(printed) != std::string::npos);
  check_same_graph(built, io::read_fx_text(written));
}

TEST_CASE("any string in a `str` slot, bare or quoted by the writer, reads back as it was") {
  // Strings drawn from the characters that end or nest a bare word, in a str slot both as the
  // last argument (kwargs) and before another (einsum's equation), each graph read back.
  const std::string_view alphabet = "ab ,()[]{}'%\"";
  std::uint32_t state = 12345;
  auto next = [&] { return state = state * 1664525u + 1013904223u; };
  for (int round = 0; round < 500; ++round) {
    std::string s;
    for (std::uint32_t n = 1 + next() % 8; n > 0; --n) s += alphabet[(next() >> 8) % alphabet.size()];
    Graph g;
    NodeId x = g.placeholder("x");
    NodeId e = g.call(intern_op("aten.einsum.default"), {Value(s), Value::list({NodeRef{x}})});
    NodeId gelu = g.call(intern_op("aten.gelu.default"), {NodeRef{e}}, {{"approximate", s}});
    g.output({NodeRef{gelu}});
    const std::string text = io::write_fx_text(g);
    INFO(text);
    Graph back = io::read_fx_text(text);
    CHECK(node(back, "einsum").args()[0] == Value(s));
    CHECK(*node(back, "gelu").kwarg("approximate") == Value(s));
  }
}

TEST_CASE("a graph built in C++ prints as FX prints it") {
  Graph g;
  NodeId a = g.placeholder("a");
  NodeId b = g.placeholder("b");
  NodeId mm = g.call(intern_op("aten.mm.default"), {NodeRef{a}, NodeRef{b}});
  NodeId cast = g.call(intern_op("seedlib.scale_cast.default"), {NodeRef{mm}},
                       {{"dtype", ScalarType::BFloat16}, {"scale", 0.25}});
  g.output({NodeRef{cast}, NodeRef{mm}});
  CHECK(io::write_fx_text(g) ==
        "graph():\n"
        "    %a : [num_users=1] = placeholder[target=a]\n"
        "    %b : [num_users=1] = placeholder[target=b]\n"
        "    %mm : [num_users=2] = call_function[target=torch.ops.aten.mm.default](args = (%a, %b), kwargs = {})\n"
        "    %scale_cast : [num_users=1] = call_function[target=torch.ops.seedlib.scale_cast.default](args = "
        "(%mm,), kwargs = {dtype: torch.bfloat16, scale: 0.25})\n"
        "    return (scale_cast, mm)");
}

TEST_CASE("lenient on what FX never prints but people type: CRLF, blank lines, trailing newline") {
  std::string text = "graph():\r\n    %x : [num_users=1] = placeholder[target=x]\r\n\r\n"
                     "    %r : [num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%x,), kwargs = {})\r\n"
                     "    return (r,)\r\n";
  Graph g = io::read_fx_text(text);
  CHECK(g.size() == 3);
  CHECK(io::write_fx_text(g) ==
        "graph():\n    %x : [num_users=1] = placeholder[target=x]\n"
        "    %r : [num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%x,), kwargs = {})\n"
        "    return (r,)");
}

TEST_CASE("the op's schema decides how a bare word reads: str, Device or symbolic int") {
  const std::string text =
      "graph():\n"
      "    %x : [num_users=3] = placeholder[target=x]\n"
      "    %gelu : [num_users=1] = call_function[target=torch.ops.aten.gelu.default](args = (%x,), kwargs = {approximate: cpu})\n"
      "    %gelu_1 : [num_users=1] = call_function[target=torch.ops.aten.gelu.default](args = (%x,), kwargs = {approximate: 1})\n"
      "    %div : [num_users=1] = call_function[target=torch.ops.aten.div.Tensor_mode](args = (%x, %x), kwargs = {rounding_mode: None})\n"
      "    %full : [num_users=0] = call_function[target=torch.ops.aten.full.default](args = ([2, 3], 0.0), kwargs = {dtype: torch.float32, device: cuda:1})\n"
      "    %view : [num_users=1] = call_function[target=torch.ops.aten.view.default](args = (%gelu, [s0, 128]), kwargs = {})\n"
      "    %other : [num_users=1] = call_function[target=torch.ops.mylib.other.default](args = (%view, s0), kwargs = {approximate: tanh, where: cuda})\n"
      "    return (other, gelu_1, div)";
  Graph g = io::read_fx_text(text);
  CHECK_NOTHROW(verify(g));
  CHECK(io::write_fx_text(g) == text);
  // `str approximate`: the word is the string even when it looks like a device or a number.
  CHECK(*node(g, "gelu").kwarg("approximate") == Value("cpu"));
  CHECK(*node(g, "gelu_1").kwarg("approximate") == Value("1"));
  CHECK(node(g, "div").kwarg("rounding_mode")->is_none());
  // `Device? device`
  CHECK(*node(g, "full").kwarg("device") == Value(Device{DeviceType::CUDA, 1}));
  // `SymInt[] size`: a word that is not a number is a symbolic int.
  CHECK(node(g, "view").args()[1] == Value::list({SymInt{"s0"}, 128}));
  // No schema: a device-shaped word is a Device, any other word a string.
  CHECK(node(g, "other").signature() == nullptr);
  CHECK(node(g, "other").args()[1] == Value("s0"));
  CHECK(*node(g, "other").kwarg("approximate") == Value("tanh"));
  CHECK(*node(g, "other").kwarg("where") == Value(Device{DeviceType::CUDA, -1}));
  // Known ops are bound to their signature: schema arguments resolve by name, defaults included.
  const Node& gelu = node(g, "gelu");
  REQUIRE(gelu.signature() != nullptr);
  REQUIRE(gelu.arg("self"));
  CHECK(gelu.arg("self")->node() == g.find("x"));
  const Node& full = node(g, "full");
  REQUIRE(full.arg("layout"));
  CHECK(full.arg("layout")->is_none());  // omitted: its default
  CHECK(!full.arg_written(static_cast<std::size_t>(full.signature()->find("layout"))));
}

TEST_CASE("FX text of torch before 2.1 ([#users=N]) reads as the same graph and writes back in its spelling") {
  std::string old_text = read_test_data("mlp_torch113.make_fx.fx.txt");
  REQUIRE(old_text.find("[#users=") != std::string::npos);
  Graph old_g = io::read_fx_text(old_text);
  verify(old_g);
  CHECK(io::write_fx_text(old_g) == old_text);
  // The same graph in today's spelling: equal, and written in today's spelling.
  std::string new_text = old_text;
  for (std::size_t at; (at = new_text.find("[#users=")) != std::string::npos;) new_text.replace(at, 8, "[num_users=");
  Graph new_g = io::read_fx_text(new_text);
  CHECK(io::write_fx_text(new_g) == new_text);
  REQUIRE(old_g.annotations.size() == 1);  // the spelling, and nothing else
  CHECK(old_g.annotations[0].value == "[#users=");
  old_g.annotations.clear();
  check_same_graph(old_g, new_g);
  // A type annotation before the old spelling, on the first node too.
  Graph typed = io::read_fx_text("graph():\n    %x : torch.Tensor [#users=1] = placeholder[target=x]\n    return (x,)");
  CHECK(io::write_fx_text(typed) == "graph():\n    %x : torch.Tensor [#users=1] = placeholder[target=x]\n    return (x,)");
  // One graph, one spelling: the second is refused at its position.
  CHECK_THROWS_WITH(io::read_fx_text("graph():\n    %x : [#users=1] = placeholder[target=x]\n"
                                     "    %y : [num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%x,), kwargs = {})\n"
                                     "    return (y,)"),
                    doctest::Contains("<input>:3:10: error: expected '[#users=N]'"));
}

TEST_CASE("the UTF-8 check finds the first bad byte wherever it sits, past ASCII runs of any length") {
  using io::fx::detail::find_invalid_utf8;
  for (std::size_t len : {1u, 7u, 8u, 31u, 32u, 33u, 64u, 100u}) {
    std::string ascii(len, 'a');
    CHECK(find_invalid_utf8(ascii) == std::string_view::npos);
    for (std::size_t at = 0; at < len; ++at) {
      std::string bad = ascii;
      bad[at] = '\xff';  // never valid in UTF-8
      CHECK(find_invalid_utf8(bad) == at);
      std::string good = ascii;
      good.replace(at, 1, "\xc3\xa9");  // é: two valid bytes where the bad one was
      CHECK(find_invalid_utf8(good) == std::string_view::npos);
      std::string cut = ascii.substr(0, at) + "\xc3";  // a sequence cut by the end
      CHECK(find_invalid_utf8(cut) == at);
    }
  }
}

TEST_CASE("a list of ints read again shares the first one's box, and writing one leaves the other") {
  const std::string text =
      "graph():\n"
      "    %x : [num_users=4] = placeholder[target=x]\n"
      "    %a : [num_users=2] = call_function[target=torch.ops.aten.permute.default](args = (%x, [1, 0]), kwargs = {})\n"
      "    %b : [num_users=2] = call_function[target=torch.ops.aten.permute.default](args = (%x, [1, 0]), kwargs = {})\n"
      "    %c : [num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%x, [0, 1]), kwargs = {})\n"
      "    %d : [num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%x, 2.0), kwargs = {})\n"
      "    %cat : [num_users=1] = call_function[target=torch.ops.aten.cat.default](args = ([%a, %b], 1), kwargs = {})\n"
      "    %cat_1 : [num_users=1] = call_function[target=torch.ops.aten.cat.default](args = ([%a, %b], 1), kwargs = {})\n"
      "    %cat_2 : [num_users=1] = call_function[target=torch.ops.aten.cat.default](args = ([%cat, %cat_1, %c, %d],), kwargs = {})\n"
      "    return (cat_2,)";
  Graph g = io::read_fx_text(text);
  CHECK_NOTHROW(verify(g));
  CHECK(io::write_fx_text(g) == text);
  auto list_of = [&](const char* name, std::size_t i) { return node(g, name).args()[i].get_if<List>(); };
  REQUIRE(list_of("a", 1) != nullptr);
  CHECK(list_of("a", 1) == list_of("b", 1));  // the same box
  CHECK(list_of("c", 1) != list_of("a", 1));  // other ints
  CHECK(node(g, "c").args()[1] == Value::list({0, 1}));
  CHECK(list_of("cat", 0) != list_of("cat_1", 0));  // lists of nodes are never shared
  // Setting b's permutation leaves a's as it was.
  g.set_args(g.find("b"), NodeArgs{Value(NodeRef{g.find("x")}), Value::list({0, 1})}, {});
  CHECK(node(g, "a").args()[1] == Value::list({1, 0}));
  CHECK(node(g, "b").args()[1] == Value::list({0, 1}));
  CHECK_NOTHROW(verify(g));
  // A copy of the graph, written through get_if, leaves the original's shared list alone.
  Graph copy = g;
  NodeArgs args(std::vector<Value>(node(copy, "a").args().begin(), node(copy, "a").args().end()));
  args[1].get_if<List>()->items[0] = Value(std::int64_t{7});
  copy.set_args(copy.find("a"), std::move(args), {});
  CHECK(node(copy, "a").args()[1] == Value::list({7, 0}));
  CHECK(node(g, "a").args()[1] == Value::list({1, 0}));
}
