// The metadata and op-tag predicates of meta_checks.hpp in where(): device, strides, dtype, the
// node's and its users' op tags; unknown metadata satisfies none of them.
#include <doctest/doctest.h>

#include <ctmatch/graph.hpp>
#include <ctmatch/pattern.hpp>
#include <ctmatch/schema/builtin.hpp>

#include "graph_builders.hpp"
#include "int_values.hpp"

using namespace ctmatch;
using namespace ctmatch::dsl;
using namespace pattest;


TEST_CASE("meta checks: device, memory format and dtype of a placeholder's node") {
  schema::ensure_builtin_schemas();
  Graph g;
  NodeId a = g.placeholder("a"), b = g.placeholder("b");
  NodeId mm = g.call(id_of(aten::mm), {ref(a), ref(b)});
  g.output({ref(mm)});

  constexpr auto gpu_mm = aten::mm("a"_x.where(on_gpu), "b"_x);
  constexpr auto cpu_mm = aten::mm("a"_x.where(on_device<DeviceType::CPU>), "b"_x);
  constexpr auto dense_mm = aten::mm("a"_x.where(contiguous), "b"_x.where(contiguous));
  constexpr auto half_mm = aten::mm("a"_x.where(has_dtype<ScalarType::Half>), "b"_x);
  // No metadata: no predicate holds.
  CHECK_FALSE(match(gpu_mm, g, mm));
  CHECK_FALSE(match(cpu_mm, g, mm));
  CHECK_FALSE(match(dense_mm, g, mm));
  CHECK_FALSE(match(half_mm, g, mm));

  g[a].edit_meta() = TensorMeta::of(ScalarType::Half, int_values({4, 8}));
  g[a].edit_meta().device = Device{DeviceType::CUDA, 0};
  g[a].edit_meta().strides = int_values({8, 1});
  g[b].edit_meta() = TensorMeta::of(ScalarType::Half, int_values({8, 2}));
  g[b].edit_meta().strides = int_values({1, 8});  // a transposed view
  CHECK(match(gpu_mm, g, mm));
  CHECK_FALSE(match(cpu_mm, g, mm));
  CHECK(match(half_mm, g, mm));
  CHECK_FALSE(match(dense_mm, g, mm));
  g[b].edit_meta().strides = int_values({2, 1});
  CHECK(match(dense_mm, g, mm));
  g[a].edit_meta().device = Device{DeviceType::CPU, -1};
  CHECK_FALSE(match(gpu_mm, g, mm));
  CHECK(match(cpu_mm, g, mm));

  // explain names the failing predicate's place
  g[b].edit_meta().strides = int_values({1, 8});
  CHECK(explain(dense_mm, g, mm).to_string().find("where() predicate") != std::string::npos);

  // Channels-last input of a convolution-shaped tensor
  NodeId x = g.placeholder("x");
  NodeId r = g.call(id_of(aten::relu), {ref(x)});
  g[x].edit_meta() = TensorMeta::of(ScalarType::Float, int_values({2, 3, 4, 5}));
  g[x].edit_meta().strides = int_values({60, 1, 15, 3});
  CHECK(match(aten::relu("x"_x.where(in_format<MemoryFormat::ChannelsLast>)), g, r));
  CHECK_FALSE(match(aten::relu("x"_x.where(contiguous)), g, r));
}

TEST_CASE("meta checks: op tags of the node and of every user") {
  schema::ensure_builtin_schemas();
  Graph g;
  NodeId a = g.placeholder("a"), b = g.placeholder("b");
  NodeId mm = g.call(id_of(aten::mm), {ref(a), ref(b)});
  NodeId relu = g.call(id_of(aten::relu), {ref(mm)});
  NodeId add = g.call(id_of(aten::add.Tensor), {ref(mm), ref(relu)});
  g.output({ref(add)});

  constexpr auto mm_pointwise_users = aten::mm("a"_x, "b"_x).where(users_tagged<OpTag::pointwise>);
  CHECK(match(mm_pointwise_users, g, mm));  // relu and add are pointwise
  CHECK(match(aten::relu("x"_x).where(tagged<OpTag::pointwise>), g, relu));
  CHECK_FALSE(match(aten::mm("a"_x, "b"_x).where(tagged<OpTag::pointwise>), g, mm));
  // a sum among the users: not all pointwise
  NodeId s = g.call(id_of(aten::sum.dim_IntList), {ref(mm), ints({0})});
  (void)s;
  CHECK_FALSE(match(mm_pointwise_users, g, mm));
  // no users at all: false, as Inductor's all() over users would not be asked
  NodeId lone = g.call(id_of(aten::mm), {ref(a), ref(b)});
  CHECK_FALSE(match(mm_pointwise_users, g, lone));
}
