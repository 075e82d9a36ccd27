// Defaults converted to typed Values by their argument's type, and the OpSignature of a schema.
#include <doctest/doctest.h>

#include <ctmatch/schema/parse.hpp>
#include <ctmatch/schema/signature.hpp>

#include <cmath>
#include <stdexcept>
#include <string>

using namespace ctmatch;
using namespace ctmatch::schema;

namespace {
/// The default of the only argument of `test::f(<arg>) -> Tensor`.
Value default_of(const std::string& arg) {
  static std::string text;  // the schema views it while default_value reads it
  text = "test::f(" + arg + ") -> Tensor";
  auto r = parse_schema(text);
  REQUIRE_MESSAGE(r.ok, arg);
  return default_value(r.schema.args[0]);
}
Value ints(std::initializer_list<std::int64_t> v) {
  std::vector<Value> items;
  for (auto i : v) items.emplace_back(i);
  return Value::list(std::move(items));
}
}  // namespace

TEST_CASE("defaults: scalars by type") {
  CHECK(default_of("bool clamp=False") == Value(false));
  CHECK(default_of("bool clamp=True") == Value(true));
  CHECK(default_of("int dim=1") == Value(std::int64_t{1}));
  CHECK(default_of("int dim=-1") == Value(std::int64_t{-1}));
  CHECK(default_of("SymInt step=1") == Value(std::int64_t{1}));
  CHECK(default_of("int w=-9223372036854775808") == Value(std::numeric_limits<std::int64_t>::min()));
  // a Scalar keeps what was written; a float is always a double
  CHECK(default_of("Scalar alpha=1") == Value(std::int64_t{1}));
  CHECK(default_of("Scalar alpha=1.0") == Value(1.0));
  CHECK(default_of("Scalar b=True") == Value(true));
  CHECK(default_of("float scale=1.0") == Value(1.0));
  CHECK(default_of("float p=2") == Value(2.0));
  CHECK(default_of("float eps=1e-05") == Value(1e-05));
  CHECK(default_of("float x=-1.5E+3") == Value(-1500.0));
  CHECK(default_of("float x=-inf") == Value(-std::numeric_limits<double>::infinity()));
  CHECK(default_of("Scalar negative_slope=0.01") == Value(0.01));
  CHECK(default_of("ScalarType? dtype=None") == Value());
  CHECK(default_of("Tensor? bias=None").is_none());
  CHECK(default_of("str approximate='none'") == Value(std::string("none")));
  CHECK(default_of("str s=\"x\"") == Value(std::string("x")));
  CHECK(default_of("str s='a\\'b'") == Value(std::string("a'b")));
  CHECK(default_of("MemoryFormat memory_format=contiguous_format") == Value(MemoryFormat::Contiguous));
  CHECK(default_of("MemoryFormat? m=channels_last") == Value(MemoryFormat::ChannelsLast));
  CHECK(default_of("ScalarType? dtype=long") == Value(ScalarType::Long));
  CHECK(default_of("ScalarType t=float32") == Value(ScalarType::Float));
  CHECK(default_of("Layout l=strided") == Value(Layout::Strided));
  CHECK(default_of("Device d='cuda:1'") == Value(Device{DeviceType::CUDA, 1}));
  CHECK(default_of("int reduction=Mean") == Value(std::int64_t{1}));
  CHECK(default_of("int reduction=Sum") == Value(std::int64_t{2}));
  CHECK(default_of("QScheme q=per_tensor_affine") == Value(std::string("per_tensor_affine")));
}

TEST_CASE("defaults: lists") {
  CHECK(default_of("int[2] padding=[0, 0]") == ints({0, 0}));
  CHECK(default_of("int[1] dim=[]") == ints({}));
  CHECK(default_of("int[]? dim=None").is_none());
  CHECK(default_of("SymInt[] s=[-1,2 , 3]") == ints({-1, 2, 3}));
  // torch broadcasts a single value to a sized list's length
  CHECK(default_of("int[2] dilation=1") == ints({1, 1}));
  CHECK(default_of("int[3] padding=0") == ints({0, 0, 0}));
  CHECK(default_of("float[2] f=[1, 2.5]") == Value::list({Value(1.0), Value(2.5)}));
  CHECK(default_of("bool[3] m=[True, False, True]") == Value::list({Value(true), Value(false), Value(true)}));
  CHECK(default_of("str[] s=['a,b', \"c\"]") == Value::list({Value(std::string("a,b")), Value(std::string("c"))}));
}

TEST_CASE("defaults: an argument without one is an error") {
  auto r = parse_schema("test::f(Tensor x) -> Tensor");
  REQUIRE(r.ok);
  CHECK_THROWS_AS(default_value(r.schema.args[0]), std::invalid_argument);
}

TEST_CASE("signature: names, keyword-only, defaults, returns") {
  auto r = parse_schema(
      "seedlib::scale_cast(Tensor x, *, ScalarType dtype, bool clamp=False, float scale=1.0) -> Tensor");
  REQUIRE(r.ok);
  OpSignature sig = to_signature(r.schema);
  REQUIRE(sig.params.size() == 4);
  CHECK(sig.params[0].name == "x");
  CHECK_FALSE(sig.params[0].kwarg_only);
  CHECK_FALSE(sig.params[0].default_value.has_value());
  CHECK(sig.params[1].kwarg_only);
  CHECK_FALSE(sig.params[1].default_value.has_value());
  CHECK(sig.params[2].default_value == Value(false));
  CHECK(sig.params[3].default_value == Value(1.0));
  CHECK(sig.find("scale") == 3);
  CHECK(sig.num_returns == 1);
  CHECK_FALSE(sig.is_mutable);
  CHECK_FALSE(sig.is_impure);
}

TEST_CASE("signature: mutable and side-effecting ops are impure") {
  auto mut = parse_schema("aten::atan2.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)");
  REQUIRE(mut.ok);
  OpSignature m = to_signature(mut.schema);
  CHECK(m.is_mutable);
  CHECK(m.is_impure);
  auto assert_meta = parse_schema(
      "aten::_assert_tensor_metadata(Tensor a, SymInt[]? size=None, SymInt[]? stride=None, "
      "ScalarType? dtype=None, *, Device? device=None, Layout? layout=None) -> ()");
  REQUIRE(assert_meta.ok);
  OpSignature a = to_signature(assert_meta.schema);
  CHECK_FALSE(a.is_mutable);
  CHECK(a.is_impure);
  CHECK(a.num_returns == 0);
  // known side effects even with a result
  auto dep = parse_schema("aten::_make_dep_token(*, ScalarType? dtype=None, Layout? layout=None, "
                          "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor");
  REQUIRE(dep.ok);
  CHECK(to_signature(dep.schema).is_impure);
  // views alias but do not write: pure
  auto view = parse_schema("aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)");
  REQUIRE(view.ok);
  CHECK_FALSE(to_signature(view.schema).is_impure);
  auto three = parse_schema("aten::native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, "
                            "Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)");
  REQUIRE(three.ok);
  CHECK(to_signature(three.schema).num_returns == 3);
}
