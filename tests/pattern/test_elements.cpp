// Every pattern element on small built graphs: slot types, alternatives (and the restore of a
// failed branch), commutative operands, lists and variadic operands, multi-root patterns,
// user counts, exact kwargs, predicates and extra_check.
#include <doctest/doctest.h>

#include <optional>
#include <type_traits>

#include <ctmatch/graph.hpp>
#include <ctmatch/pattern.hpp>
#include <ctmatch/schema/builtin.hpp>

#include "graph_builders.hpp"

using namespace ctmatch;
using namespace ctmatch::dsl;
using namespace pattest;

namespace {
constexpr auto test_op =
    op<"pattest::f(Tensor x, float[] scales, str mode, int[]? dims=None, Device? device=None) -> Tensor">;
}  // namespace

TEST_CASE("slots of every value type") {
  schema::ensure_builtin_schemas();
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId c = g.call(id_of(aten::_to_copy), {ref(x)},
                    {{"dtype", ScalarType::Half},
                     {"layout", Layout::Strided},
                     {"device", Device{DeviceType::CUDA, 1}},
                     {"non_blocking", true},
                     {"memory_format", MemoryFormat::ChannelsLast}});
  NodeId f = g.call(id_of(test_op), {ref(x), Value::list({0.5, 2.0}), "fast"}, {{"dims", ints({1, 2})}});
  NodeId f2 = g.call(id_of(test_op), {ref(x), Value::list({0.5, std::int64_t{2}}), "fast"});
  g.output({ref(c), ref(f), ref(f2)});

  constexpr auto to_copy = aten::_to_copy(
      "x"_x, "dtype"_kw = slot<"dtype", DType>, "layout"_kw = slot<"layout", Layout>,
      "device"_kw = slot<"device", Device>, "non_blocking"_kw = slot<"nb", bool>,
      "memory_format"_kw = slot<"mf", MemoryFormat>, "pin_memory"_kw = slot<"pin", std::optional<bool>>);
  auto m = match(to_copy, g, c);
  REQUIRE(m);
  CHECK(m->get<"dtype">() == ScalarType::Half);
  CHECK(m->get<"layout">() == Layout::Strided);
  CHECK(m->get<"device">() == Device{DeviceType::CUDA, 1});
  CHECK(m->get<"nb">() == true);
  CHECK(m->get<"mf">() == MemoryFormat::ChannelsLast);
  static_assert(std::is_same_v<decltype(m->get<"pin">()), std::optional<bool>>);
  CHECK_FALSE(m->get<"pin">().has_value());  // pin_memory=None by default

  // A non-optional slot does not take None.
  CHECK_FALSE(match(aten::_to_copy("x"_x, "pin_memory"_kw = slot<"pin", bool>), g, c));

  constexpr auto lists = test_op("x"_x, slot<"scales", FloatList>, slot<"mode", std::string_view>,
                                 "dims"_kw = slot<"dims", std::optional<IntList>>);
  auto l = match(lists, g, f);
  REQUIRE(l);
  FloatList scales = l->get<"scales">();
  REQUIRE(scales.size() == 2);
  CHECK(scales[0] == 0.5);
  CHECK(scales[1] == 2.0);
  CHECK(scales.to_vector() == std::vector<double>{0.5, 2.0});
  CHECK(l->get<"mode">() == "fast");
  std::optional<IntList> dims = l->get<"dims">();
  REQUIRE(dims);
  CHECK(dims->to_vector() == std::vector<std::int64_t>{1, 2});
  // f2: a list holding an int where a float list is expected; dims absent (None).
  CHECK_FALSE(match(lists, g, f2));
  auto l2 = match(test_op("x"_x, _, _, "dims"_kw = slot<"dims", std::optional<IntList>>), g, f2);
  REQUIRE(l2);
  CHECK_FALSE(l2->get<"dims">().has_value());
  // The list views point into the node: no copy was made.
  CHECK(scales.values().data() == g[f].args()[1].items()->data());
}

