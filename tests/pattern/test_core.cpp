// The core of the DSL: ops from schema strings, placeholders, typed kwarg slots, match + get,
// root op ids. Small graphs built here; the real graphs are in test_real_graphs.cpp.
#include <doctest/doctest.h>

#include <type_traits>

#include <ctmatch/graph.hpp>
#include <ctmatch/pattern.hpp>
#include <ctmatch/schema/builtin.hpp>

using namespace ctmatch;
using namespace ctmatch::dsl;

namespace {
constexpr auto mm = aten::mm;
constexpr auto scale_cast =
    op<"seedlib::scale_cast(Tensor x, *, ScalarType dtype, bool clamp=False, float scale=1.0) -> Tensor">;
using ScaleCast = std::remove_const_t<decltype(scale_cast)>;

// x, w -> mm -> scale_cast(kwargs...)
struct Seed {
  Graph g;
  NodeId x, w, m, s;
  explicit Seed(std::vector<Value> sc_args_after_x = {}, std::vector<Kwarg> sc_kwargs = {}) {
    schema::ensure_builtin_schemas();
    x = g.placeholder("x");
    w = g.placeholder("w");
    m = g.call(decltype(mm)::id(), {NodeRef{x}, NodeRef{w}});
    std::vector<Value> args{NodeRef{m}};
    for (auto& a : sc_args_after_x) args.push_back(a);
    s = g.call(ScaleCast::id(), std::move(args), std::move(sc_kwargs));
    g.output({NodeRef{s}});
  }
};

constexpr auto typed = scale_cast(mm("a"_x, "b"_x), "dtype"_kw = slot<"dtype", DType>,
                                  "clamp"_kw = slot<"clamp", bool>,
                                  "scale"_kw = slot<"scale", double>);
}  // namespace

TEST_CASE("op<> knows the schema at compile time") {
  static_assert(ScaleCast::schema.num_args == 4);
  static_assert(ScaleCast::schema.args[1].name == "dtype");
  static_assert(ScaleCast::schema.args[1].kwarg_only);
  static_assert(ScaleCast::schema.args[2].has_default);
  static_assert(ScaleCast::name() == "seedlib.scale_cast.default");
  static_assert(std::remove_const_t<decltype(aten::add.Tensor)>::name() == "aten.add.Tensor");
  static_assert(std::remove_const_t<decltype(aten::add_Tensor)>::name() == "aten.add.Tensor");
  static_assert(std::remove_const_t<decltype(getitem)>::name() == "operator.getitem");
  static_assert(std::remove_const_t<decltype(aten::sum)>::name() == "aten.sum.default");
  static_assert(std::remove_const_t<decltype(aten::sum.dim_IntList)>::name() == "aten.sum.dim_IntList");

  // At run time the op is interned once and its schema registered: nodes bind to it.
  OpId id = ScaleCast::id();
  CHECK(id == ScaleCast::id());
  CHECK(op_name(id) == "seedlib.scale_cast.default");
  REQUIRE(OpRegistry::global().signature(id) != nullptr);
  CHECK(OpRegistry::global().signature(id)->params.size() == 4);
}

namespace {
// The named form of scale_cast: the same schema, a type of its own.
struct named_scale_cast_op
    : Op<"seedlib::scale_cast(Tensor x, *, ScalarType dtype, bool clamp=False, float scale=1.0) -> Tensor",
         named_scale_cast_op> {};
inline constexpr named_scale_cast_op named_scale_cast{};
}  // namespace

TEST_CASE("a named op: its calls carry its own type, and it is the same op at run time") {
  using NamedCall = decltype(named_scale_cast(mm("a"_x, "b"_x)));
  static_assert(std::is_same_v<NamedCall::op_type, named_scale_cast_op>);
  static_assert(std::is_same_v<decltype(scale_cast(mm("a"_x, "b"_x)))::op_type, ScaleCast>);
  static_assert(std::is_same_v<decltype(aten::mm("a"_x, "b"_x))::op_type, aten::mm_op>);
  static_assert(named_scale_cast_op::schema.args[1].name == "dtype");
  static_assert(named_scale_cast_op::name() == ScaleCast::name());

  // One schema, one op id: patterns written with either form match the same nodes.
  CHECK(named_scale_cast_op::id() == ScaleCast::id());
  Seed s({}, {{"dtype", ScalarType::Half}});
  auto named = match(named_scale_cast(mm("a"_x, "b"_x), "dtype"_kw = slot<"dtype", DType>), s.g, s.s);
  REQUIRE(named);
  CHECK(named->get<"a">() == s.x);
  CHECK(named->get<"dtype">() == ScalarType::Half);
  CHECK_FALSE(match(named_scale_cast(mm("a"_x, "b"_x)), s.g, s.m));
}

