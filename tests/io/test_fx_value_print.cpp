// FX-syntax printing of values (graph/value_print.hpp): Python's float repr, string repr,
// node references in both of FX's spellings, and the bare-string rule the writer relies on.
#include <doctest/doctest.h>

#include <ctmatch/graph/value_print.hpp>
#include <ctmatch/io/fx_text.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace ctmatch;

namespace {
std::string py(double d) {
  std::string s;
  append_python_float(s, d);
  return s;
}
std::string repr(std::string_view s) {
  std::string out;
  append_python_repr(out, s);
  return out;
}
}  // namespace

TEST_CASE("floats print as Python's repr(float)") {
  CHECK(py(0.5) == "0.5");
  CHECK(py(1.0) == "1.0");
  CHECK(py(100.0) == "100.0");
  CHECK(py(0.0) == "0.0");
  CHECK(py(-0.0) == "-0.0");
  CHECK(py(0.1) == "0.1");
  CHECK(py(2.5) == "2.5");
  CHECK(py(0.044715) == "0.044715");
  CHECK(py(0.7978845608028654) == "0.7978845608028654");
  CHECK(py(0.0001) == "0.0001");
  CHECK(py(0.00001) == "1e-05");
  CHECK(py(1.5e-07) == "1.5e-07");
  CHECK(py(1e15) == "1000000000000000.0");
  CHECK(py(1234567890123456.0) == "1234567890123456.0");
  CHECK(py(1e16) == "1e+16");
  CHECK(py(1.5e16) == "1.5e+16");
  CHECK(py(-3.4028234663852886e+38) == "-3.4028234663852886e+38");
  CHECK(py(1e100) == "1e+100");
  CHECK(py(5e-324) == "5e-324");
  CHECK(py(1.7976931348623157e+308) == "1.7976931348623157e+308");
  CHECK(py(123.456) == "123.456");
  CHECK(py(std::numeric_limits<double>::infinity()) == "inf");
  CHECK(py(-std::numeric_limits<double>::infinity()) == "-inf");
  CHECK(py(std::numeric_limits<double>::quiet_NaN()) == "nan");
}

TEST_CASE("every printed float reads back as the same double") {
  std::mt19937_64 rng(12345);
  for (int i = 0; i < 20000; ++i) {
    std::uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (std::isnan(d)) continue;
    std::string s = py(d);
    INFO(s);
    double back = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), back);
    REQUIRE(ec == std::errc{});
    CHECK(p == s.data() + s.size());
    CHECK(std::memcmp(&back, &d, sizeof d) == 0);
    // Python always shows a float as a float: a '.', an exponent, or inf.
    CHECK(s.find_first_of(".ei") != std::string::npos);
  }
}

TEST_CASE("strings print as Python's repr(str)") {
  CHECK(repr("tanh") == "'tanh'");
  CHECK(repr("it's") == "\"it's\"");
  CHECK(repr("it's \"x\"") == "'it\\'s \"x\"'");
  CHECK(repr("a\\b") == "'a\\\\b'");
  CHECK(repr("l1\nl2\tx\r") == "'l1\\nl2\\tx\\r'");
  CHECK(repr(std::string_view("\x01\x7f", 2)) == "'\\x01\\x7f'");
  CHECK(repr("caf\xc3\xa9") == "'caf\xc3\xa9'");  // UTF-8 kept as it is
}

TEST_CASE("to_string: FX's args syntax, with and without a graph") {
  Graph g;
  NodeId x = g.placeholder("x");
  CHECK(to_string(Value(ScalarType::Float)) == "torch.float32");
  CHECK(to_string(Value(Layout::Strided)) == "torch.strided");
  CHECK(to_string(Value(MemoryFormat::ChannelsLast)) == "torch.channels_last");
  CHECK(to_string(Value(Device{DeviceType::CUDA, 0})) == "cuda:0");
  CHECK(to_string(Value(Device{DeviceType::CPU, -1})) == "cpu");
  CHECK(to_string(Value(None{})) == "None");
  CHECK(to_string(Value(true)) == "True");
  CHECK(to_string(Value(-7)) == "-7");
  CHECK(to_string(Value(SymInt{"s0 + 1"})) == "s0 + 1");
  CHECK(to_string(Value("tanh")) == "tanh");
  CHECK(to_string(Value("cpu")) == "'cpu'");  // bare it would read as a device
  CHECK(to_string(Value(NodeRef{x}), &g) == "%x");
  CHECK(to_string(Value(NodeRef{x})) == "%#" + std::to_string(x));
  CHECK(to_string(Value::list({1, Value::tuple({NodeRef{x}}), Value::list({})}), &g) == "[1, (%x,), []]");
  CHECK(to_string(Value::tuple({})) == "()");

  std::string r;
  append_value(r, Value::tuple({NodeRef{x}, "s", 1.0}), &g, ValueStyle::Repr);
  CHECK(r == "(x, 's', 1.0)");
}

TEST_CASE("a string printed bare reads back as the same string; ambiguous ones are quoted") {
  for (std::string s : {"tanh", "none", "mean", "plain word", "it's", "a%b", "s0", "cuda_graphs"}) {
    INFO(s);
    CHECK_FALSE(bare_string_is_ambiguous(s));
  }
  for (std::string s : {"", "1", "-1", ".5", "None", "True", "False", "inf", "nan", "cpu", "cuda:1", "torch.float32",
                        "%x", "'q", "\"q", "a, b", "(x)", "[x]", "{x}", " x", "x ", "a\nb"}) {
    INFO(s);
    CHECK(bare_string_is_ambiguous(s));
  }
  // Whatever a string holds, the FX writer prints it so that the reader gets it back.
  Graph g;
  NodeId x = g.placeholder("x");
  std::vector<Value> args{NodeRef{x}};
  for (std::string s : {"tanh", "", "1", "None", "cpu", "a, b", " x", "%x", "'q", "it's", "a\tb", "[x]", "torch.x", "s0 + 1"})
    args.push_back(Value(s));
  NodeId c = g.call(intern_op("mylib.s.default"), args);
  g.output({NodeRef{c}});
  Graph back = io::read_fx_text(io::write_fx_text(g));
  const Node& n = back[back.find("s")];
  REQUIRE(n.args().size() == args.size());
  for (std::size_t i = 1; i < args.size(); ++i) CHECK(n.args()[i] == args[i]);
}