TEST_CASE("int and int-list slots, with predicates") {
  schema::ensure_builtin_schemas();
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId p = g.call(id_of(aten::permute), {ref(x), ints({0, 2, 1})});
  NodeId s = g.call(id_of(aten::_softmax), {ref(p), std::int64_t{-1}, false});
  g.output({ref(s)});
  auto m = match(aten::_softmax(aten::permute("x"_x, slot<"dims", IntList>), slot<"dim", std::int64_t>, false), g, s);
  REQUIRE(m);
  CHECK(m->get<"dim">() == -1);
  IntList dims = m->get<"dims">();
  CHECK(dims.size() == 3);
  CHECK(dims[1] == 2);
  std::int64_t sum = 0;
  for (std::int64_t d : dims) sum += d;
  CHECK(sum == 3);

  constexpr auto last_dim = aten::_softmax("x"_x, slot<"dim", std::int64_t>.where([](std::int64_t d) { return d < 0; }), _);
  constexpr auto first_dim = aten::_softmax("x"_x, slot<"dim", std::int64_t>.where([](std::int64_t d) { return d == 0; }), _);
  CHECK(match(last_dim, g, s));
  CHECK_FALSE(match(first_dim, g, s));
  // A predicate on an op call gets the node (and may take the graph).
  constexpr auto three_dims = aten::_softmax(aten::permute("x"_x, _).where([](const Node& n, const Graph&) {
    return n.arg(1)->items()->size() == 3;
  }), _, _);
  CHECK(match(three_dims, g, s));
  // A constant int list.
  CHECK(match(aten::permute("x"_x, list(0, 2, 1)), g, p));
  CHECK_FALSE(match(aten::permute("x"_x, list(0, 1, 2)), g, p));
  CHECK_FALSE(match(aten::permute("x"_x, list(0, 2)), g, p));
}

TEST_CASE("alternatives; a failed branch leaves no binding behind") {
  schema::ensure_builtin_schemas();
  Graph g;
  NodeId x = g.placeholder("x"), w = g.placeholder("w");
  NodeId r = g.call(id_of(aten::relu), {ref(x)});
  NodeId a = g.call(id_of(aten::add.Tensor), {ref(r), ref(r)});
  NodeId m1 = g.call(id_of(aten::mm), {ref(x), ref(w)});
  NodeId b1 = g.call(id_of(aten::bmm), {ref(x), ref(w)});
  g.output({ref(a), ref(m1), ref(b1)});

  // Branch 1 binds a = x, then its predicate fails; branch 2 must see "a" unbound.
  constexpr auto never = [](const Node&) { return false; };
  constexpr auto p = aten::add.Tensor(any_of(aten::relu("a"_x).where(never), "a"_x), "a"_x);
  auto m = match(p, g, a);
  REQUIRE(m);
  CHECK(m->get<"a">() == r);
  CHECK(m->node_ids()[1] == no_node);  // the relu of the failed branch is not reported

  // Alternatives at the root: dispatch on either op.
  constexpr auto either = aten::mm("a"_x, "b"_x) | aten::bmm("a"_x, "b"_x);
  auto e1 = match(either, g, m1);
  auto e2 = match(either, g, b1);
  REQUIRE(e1);
  REQUIRE(e2);
  CHECK(e1->node_ids()[0] == m1);
  CHECK(e1->node_ids()[1] == no_node);
  CHECK(e2->node_ids()[0] == no_node);
  CHECK(e2->node_ids()[1] == b1);
  CHECK(e2->root() == b1);
  CHECK(e2->is_root(0));
  CHECK(e2->is_root(1));
  CHECK_FALSE(match(either, g, a));

  // Names bound in one alternative only: has<>() says which.
  constexpr auto named = aten::add.Tensor(aten::relu("x"_x) | "y"_x, _);
  auto n = match(named, g, a);
  REQUIRE(n);
  CHECK(n->has<"x">());
  CHECK_FALSE(n->has<"y">());
  CHECK(n->get<"x">() == x);
}

TEST_CASE("commutative operands") {
  schema::ensure_builtin_schemas();
  Graph g;
  NodeId a = g.placeholder("a"), b = g.placeholder("b"), bias = g.placeholder("bias");
  NodeId m = g.call(id_of(aten::mm), {ref(a), ref(b)});
  NodeId left = g.call(id_of(aten::add.Tensor), {ref(m), ref(bias)});
  NodeId right = g.call(id_of(aten::add.Tensor), {ref(bias), ref(m)});
  NodeId both = g.call(id_of(aten::add.Tensor), {ref(bias), ref(bias)});
  g.output({ref(left), ref(right), ref(both)});

  constexpr auto ordered = aten::add.Tensor(aten::mm("a"_x, "b"_x), "bias"_x);
  constexpr auto either = ordered.commutative();
  CHECK(match(ordered, g, left));
  CHECK_FALSE(match(ordered, g, right));
  auto r = match(either, g, right);
  REQUIRE(r);
  CHECK(r->get<"bias">() == bias);
  CHECK(r->get<"a">() == a);
  CHECK(r->node_ids()[1] == m);
  CHECK(match(either, g, left)->get<"bias">() == bias);
  CHECK_FALSE(match(either, g, both));
}

