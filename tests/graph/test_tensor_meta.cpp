// TensorMeta's derived facts (contiguity, memory format, GPU placement) and op tags: parsing,
// the registry, and the built-in table of the ATen ops' tags.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <ctmatch/graph.hpp>
#include <ctmatch/schema/builtin.hpp>
#include <ctmatch/schema/registry.hpp>

#include "int_values.hpp"

using namespace ctmatch;

namespace {
TensorMeta dense(std::initializer_list<std::int64_t> sizes, std::initializer_list<std::int64_t> strides) {
  TensorMeta m;
  m.dtype = ScalarType::Float;
  m.shape = int_values(sizes);
  m.strides = int_values(strides);
  return m;
}
}  // namespace

TEST_CASE("tensor meta: contiguity and memory format from sizes and strides") {
  CHECK(dense({2, 3, 4}, {12, 4, 1}).memory_format() == MemoryFormat::Contiguous);
  CHECK(dense({2, 3, 4}, {12, 4, 1}).is_contiguous() == true);
  // A transposed view: dense, but in no format torch names.
  TensorMeta t = dense({3, 2}, {1, 3});
  CHECK(t.is_contiguous() == false);
  CHECK_FALSE(t.memory_format().has_value());
  // NCHW sizes with NHWC strides.
  TensorMeta cl = dense({2, 3, 4, 5}, {60, 1, 15, 3});
  CHECK(cl.is_contiguous() == false);
  CHECK(cl.is_contiguous(MemoryFormat::ChannelsLast) == true);
  CHECK(cl.memory_format() == MemoryFormat::ChannelsLast);
  CHECK(dense({2, 3, 4, 5, 6}, {360, 1, 90, 18, 3}).memory_format() == MemoryFormat::ChannelsLast3d);
  CHECK(dense({2, 3, 4, 5}, {60, 20, 5, 1}).is_contiguous(MemoryFormat::ChannelsLast3d) == false);  // rank 4
  // One channel: both hold; contiguous wins, as torch's suggest_memory_format does.
  TensorMeta one = dense({2, 1, 4, 5}, {20, 20, 5, 1});
  CHECK(one.is_contiguous(MemoryFormat::ChannelsLast) == true);
  CHECK(one.memory_format() == MemoryFormat::Contiguous);
  // Size-1 dimensions take any stride; an empty tensor is dense in every format.
  CHECK(dense({4, 1, 3}, {3, 99, 1}).is_contiguous() == true);
  CHECK(dense({4, 0, 3}, {7, 7, 7}).is_contiguous() == true);
  // A sliced row: a stride past the dense one.
  CHECK(dense({4, 3}, {8, 1}).is_contiguous() == false);
  CHECK(dense({4, 3}, {3, 1}).is_contiguous(MemoryFormat::Preserve) == false);
  // Unknown: no strides, a symbolic size or stride.
  TensorMeta none;
  none.shape = int_values({2, 2});
  CHECK_FALSE(none.is_contiguous().has_value());
  TensorMeta sym = dense({2, 3}, {3, 1});
  (*sym.shape)[0] = Value(SymInt{"s0"});
  CHECK_FALSE(sym.is_contiguous().has_value());
  TensorMeta symstride = dense({2, 3}, {3, 1});
  (*symstride.strides)[0] = Value(SymInt{"s1"});
  CHECK_FALSE(symstride.memory_format().has_value());
}

TEST_CASE("tensor meta: on_gpu is Inductor's is_gpu") {
  TensorMeta m;
  CHECK_FALSE(m.on_gpu());
  m.device = Device{DeviceType::CPU, -1};
  CHECK_FALSE(m.on_gpu());
  m.device = Device{DeviceType::Meta, -1};
  CHECK_FALSE(m.on_gpu());
  m.device = Device{DeviceType::CUDA, 0};
  CHECK(m.on_gpu());
  m.device = Device{DeviceType::XPU, -1};
  CHECK(m.on_gpu());
}

TEST_CASE("op tags: names, sets, the registry") {
  for (std::size_t i = 0; i < op_tag_count; ++i) {
    auto t = static_cast<OpTag>(i);
    CHECK(parse_tag(tag_name(t)) == t);
  }
  CHECK_FALSE(parse_tag("pointwize").has_value());
  auto s = OpTags::parse("pointwise,core");
  REQUIRE(s);
  CHECK(s->has(OpTag::pointwise));
  CHECK(s->has(OpTag::core));
  CHECK_FALSE(s->has(OpTag::reduction));
  CHECK(s->str() == "core,pointwise");
  CHECK(OpTags::parse("")->empty());
  CHECK_FALSE(OpTags::parse("core,nonsense").has_value());

  // Tags accumulate per op, and an op nobody tagged has none.
  OpId op = intern_op("tagtest.f.default");
  CHECK(op_tags(op).empty());
  OpRegistry::global().add_tags(op, {OpTag::pointwise});
  OpRegistry::global().add_tags(op, {OpTag::core});
  CHECK(op_tags(op) == OpTags{OpTag::pointwise, OpTag::core});
  CHECK(op_tags(no_op).empty());
}

TEST_CASE("op tags: the built-in table tags the ATen ops as torch does") {
  schema::ensure_builtin_schemas();
  CHECK(op_tags(intern_op("aten.add.Tensor")).has(OpTag::pointwise));
  CHECK(op_tags(intern_op("aten.relu.default")).has(OpTag::pointwise));
  CHECK(op_tags(intern_op("aten.sum.dim_IntList")).has(OpTag::reduction));
  CHECK(op_tags(intern_op("aten.mm.default")).has(OpTag::core));
  CHECK_FALSE(op_tags(intern_op("aten.mm.default")).has(OpTag::pointwise));
  CHECK(op_tags(intern_op("aten.view.default")).has(OpTag::core));
  CHECK_FALSE(op_tags(intern_op("aten.view.default")).has(OpTag::pointwise));
  // Every line names an op of the schema table, with known tags.
  for (std::string_view line : schema::builtin_op_tags) {
    CAPTURE(line);
    auto space = line.find(' ');
    REQUIRE(space != std::string_view::npos);
    CHECK(schema::find_schema(intern_op(line.substr(0, space))) != nullptr);
    CHECK(OpTags::parse(line.substr(space + 1)).has_value());
  }
}
