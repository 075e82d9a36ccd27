// explain(): which pattern node, which argument, what was expected and what was found.
#include <doctest/doctest.h>

#include <string>
#include <type_traits>

#include <ctmatch/graph.hpp>
#include <ctmatch/io/read.hpp>
#include <ctmatch/pattern.hpp>
#include <ctmatch/schema/builtin.hpp>

#include "graph_builders.hpp"

using namespace ctmatch;
using namespace ctmatch::dsl;
using namespace pattest;
using pattern::FailureKind;

namespace {
constexpr auto scale_cast =
    op<"seedlib::scale_cast(Tensor x, *, ScalarType dtype, bool clamp=False, float scale=1.0) -> Tensor">;

struct Small {
  Graph g;
  NodeId x, m, s, bad_dtype, gl, r, t;
  Small() {
    schema::ensure_builtin_schemas();
    x = g.placeholder("x");
    NodeId w = g.placeholder("w");
    m = g.call(id_of(aten::mm), {ref(x), ref(w)});
    s = g.call(id_of(scale_cast), {ref(m)}, {{"dtype", ScalarType::Half}});
    bad_dtype = g.call(id_of(scale_cast), {ref(x)}, {{"dtype", std::int64_t{3}}});
    gl = g.call(id_of(aten::gelu), {ref(s)});
    r = g.call(id_of(aten::relu), {ref(gl)});
    t = g.call(id_of(aten::tanh), {ref(r)});
    g.output({ref(t), ref(r), ref(bad_dtype)});
  }
};
}  // namespace

TEST_CASE("explaining costs nothing when not asked: match() uses an empty sink") {
  static_assert(!pattern::NoExplain::enabled);
  static_assert(std::is_empty_v<pattern::NoExplain>);
  static_assert(pattern::Explainer::enabled);
}

TEST_CASE("a matching pattern explains as matched") {
  Small s;
  auto e = explain(scale_cast(aten::mm("a"_x, "b"_x)), s.g, s.s);
  CHECK(e.matched);
  CHECK(e.failures.empty());
  CHECK(e.to_string() == "matched\n");
}

TEST_CASE("op mismatch at the root and below it") {
  Small s;
  auto root = explain(aten::bmm("a"_x, "b"_x), s.g, s.m);
  REQUIRE_FALSE(root.matched);
  REQUIRE(root.failures.size() == 1);
  const auto& f = root.failures[0];
  CHECK(f.kind == FailureKind::Op);
  CHECK(f.pattern_node == 0);
  CHECK(f.pattern_op == "aten.bmm.default");
  CHECK(f.node_name == "mm");
  CHECK(f.expected == "aten.bmm.default");
  CHECK(f.found == "aten.mm.default");
  CHECK(f.to_string() == "pattern node #0 (aten.bmm.default) at 'mm': op: expected aten.bmm.default, found aten.mm.default");

  auto inner = explain(aten::gelu(scale_cast(aten::bmm("a"_x, "b"_x))), s.g, s.gl);
  REQUIRE(inner.failures.size() == 1);
  CHECK(inner.failures[0].pattern_node == 2);
  CHECK(inner.failures[0].node_name == "mm");
  CHECK(inner.failures[0].found == "aten.mm.default");
  // An op call where the argument is not a node (a placeholder): the argument is named.
  auto leaf = explain(scale_cast(aten::mm("a"_x, "b"_x)), s.g, s.bad_dtype);
  REQUIRE(!leaf.failures.empty());
  CHECK(leaf.failures[0].kind == FailureKind::Op);
  CHECK(leaf.failures[0].found.find("placeholder") != std::string::npos);
}

TEST_CASE("kwarg type, value, users and check failures name the argument") {
  Small s;
  auto type = explain(scale_cast("x"_x, "dtype"_kw = slot<"dtype", DType>), s.g, s.bad_dtype);
  REQUIRE(type.failures.size() == 1);
  CHECK(type.failures[0].kind == FailureKind::Type);
  CHECK(type.failures[0].argument == "dtype");
  CHECK(type.failures[0].expected == "a ScalarType for slot 'dtype'");
  CHECK(type.failures[0].found == "int 3");

  auto value = explain(aten::gelu("x"_x, "approximate"_kw = "tanh"), s.g, s.gl);
  REQUIRE(value.failures.size() == 1);
  CHECK(value.failures[0].kind == FailureKind::Value);
  CHECK(value.failures[0].argument == "approximate");
  CHECK(value.failures[0].expected.find("tanh") != std::string::npos);
  CHECK(value.failures[0].found.find("none") != std::string::npos);

  auto users = explain(aten::tanh(aten::relu("x"_x).users<1>()), s.g, s.t);
  REQUIRE(users.failures.size() == 1);
  CHECK(users.failures[0].kind == FailureKind::Users);
  CHECK(users.failures[0].pattern_node == 1);
  CHECK(users.failures[0].expected == "1 user(s)");
  CHECK(users.failures[0].found == "2 user(s)");

  auto check = explain(extra_check(aten::tanh("x"_x), [](const auto&) { return false; }), s.g, s.t);
  REQUIRE(check.failures.size() == 1);
  CHECK(check.failures[0].kind == FailureKind::Check);

  auto where = explain(scale_cast("x"_x, "dtype"_kw = slot<"d", DType>.where([](DType d) { return d == DType::Float; })), s.g, s.s);
  REQUIRE(!where.failures.empty());
  CHECK(where.failures[0].kind == FailureKind::Check);
  CHECK(where.failures[0].argument == "dtype");
}