TEST_CASE("list patterns and variadic operands") {
  schema::ensure_builtin_schemas();
  Graph g;
  NodeId x = g.placeholder("x"), y = g.placeholder("y");
  NodeId r = g.call(id_of(aten::relu), {ref(x)});
  NodeId c2 = g.call(id_of(aten::cat), {Value::list({ref(r), ref(y)}), std::int64_t{1}});
  NodeId c3 = g.call(id_of(aten::cat), {Value::list({ref(x), ref(x), ref(x)})});
  g.output({ref(c2), ref(c3)});

  constexpr auto two = aten::cat(list(aten::relu("a"_x), "b"_x), 1);
  auto m = match(two, g, c2);
  REQUIRE(m);
  CHECK(m->get<"a">() == x);
  CHECK(m->get<"b">() == y);
  CHECK(m->node_ids()[1] == r);
  CHECK_FALSE(match(two, g, c3));
  CHECK_FALSE(match(aten::cat(list("a"_x, "b"_x), 0), g, c2));  // dim is 1

  // Variadic: any number of operands, bound as a view, or each constrained.
  constexpr auto any_cat = aten::cat(slot<"xs", TensorList>, slot<"dim", std::int64_t>);
  auto v = match(any_cat, g, c3);
  REQUIRE(v);
  CHECK(v->get<"xs">().size() == 3);
  CHECK(v->get<"xs">()[2] == x);
  CHECK(v->get<"dim">() == 0);  // the default
  CHECK(match(aten::cat(each("a"_x), _), g, c3));      // all operands the same node
  CHECK_FALSE(match(aten::cat(each("a"_x), _), g, c2));
  CHECK(match(aten::cat(each(_), _), g, c2));
  CHECK(match(aten::cat(slot<"xs", TensorList>.where([](TensorList l) { return l.size() == 2; }), _), g, c2));
  CHECK_FALSE(match(aten::cat(slot<"xs", TensorList>.where([](TensorList l) { return l.size() == 2; }), _), g, c3));
}

TEST_CASE("multi-output: getitem and several roots sharing a node") {
  schema::ensure_builtin_schemas();
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId s = g.call(id_of(aten::split_with_sizes), {ref(x), ints({2, 2})});
  OpId gi = id_of(getitem);
  NodeId g0 = g.call(gi, {ref(s), std::int64_t{0}});
  NodeId g1 = g.call(gi, {ref(s), std::int64_t{1}});
  NodeId s2 = g.call(id_of(aten::split_with_sizes), {ref(x), ints({3, 1})});
  NodeId h0 = g.call(gi, {ref(s2), std::int64_t{0}});
  g.output({ref(g0), ref(g1), ref(h0)});

  constexpr auto first = getitem(aten::split_with_sizes("x"_x, slot<"sizes", IntList>), 0);
  auto f = match(first, g, g0);
  REQUIRE(f);
  CHECK(f->get<"sizes">()[0] == 2);
  CHECK_FALSE(match(first, g, g1));

  constexpr auto pair = multi(getitem(aten::split_with_sizes("x"_x, slot<"sizes", IntList>).named<"s">(), 0),
                              getitem("s"_x, 1));
  auto m = match(pair, g, g0);
  REQUIRE(m);
  static_assert(Match<std::remove_const_t<decltype(pair)>>::node_count == 3);
  CHECK(m->node_ids()[0] == g0);
  CHECK(m->node_ids()[1] == s);
  CHECK(m->node_ids()[2] == g1);
  CHECK(m->is_root(0));
  CHECK_FALSE(m->is_root(1));
  CHECK(m->is_root(2));
  CHECK(m->get<"s">() == s);
  CHECK(root_ops(pair)[0] == gi);
  // The second split has no getitem 1.
  CHECK_FALSE(match(pair, g, h0));
}

