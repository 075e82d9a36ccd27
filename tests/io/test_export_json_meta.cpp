// torch.export JSON tensor metadata: every TensorMeta field read from tensor_values (strides,
// storage offset, device, layout, requires_grad), written back as read, set in code and
// written, defaulted for nodes that lack it, and refused with a position when malformed.
#include <doctest/doctest.h>

#include <ctmatch/io/export_json.hpp>
#include <ctmatch/schema/builtin.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "int_values.hpp"
#include "json_error_helpers.hpp"
#include "test_data.hpp"

using namespace ctmatch;
using ctmatch::test::error_of;
using ctmatch::test::replace;

namespace {
const std::string bmm_file = "inductor/joint/bmm_1x.export.json";
const std::string args0_strides = R"("strides": [{"as_int": 128}, {"as_int": 16}, {"as_int": 1}])";
}  // namespace

TEST_CASE("tensor_values: every field is read into the node's metadata") {
  Graph g = io::read_export_json(read_test_data(bmm_file), "bmm.json");
  const TensorMeta& m = g[g.find("args_0")].meta();
  CHECK(m.dtype == ScalarType::Float);
  CHECK(m.shape == int_values({1, 8, 16}));
  CHECK(m.strides == int_values({128, 16, 1}));
  CHECK(m.storage_offset == Value(std::int64_t{0}));
  CHECK(m.device == Device{DeviceType::CPU, -1});
  CHECK(m.layout == Layout::Strided);
  CHECK(m.requires_grad == false);
  CHECK(m.memory_format() == MemoryFormat::Contiguous);
  CHECK_FALSE(m.on_gpu());
}

TEST_CASE("tensor_values: a transposed, offset, cuda tensor reads and writes back as it is") {
  std::string text = read_test_data(bmm_file);
  text = replace(text, args0_strides, R"("strides": [{"as_int": 128}, {"as_int": 1}, {"as_int": 8}])");
  text = replace(text, R"("requires_grad": false, "device": {"type": "cpu", "index": null})",
                 R"("requires_grad": true, "device": {"type": "cuda", "index": 1})");
  text = replace(text, R"("storage_offset": {"as_int": 0})", R"("storage_offset": {"as_expr": {"expr_str": "s7", "hint": null}})");
  Graph g = io::read_export_json(text, "t.json");
  const TensorMeta& m = g[g.find("args_0")].meta();
  CHECK(m.strides == int_values({128, 1, 8}));
  CHECK(m.is_contiguous() == false);
  CHECK_FALSE(m.memory_format().has_value());
  CHECK(m.device == Device{DeviceType::CUDA, 1});
  CHECK(m.on_gpu());
  CHECK(m.requires_grad == true);
  CHECK(m.storage_offset == Value(SymInt{"s7"}));
  CHECK(io::write_export_json(g) == text);
}

TEST_CASE("tensor_values: metadata set in code is written; what a node lacks is defaulted") {
  Graph g = io::read_export_json(read_test_data(bmm_file), "bmm.json");
  TensorMeta& m = g[g.find("bmm")].edit_meta();
  m.strides = int_values({32, 1, 8});
  m.device = Device{DeviceType::CUDA, 0};
  std::string once = io::write_export_json(g);
  Graph h = io::read_export_json(once, "once.json");
  CHECK(h[h.find("bmm")].meta().strides == int_values({32, 1, 8}));
  CHECK(h[h.find("bmm")].meta().device == Device{DeviceType::CUDA, 0});

  // A node with only dtype and shape: dense strides, offset 0, strided, on the graph's device
  // (the first node that has one: args_0's cpu).
  TensorMeta& b = g[g.find("bmm")].edit_meta();
  b = TensorMeta{};
  b.dtype = ScalarType::Half;
  b.shape = int_values({2, 3, 4});
  Graph k = io::read_export_json(io::write_export_json(g), "k.json");
  const TensorMeta& d = k[k.find("bmm")].meta();
  CHECK(d.dtype == ScalarType::Half);
  CHECK(d.strides == int_values({12, 4, 1}));
  CHECK(d.storage_offset == Value(std::int64_t{0}));
  CHECK(d.layout == Layout::Strided);
  CHECK(d.requires_grad == false);
  CHECK(d.device == Device{DeviceType::CPU, -1});

  // A stride that is no int cannot be written: an error naming the node, nothing half-done.
  b.strides = std::vector<Value>{Value(1.5), Value(1), Value(1)};
  try {
    io::write_export_json(g);
    FAIL("wrote a float stride");
  } catch (const std::exception& e) {
    CHECK(std::string(e.what()).find("'bmm'") != std::string::npos);
    CHECK(std::string(e.what()).find("stride") != std::string::npos);
  }
}

TEST_CASE("tensor_values: malformed metadata is refused at its position") {
  const std::string text = read_test_data(bmm_file);
  auto err = [&](std::string_view what, std::string_view with) { return error_of(replace(text, what, with)); };
  CHECK(err(R"("layout": 7)", R"("layout": 99)").find("unknown layout number 99") != std::string::npos);
  CHECK(err(R"("requires_grad": false)", R"("requires_grad": 0)").find("in.json:") == 0);
  CHECK(err(args0_strides, R"("strides": [{"as_int": 1}])").find("has 1 strides for 3 sizes") != std::string::npos);
  CHECK(err(R"("device": {"type": "cpu", "index": null})", R"("device": {"type": "gpu", "index": null})")
            .find("unknown device type 'gpu'") != std::string::npos);
  CHECK(err(args0_strides, args0_strides + ", " + args0_strides).find("duplicate field 'strides'") != std::string::npos);
  // A field ctmatch does not model is kept and written back.
  std::string extra = replace(text, R"("layout": 7})", R"("layout": 7, "future_field": [1, 2]})");
  CHECK(io::write_export_json(io::read_export_json(extra, "x.json")) == extra);
}