TEST_CASE("root op ids for dispatch") {
  auto ids = root_ops(typed);
  static_assert(std::tuple_size_v<decltype(ids)> == 1);
  CHECK(ids[0] == ScaleCast::id());
  auto alt = root_ops(aten::mm("a"_x, "b"_x) | aten::bmm("a"_x, "b"_x));
  REQUIRE(alt.size() == 2);
  CHECK(alt[0] == decltype(aten::mm)::id());
  CHECK(alt[1] == std::remove_const_t<decltype(aten::bmm)>::id());
}

TEST_CASE("typed kwarg slots: keyword, positional-free and default forms match alike") {
  SUBCASE("all keywords written") {
    Seed s({}, {{"dtype", ScalarType::Half}, {"clamp", true}, {"scale", 0.5}});
    auto m = match(typed, s.g, s.s);
    REQUIRE(m);
    static_assert(std::is_same_v<decltype(m->get<"dtype">()), DType>);
    static_assert(std::is_same_v<decltype(m->get<"clamp">()), bool>);
    static_assert(std::is_same_v<decltype(m->get<"scale">()), double>);
    static_assert(std::is_same_v<decltype(m->get<"a">()), NodeId>);
    CHECK(m->get<"dtype">() == ScalarType::Half);
    CHECK(m->get<"clamp">() == true);
    CHECK(m->get<"scale">() == 0.5);
    CHECK(m->get<"a">() == s.x);
    CHECK(m->get<"b">() == s.w);
    CHECK(m->root() == s.s);
  }
  SUBCASE("clamp and scale absent: their schema defaults") {
    Seed s({}, {{"dtype", ScalarType::BFloat16}});
    auto m = match(typed, s.g, s.s);
    REQUIRE(m);
    CHECK(m->get<"dtype">() == ScalarType::BFloat16);
    CHECK(m->get<"clamp">() == false);
    CHECK(m->get<"scale">() == 1.0);
  }
  SUBCASE("kwargs in another order") {
    Seed s({}, {{"scale", 2.0}, {"clamp", false}, {"dtype", ScalarType::Float}});
    auto m = match(typed, s.g, s.s);
    REQUIRE(m);
    CHECK(m->get<"scale">() == 2.0);
    CHECK(m->get<"dtype">() == ScalarType::Float);
  }
}

TEST_CASE("positional and keyword forms of one argument are the same argument") {
  schema::ensure_builtin_schemas();
  Graph g;
  NodeId x = g.placeholder("x");
  OpId gelu = std::remove_const_t<decltype(aten::gelu)>::id();
  OpId softmax = std::remove_const_t<decltype(aten::_softmax)>::id();
  NodeId s_pos = g.call(softmax, {NodeRef{x}, std::int64_t{-1}, false});
  NodeId s_kw = g.call(softmax, {NodeRef{x}}, {{"dim", std::int64_t{-1}}, {"half_to_float", false}});
  NodeId g_tanh = g.call(gelu, {NodeRef{x}}, {{"approximate", "tanh"}});
  NodeId g_none = g.call(gelu, {NodeRef{x}});
  g.output({NodeRef{s_pos}, NodeRef{s_kw}, NodeRef{g_tanh}, NodeRef{g_none}});

  constexpr auto sm = aten::_softmax("x"_x, -1, false);
  CHECK(match(sm, g, s_pos));
  CHECK(match(sm, g, s_kw));
  constexpr auto sm_kw = aten::_softmax("x"_x, "dim"_kw = slot<"dim", std::int64_t>, "half_to_float"_kw = false);
  CHECK(match(sm_kw, g, s_pos)->get<"dim">() == -1);
  CHECK(match(sm_kw, g, s_kw)->get<"dim">() == -1);
  CHECK_FALSE(match(aten::_softmax("x"_x, 1, false), g, s_pos));

  constexpr auto gt = aten::gelu("x"_x, "approximate"_kw = "tanh");
  CHECK(match(gt, g, g_tanh));
  CHECK_FALSE(match(gt, g, g_none));  // absent: the default 'none'
  CHECK(match(aten::gelu("x"_x, "approximate"_kw = "none"), g, g_none));
  auto a = match(aten::gelu(_, "approximate"_kw = slot<"approx", std::string_view>), g, g_none);
  REQUIRE(a);
  CHECK(a->get<"approx">() == "none");
  // A pattern that does not name approximate matches both.
  CHECK(match(aten::gelu("x"_x), g, g_tanh));
  CHECK(match(aten::gelu("x"_x), g, g_none));
}