TEST_CASE("multi-output: a further root reaching an earlier root through a list element") {
  // cat([x, relu(x)]) and add(y, relu(x)): the second root's anchor is "r", the relu bound by the
  // first, though "y" comes before it and "r" sits inside a list.
  schema::ensure_builtin_schemas();
  Graph g;
  NodeId x = g.placeholder("x"), y = g.placeholder("y");
  NodeId r = g.call(id_of(aten::relu), {ref(x)});
  NodeId c = g.call(id_of(aten::cat), {Value::list({ref(x), ref(r)}), std::int64_t{0}});
  NodeId other = g.call(id_of(aten::add.Tensor), {ref(y), ref(y)});
  NodeId a = g.call(id_of(aten::add.Tensor), {ref(y), ref(r)});
  g.output({ref(c), ref(a), ref(other)});

  constexpr auto pair = multi(aten::relu("x"_x).named<"r">(), aten::cat(list("x"_x, "r"_x), _));
  auto m = match(pair, g, r);
  REQUIRE(m);
  CHECK(m->node_ids()[1] == c);
  constexpr auto after_unbound = multi(aten::relu("x"_x).named<"r">(), aten::add.Tensor("y"_x, "r"_x));
  auto n = match(after_unbound, g, r);
  REQUIRE(n);
  CHECK(n->node_ids()[1] == a);  // a user of r, not of y (the add of y with itself)
  CHECK(n->get<"y">() == y);
}

TEST_CASE("multi-output: a further root whose anchor lies several calls down") {
  // mul(neg(relu(x)), y) is the first root; the second, tanh(mm(permute(r), y)), reaches the
  // relu "r" three calls down, so its candidates are the tanh nodes above mm nodes above
  // permutes of r, in the order found. The first chain has a sigmoid on top, the second an mm of
  // the wrong operand; the third matches.
  schema::ensure_builtin_schemas();
  Graph g;
  NodeId x = g.placeholder("x"), y = g.placeholder("y");
  NodeId r = g.call(id_of(aten::relu), {ref(x)});
  NodeId n = g.call(id_of(aten::neg), {ref(r)});
  NodeId first = g.call(id_of(aten::mul.Tensor), {ref(n), ref(y)});
  NodeId p1 = g.call(id_of(aten::permute), {ref(r), ints({1, 0})});
  NodeId m1 = g.call(id_of(aten::mm), {ref(p1), ref(y)});
  NodeId s1 = g.call(id_of(aten::sigmoid), {ref(m1)});
  NodeId p2 = g.call(id_of(aten::permute), {ref(r), ints({1, 0})});
  NodeId m2 = g.call(id_of(aten::mm), {ref(p2), ref(x)});
  NodeId t2 = g.call(id_of(aten::tanh), {ref(m2)});
  NodeId m3 = g.call(id_of(aten::mm), {ref(p2), ref(y)});
  NodeId t3 = g.call(id_of(aten::tanh), {ref(m3)});
  g.output({ref(first), ref(s1), ref(t2), ref(t3)});

  constexpr auto root = aten::mul.Tensor(aten::neg(aten::relu("x"_x).named<"r">()), "y"_x);
  constexpr auto pair = multi(root, aten::tanh(aten::mm(aten::permute("r"_x, _), "y"_x)));
  auto m = match(pair, g, first);
  REQUIRE(m);
  CHECK(m->node_ids()[3] == t3);
  CHECK(m->node_ids()[4] == m3);
  CHECK(m->node_ids()[5] == p2);
  CHECK(m->is_root(3));
  CHECK_FALSE(m->is_root(4));
  // No exp above any of those mm nodes: the pattern fails.
  CHECK_FALSE(match(multi(root, aten::exp(aten::mm(aten::permute("r"_x, _), "y"_x))), g, first));
  // With x for the second operand the second chain matches first.
  auto with_x = match(multi(root, aten::tanh(aten::mm(aten::permute("r"_x, _), "x"_x))), g, first);
  REQUIRE(with_x);
  CHECK(with_x->node_ids()[3] == t2);
  // A third root anchored on the permute the second root bound ("p", the first of the two
  // placeholders two calls down): the tanh above p2's other mm.
  constexpr auto second = aten::tanh(aten::mm(aten::permute("r"_x, _).named<"p">(), "y"_x));
  auto three = match(multi(root, second, aten::tanh(aten::mm("p"_x, "x"_x))), g, first);
  REQUIRE(three);
  CHECK(three->node_ids()[6] == t2);
  CHECK(three->node_ids()[7] == m2);
  CHECK_FALSE(match(multi(root, second, aten::exp(aten::mm("p"_x, "x"_x))), g, first));
  // Bound placeholders at two depths ("y" two calls down, "r" three): the shallower anchors the
  // search, and the sigmoid above m1 is found.
  auto on_y = match(multi(root, aten::sigmoid(aten::mm(aten::permute("r"_x, _), "y"_x))), g, first);
  REQUIRE(on_y);
  CHECK(on_y->node_ids()[3] == s1);
  CHECK(on_y->node_ids()[5] == p1);
}

