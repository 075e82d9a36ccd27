#include <doctest/doctest.h>

#include <ctmatch/graph.hpp>

#include <string>
#include <utility>

using namespace ctmatch;

TEST_CASE("Value holds every argument kind and compares deeply") {
  CHECK(Value().kind() == Value::Kind::None);
  CHECK(Value(true).kind() == Value::Kind::Bool);
  CHECK(Value(3).kind() == Value::Kind::Int);
  CHECK(Value(0.5).kind() == Value::Kind::Double);
  CHECK(Value("tanh").kind() == Value::Kind::String);
  CHECK(Value(ScalarType::BFloat16).kind() == Value::Kind::ScalarType);
  CHECK(Value(Device{DeviceType::CUDA, 0}).kind() == Value::Kind::Device);
  CHECK(Value(Layout::Strided).kind() == Value::Kind::Layout);
  CHECK(Value(MemoryFormat::ChannelsLast).kind() == Value::Kind::MemoryFormat);
  CHECK(Value(NodeRef{4}).kind() == Value::Kind::Node);
  CHECK(Value(SymInt{"s0"}).kind() == Value::Kind::SymInt);
  CHECK(Value::list({1, 2}).kind() == Value::Kind::List);

  CHECK(Value(1) != Value(1.0));  // an int is not a float
  CHECK(Value::list({1, 2}) == Value::list({1, 2}));
  CHECK(Value::list({1, 2}) != Value::tuple({1, 2}));
  CHECK(Value::list({1, Value::list({2, NodeRef{3}})}) == Value::list({1, Value::list({2, NodeRef{3}})}));
  CHECK(Value::list({1, Value::list({2, NodeRef{3}})}) != Value::list({1, Value::list({2, NodeRef{4}})}));
}

TEST_CASE("Value visits and rewrites node references inside lists") {
  Value v = Value::list({NodeRef{1}, 2, Value::tuple({NodeRef{1}, NodeRef{5}})});
  std::vector<NodeId> seen;
  v.for_each_node([&](NodeId id) { seen.push_back(id); });
  CHECK(seen == std::vector<NodeId>{1, 1, 5});
  CHECK(v.replace_node(1, 7));
  CHECK_FALSE(v.replace_node(1, 7));
  seen.clear();
  v.for_each_node([&](NodeId id) { seen.push_back(id); });
  CHECK(seen == std::vector<NodeId>{7, 7, 5});
}

TEST_CASE("a list known to hold no node is skipped, and known again only as long as nothing writes it") {
  std::vector<NodeId> seen;
  auto nodes_of = [&](const Value& v) {
    seen.clear();
    v.for_each_node([&](NodeId id) { seen.push_back(id); });
    return seen;
  };
  Value shape = Value::list({2, 3, Value::tuple({4, 5})});
  CHECK(nodes_of(shape).empty());
  CHECK_FALSE(shape.refers_to(0));
  CHECK_FALSE(shape.replace_node(0, 1));
  // Nested: the inner list's node is found through the outer list.
  Value nested = Value::list({2, Value::list({3, NodeRef{8}})});
  CHECK(nodes_of(nested) == std::vector<NodeId>{8});
  CHECK(nested.refers_to(8));
  // A list of ints written through get_if to hold a node: the node is found, by this value
  // and by its copies made after, and not by a copy made before (which still holds ints only).
  Value before = shape;
  shape.get_if<List>()->items.push_back(NodeRef{6});
  CHECK(nodes_of(shape) == std::vector<NodeId>{6});
  CHECK(shape.refers_to(6));
  Value after = shape;
  CHECK(nodes_of(after) == std::vector<NodeId>{6});
  CHECK(after.replace_node(6, 7));
  CHECK(nodes_of(after) == std::vector<NodeId>{7});
  CHECK(nodes_of(before).empty());
  // Through a nested list's get_if too.
  Value outer = Value::list({Value::list({1, 2})});
  outer.get_if<List>()->items[0].get_if<List>()->items[1] = NodeRef{3};
  CHECK(nodes_of(outer) == std::vector<NodeId>{3});
}

TEST_CASE("copies of a list share it until one of them is written") {
  static_assert(sizeof(Value) == 16);
  Value a = Value::list({NodeRef{1}, Value::tuple({NodeRef{1}, 3}), "s"});
  Value b = a;
  CHECK(a.items() == b.items());  // shared: copying did not allocate
  CHECK(b.replace_node(1, 9));    // writing copies the list first
  CHECK(a.items() != b.items());
  CHECK((*a.items())[0].node() == 1);
  CHECK((*(*a.items())[1].items())[0].node() == 1);
  CHECK((*b.items())[0].node() == 9);
  CHECK((*(*b.items())[1].items())[0].node() == 9);

  // A list that does not hold the node stays shared.
  Value c = a;
  CHECK_FALSE(c.replace_node(5, 6));
  CHECK(c.items() == a.items());

  // Writable access to a string or a list held once does not copy it.
  Value s = std::string("tanh");
  const std::string* before = std::as_const(s).get_if<std::string>();
  *s.get_if<std::string>() += "!";
  CHECK(std::as_const(s).get_if<std::string>() == before);
  Value t = s;
  *t.get_if<std::string>() = "none";
  CHECK(*s.get_if<std::string>() == "tanh!");
  CHECK(*t.get_if<std::string>() == "none");

  // Assignment to itself, and moves, keep the value.
  Value& self = a;
  a = self;
  CHECK(a == Value::list({NodeRef{1}, Value::tuple({NodeRef{1}, 3}), "s"}));
  Value m = std::move(a);
  CHECK(m.is_list());
  CHECK(a.is_none());  // NOLINT: a moved-from Value is None
  a = std::move(m);
  CHECK((*a.items())[2] == Value("s"));
}

TEST_CASE("dtype, layout, memory format and device names") {
  CHECK(torch_name(ScalarType::Float) == "float32");
  CHECK(torch_name(ScalarType::BFloat16) == "bfloat16");
  CHECK(torch_name(ScalarType::Float4_e2m1fn_x2) == "float4_e2m1fn_x2");
  CHECK(parse_scalar_type("float8_e4m3fn") == ScalarType::Float8_e4m3fn);
  CHECK(parse_scalar_type("half") == ScalarType::Half);
  CHECK_FALSE(parse_scalar_type("float33"));
  for (std::size_t i = 0; i < scalar_type_count; ++i) {
    auto t = static_cast<ScalarType>(i);
    CHECK(parse_scalar_type(torch_name(t)) == t);
  }
  CHECK(itemsize(ScalarType::Double) == 8);
  CHECK(itemsize(ScalarType::BFloat16) == 2);
  static_assert(is_floating_point(ScalarType::Half) && !is_floating_point(ScalarType::Long));
  CHECK(parse_memory_format("channels_last_3d") == MemoryFormat::ChannelsLast3d);
  CHECK(parse_layout("strided") == Layout::Strided);
  CHECK(to_string(*parse_device("cuda:1")) == "cuda:1");
  CHECK(to_string(*parse_device("cpu")) == "cpu");
  CHECK_FALSE(parse_device("cuda:"));
  CHECK_FALSE(parse_device("cuda:x"));
  CHECK_FALSE(parse_device("tpu"));
}