TEST_CASE("a value of another kind than the slot's type does not match") {
  Seed ok({}, {{"dtype", ScalarType::Half}, {"scale", 0.5}});
  CHECK(match(typed, ok.g, ok.s));
  // scale written as an int: a double slot does not take it.
  Seed int_scale({}, {{"dtype", ScalarType::Half}, {"scale", std::int64_t{1}}});
  CHECK_FALSE(match(typed, int_scale.g, int_scale.s));
  // A slot<Value> takes anything.
  auto any = match(scale_cast(_, "dtype"_kw = _, "scale"_kw = slot<"scale", Value>), int_scale.g, int_scale.s);
  REQUIRE(any);
  static_assert(std::is_same_v<decltype(any->get<"scale">()), const Value&>);
  CHECK(any->get<"scale">() == Value(std::int64_t{1}));
}

TEST_CASE("kwargs the pattern does not name do not block a match") {
  Seed s({}, {{"dtype", ScalarType::Half}, {"clamp", true}, {"scale", 0.25}});
  constexpr auto only_dtype = scale_cast(_, "dtype"_kw = slot<"dtype", DType>);
  auto m = match(only_dtype, s.g, s.s);
  REQUIRE(m);
  CHECK(m->get<"dtype">() == ScalarType::Half);
  // ... and the match still gives every kwarg of the matched node, typed.
  auto kw = m->root_node().kwargs();
  REQUIRE(kw.size() == 3);
  CHECK(kw[1].name == "clamp");
  CHECK(*kw[1].value.get_if<bool>() == true);
  CHECK(*m->root_node().arg(3)->get_if<double>() == 0.25);
}

TEST_CASE("keyword-only arguments the pattern leaves out match anything") {
  Seed s({}, {{"dtype", ScalarType::Half}, {"clamp", true}});
  // dtype has no default, but it is keyword-only: leaving it out is "anything".
  constexpr auto any_kwargs = scale_cast(mm("a"_x, "b"_x));
  auto m = match(any_kwargs, s.g, s.s);
  REQUIRE(m);
  CHECK(m->root_node().kwargs().size() == 2);
}

TEST_CASE("constants") {
  Seed s({}, {{"dtype", ScalarType::Half}, {"scale", 0.5}});
  CHECK(match(scale_cast(_, "dtype"_kw = DType::Half), s.g, s.s));
  CHECK_FALSE(match(scale_cast(_, "dtype"_kw = DType::Float), s.g, s.s));
  CHECK(match(scale_cast(_, "dtype"_kw = DType::Half, "scale"_kw = 0.5, "clamp"_kw = false), s.g, s.s));
  CHECK_FALSE(match(scale_cast(_, "dtype"_kw = DType::Half, "scale"_kw = 0.25), s.g, s.s));
  CHECK_FALSE(match(scale_cast(_, "dtype"_kw = DType::Half, "clamp"_kw = true), s.g, s.s));
}

TEST_CASE("placeholders: a repeated name must bind the same node") {
  schema::ensure_builtin_schemas();
  Graph g;
  NodeId x = g.placeholder("x"), w = g.placeholder("w");
  OpId mm_id = decltype(mm)::id();
  NodeId xx = g.call(mm_id, {NodeRef{x}, NodeRef{x}});
  NodeId xw = g.call(mm_id, {NodeRef{x}, NodeRef{w}});
  g.output({NodeRef{xx}, NodeRef{xw}});
  constexpr auto square = mm("a"_x, "a"_x);
  CHECK(match(square, g, xx));
  CHECK_FALSE(match(square, g, xw));
  CHECK(match(mm("a"_x, "b"_x), g, xx));
  // The root's op must be the pattern's.
  CHECK_FALSE(match(aten::bmm("a"_x, "b"_x), g, xw));
  // A placeholder at a Tensor argument binds only nodes.
  CHECK_FALSE(match(mm("a"_x, "b"_x), g, x));
}

TEST_CASE("value placeholders bind and compare values") {
  schema::ensure_builtin_schemas();
  Graph g;
  NodeId x = g.placeholder("x");
  OpId view = std::remove_const_t<decltype(aten::view)>::id();
  NodeId v1 = g.call(view, {NodeRef{x}, Value::list({std::int64_t{2}, std::int64_t{3}})});
  NodeId v2 = g.call(view, {NodeRef{v1}, Value::list({std::int64_t{2}, std::int64_t{3}})});
  NodeId v3 = g.call(view, {NodeRef{v2}, Value::list({std::int64_t{6}})});
  g.output({NodeRef{v3}});
  constexpr auto same_shape = aten::view(aten::view("x"_x, "s"_x), "s"_x);
  auto m = match(same_shape, g, v2);
  REQUIRE(m);
  static_assert(std::is_same_v<decltype(m->get<"s">()), const Value&>);
  CHECK(m->get<"s">() == Value::list({std::int64_t{2}, std::int64_t{3}}));
  CHECK_FALSE(match(same_shape, g, v3));
}