TEST_CASE("user-count constraints") {
  schema::ensure_builtin_schemas();
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId r = g.call(id_of(aten::relu), {ref(x)});
  NodeId t1 = g.call(id_of(aten::tanh), {ref(r)});
  NodeId r2 = g.call(id_of(aten::relu), {ref(x)});
  NodeId t2 = g.call(id_of(aten::tanh), {ref(r2)});
  NodeId use = g.call(id_of(aten::add.Tensor), {ref(t1), ref(r)});
  g.output({ref(use), ref(t2)});

  constexpr auto one = aten::tanh(aten::relu("x"_x).users<1>());
  constexpr auto two = aten::tanh(aten::relu("x"_x).users<2>());
  constexpr auto any = aten::tanh(aten::relu("x"_x).users<2>().any_users());
  CHECK_FALSE(match(one, g, t1));  // r has two users (tanh, add)
  CHECK(match(one, g, t2));
  CHECK(match(two, g, t1));
  CHECK_FALSE(match(two, g, t2));
  CHECK(match(any, g, t1));
  CHECK(match(any, g, t2));
  CHECK(match(aten::tanh("x"_x).users<1>(), g, t1));
  CHECK_FALSE(match(aten::tanh("x"_x).users<0>(), g, t1));
}

TEST_CASE("exact kwargs") {
  schema::ensure_builtin_schemas();
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId only = g.call(id_of(aten::_to_copy), {ref(x)}, {{"dtype", ScalarType::Half}});
  NodeId more = g.call(id_of(aten::_to_copy), {ref(x)}, {{"dtype", ScalarType::Half}, {"layout", Layout::Strided}});
  g.output({ref(only), ref(more)});
  constexpr auto loose = aten::_to_copy("x"_x, "dtype"_kw = slot<"d", DType>);
  constexpr auto exact = loose.exact_kwargs();
  CHECK(match(loose, g, only));
  CHECK(match(loose, g, more));
  CHECK(match(exact, g, only));
  CHECK_FALSE(match(exact, g, more));
}

TEST_CASE("extra_check sees the typed match") {
  schema::ensure_builtin_schemas();
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId a = g.call(id_of(aten::_to_copy), {ref(x)}, {{"dtype", ScalarType::Float}});
  NodeId b = g.call(id_of(aten::_to_copy), {ref(a)}, {{"dtype", ScalarType::Half}});
  NodeId c = g.call(id_of(aten::_to_copy), {ref(b)}, {{"dtype", ScalarType::Double}});
  g.output({ref(c)});
  constexpr auto pair = aten::_to_copy(aten::_to_copy("x"_x, "dtype"_kw = slot<"d1", DType>), "dtype"_kw = slot<"d2", DType>);
  constexpr auto narrowing = extra_check(pair, [](const auto& m) {
    return itemsize(m.template get<"d1">()) >= itemsize(m.template get<"d2">());
  });
  CHECK(match(pair, g, b));
  CHECK(match(pair, g, c));
  CHECK(match(narrowing, g, b));        // float32 -> float16
  CHECK_FALSE(match(narrowing, g, c));  // float16 -> float64
  CHECK(root_ops(narrowing)[0] == id_of(aten::_to_copy));
}

TEST_CASE("a node read before its op's schema was registered still matches (by name)") {
  // Nodes created with an op that has no signature yet keep their args as written.
  Graph g;
  OpId id = intern_op("pattest_late.g.default");
  NodeId x = g.placeholder("x");
  NodeId n = g.call(id, {ref(x)}, {{"k", std::int64_t{3}}});
  g.output({ref(n)});
  constexpr auto late = op<"pattest_late::g(Tensor x, *, int k, int j=7) -> Tensor">;
  REQUIRE(id_of(late) == id);
  CHECK(g[n].signature() == nullptr);
  auto m = match(late("x"_x, "k"_kw = slot<"k", std::int64_t>, "j"_kw = slot<"j", std::int64_t>), g, n);
  REQUIRE(m);
  CHECK(m->get<"k">() == 3);
  CHECK(m->get<"j">() == 7);  // the default, from the now-registered signature
  CHECK(match(late("x"_x, "k"_kw = 3).exact_kwargs(), g, n));
}