TEST_CASE("alternatives explain every branch tried") {
  Small s;
  auto e = explain(aten::bmm("a"_x, "b"_x) | aten::addmm(_, "a"_x, "b"_x), s.g, s.m);
  REQUIRE_FALSE(e.matched);
  REQUIRE(e.failures.size() == 2);
  CHECK(e.failures[0].pattern_op == "aten.bmm.default");
  CHECK(e.failures[1].pattern_op == "aten.addmm.default");
  CHECK(e.to_string().find("aten.addmm.default") != std::string::npos);
}

TEST_CASE("explain on a real graph: why a getitem of a split is not a layer_norm") {
  schema::ensure_builtin_schemas();
  Graph g = io::read_graph_file(std::string(CTMATCH_TEST_DATA) + "/gpt2.export.fx.txt");
  constexpr auto ln = getitem(aten::native_layer_norm("x"_x, _, _, _, slot<"eps", double>).users<1>(), 0);
  NodeId split_item = no_node;
  const OpId gi = id_of(getitem), split = id_of(aten::split_with_sizes);
  for (const Node& n : g.nodes())
    if (n.op() == gi && g[n.args()[0].node()].op() == split && *n.args()[1].get_if<std::int64_t>() == 0) {
      split_item = n.id();
      break;
    }
  REQUIRE(split_item != no_node);
  auto e = explain(ln, g, split_item);
  REQUIRE(e.failures.size() == 1);
  CHECK(e.failures[0].kind == FailureKind::Op);
  CHECK(e.failures[0].pattern_node == 1);
  CHECK(e.failures[0].found == "aten.split_with_sizes.default");
  CHECK(explain(ln, g, g.find("getitem")).matched);
}

TEST_CASE("an extra_check in named parts: explain names the part that failed, parts run in order") {
  Small s;
  int calls = 0;
  auto holds = [&](const auto&) { ++calls; return true; };
  auto fails = [&](const auto&) { ++calls; return false; };
  const auto p = extra_check(scale_cast(aten::mm("a"_x, "b"_x)), check<"a is not b">(holds),
                             check<"the dtype is float8">(fails), check<"never reached">(holds));
  auto e = explain(p, s.g, s.s);
  REQUIRE_FALSE(e.matched);
  REQUIRE(e.failures.size() == 1);
  CHECK(e.failures[0].kind == FailureKind::Check);
  CHECK(e.failures[0].expected == "the check 'the dtype is float8' to hold");
  CHECK(calls == 2);  // the third part is not run
  CHECK_FALSE(match(p, s.g, s.s));

  calls = 0;
  const auto all_hold = extra_check(scale_cast(aten::mm("a"_x, "b"_x)), check<"one">(holds), check<"two">(holds));
  CHECK(match(all_hold, s.g, s.s));
  CHECK(calls == 2);
  // one named part alone is named too; an unnamed check says only that it failed
  CHECK(explain(extra_check(scale_cast(aten::mm("a"_x, "b"_x)), check<"alone">(fails)), s.g, s.s).failures[0].expected ==
        "the check 'alone' to hold");
  CHECK(explain(extra_check(scale_cast(aten::mm("a"_x, "b"_x)), fails), s.g, s.s).failures[0].expected ==
        "extra_check to hold");
}

TEST_CASE("single_use(p): every interior call has one user unless it says otherwise; the root any") {
  schema::ensure_builtin_schemas();
  Graph g;
  const NodeId x = g.placeholder("x"), w = g.placeholder("w");
  const NodeId mm = g.call(id_of(aten::mm), {ref(x), ref(w)});
  const NodeId relu = g.call(id_of(aten::relu), {ref(mm)});
  const NodeId tanh = g.call(id_of(aten::tanh), {ref(relu)});
  const NodeId other = g.call(id_of(aten::gelu), {ref(relu)});  // relu: two users
  g.output({ref(tanh), ref(other), ref(relu)});

  const auto chain = aten::tanh(aten::relu(aten::mm("a"_x, "b"_x)));
  CHECK(match(chain, g, tanh));  // without the option: users are not looked at
  CHECK_FALSE(match(single_use(chain), g, tanh));
  const auto e = explain(single_use(chain), g, tanh);
  REQUIRE(e.failures.size() == 1);
  CHECK(e.failures[0].kind == FailureKind::Users);
  CHECK(e.failures[0].node_name == "relu");
  CHECK(e.failures[0].expected == "1 user(s) (single_use)");
  CHECK(e.failures[0].found == "3 user(s)");
  // the root may have any number of users; a call's own users<N>() wins over the option
  CHECK(match(single_use(aten::relu(aten::mm("a"_x, "b"_x))), g, relu));
  CHECK(match(single_use(aten::tanh(aten::relu(aten::mm("a"_x, "b"_x)).users<3>())), g, tanh));
  // around an extra_check, which still runs
  int calls = 0;
  const auto checked = single_use(extra_check(aten::relu(aten::mm("a"_x, "b"_x)), [&](const auto&) {
    ++calls;
    return false;
  }));
  CHECK_FALSE(match(checked, g, relu));
  CHECK(calls == 1);
}