TEST_CASE("node order: root first, then op calls in pre-order as written") {
  Seed s({}, {{"dtype", ScalarType::Half}});
  auto m = match(typed, s.g, s.s);
  REQUIRE(m);
  static_assert(Match<std::remove_const_t<decltype(typed)>>::node_count == 2);
  CHECK(m->node_ids()[0] == s.s);
  CHECK(m->node_ids()[1] == s.m);
  CHECK(m->is_root(0));
  CHECK_FALSE(m->is_root(1));
  CHECK(m->node(1).name() == "mm");
}

TEST_CASE("a chain pattern's nodes are distinct and last first; other shapes are not said to be") {
  // scale_cast(mm(a, b)): a chain. Its entries are the root, then its input.
  static_assert(Match<std::remove_const_t<decltype(typed)>>::nodes_in_chain);
  constexpr auto deep = aten::relu(aten::view(aten::relu("x"_x), _));
  static_assert(Match<std::remove_const_t<decltype(deep)>>::nodes_in_chain);
  static_assert(Match<std::remove_const_t<decltype(extra_check(deep, [](const auto&) { return true; }))>>::nodes_in_chain);
  // With .users<1>() on every call below the root, interior nodes are used only inside.
  static_assert(!Match<std::remove_const_t<decltype(deep)>>::interior_used_inside);
  constexpr auto single = aten::relu(aten::view(aten::relu("x"_x).users<1>(), _).users<1>());
  static_assert(Match<std::remove_const_t<decltype(single)>>::interior_used_inside);
  constexpr auto half = aten::relu(aten::view(aten::relu("x"_x), _).users<1>());
  static_assert(!Match<std::remove_const_t<decltype(half)>>::interior_used_inside);
  // Two op calls among one call's arguments: a tree, whose entries need not be in graph order.
  constexpr auto tree = aten::add.Tensor(aten::relu("x"_x), aten::relu("y"_x));
  static_assert(!Match<std::remove_const_t<decltype(tree)>>::nodes_in_chain);
  // Alternatives, lists and several roots are not chains either.
  constexpr auto alt = aten::relu(aten::relu("x"_x) | aten::sigmoid("x"_x));
  static_assert(!Match<std::remove_const_t<decltype(alt)>>::nodes_in_chain);
  constexpr auto listed = aten::cat(list(aten::relu("x"_x), "y"_x));
  static_assert(!Match<std::remove_const_t<decltype(listed)>>::nodes_in_chain);

  // On a graph: the tree's entries come in pattern order, which here is not graph order.
  schema::ensure_builtin_schemas();
  Graph g;
  NodeId x = g.placeholder("x"), y = g.placeholder("y");
  NodeId ry = g.call(decltype(aten::relu)::id(), {NodeRef{y}});
  NodeId rx = g.call(decltype(aten::relu)::id(), {NodeRef{x}});
  NodeId add = g.call(decltype(aten::add.Tensor)::id(), {NodeRef{rx}, NodeRef{ry}});
  NodeId v = g.call(decltype(aten::view)::id(), {NodeRef{add}, Value::list({std::int64_t{4}})});
  NodeId r = g.call(decltype(aten::relu)::id(), {NodeRef{v}});
  g.output({NodeRef{r}});
  auto t = match(tree, g, add);
  REQUIRE(t);
  CHECK(t->node_ids()[1] == rx);
  CHECK(t->node_ids()[2] == ry);
  CHECK(g.comes_before(ry, rx));  // entry 2 before entry 1 in the graph: not last first
  constexpr auto chain3 = aten::relu(aten::view(aten::add.Tensor(_, _), _));
  auto c = match(chain3, g, r);
  REQUIRE(c);
  for (std::size_t i = 0; i + 1 < c->node_ids().size(); ++i) CHECK(g.comes_before(c->node_ids()[i + 1], c->node_ids()[i]));
}

TEST_CASE("bound names at the type level") {
  using P = std::remove_const_t<decltype(typed)>;
  static_assert(pattern::binds<P, "dtype">);
  static_assert(pattern::binds<P, "a">);
  static_assert(!pattern::binds<P, "x">);
  static_assert(boost::mp11::mp_size<pattern::bound_names<P>>::value == 5);
  static_assert(boost::mp11::mp_contains<pattern::pattern_bindings<P>,
                                         pattern::binding<pattern::name<"scale">, double>>::value);
}
