// The schema parser, in constant expressions (static_assert) and at run time (doctest), on
// real PyTorch schemas and on malformed ones with the position of their error.
#include <doctest/doctest.h>

#include <ctmatch/schema/builtin_table.hpp>
#include <ctmatch/schema/diagnose.hpp>
#include <ctmatch/schema/op_key.hpp>
#include <ctmatch/schema/parse.hpp>

#include <deque>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

using namespace ctmatch::schema;

namespace {

// ---- compile time -------------------------------------------------------------------------
constexpr auto scale_cast = parse_schema(
    "seedlib::scale_cast(Tensor x, *, ScalarType dtype, bool clamp=False, float scale=1.0) -> Tensor");
static_assert(scale_cast.ok);
static_assert(scale_cast.schema.ns == "seedlib" && scale_cast.schema.name == "scale_cast" &&
              scale_cast.schema.overload.empty());
static_assert(scale_cast.schema.num_args == 4 && scale_cast.schema.num_positional() == 1);
static_assert(scale_cast.schema.find("clamp") == 2 && scale_cast.schema.find("nope") == -1);
static_assert(scale_cast.schema.args[1].kwarg_only && !scale_cast.schema.args[1].has_default);
static_assert(scale_cast.schema.args[1].type.base == BaseType::ScalarType);
static_assert(scale_cast.schema.args[2].default_text == "False");
static_assert(scale_cast.schema.args[3].type.base == BaseType::Float &&
              scale_cast.schema.args[3].default_text == "1.0");
static_assert(scale_cast.schema.num_returns == 1 && !scale_cast.schema.is_mutable());
static_assert(op_key_equals(scale_cast.schema, "seedlib.scale_cast.default"));
static_assert(!op_key_equals(scale_cast.schema, "seedlib.scale_cast.Tensor"));

constexpr auto add = parse_schema("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
static_assert(add.ok && add.schema.overload == "Tensor" && add.schema.args[2].type.base == BaseType::Scalar);
static_assert(op_key_equals(add.schema, "aten.add.Tensor") && !op_key_equals(add.schema, "aten.add.default"));
static_assert(op_key_size(add.schema) == std::string_view("aten.add.Tensor").size());

constexpr auto split = parse_schema(
    "aten::split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]");
static_assert(split.ok && split.schema.args[0].alias == "a" && !split.schema.args[0].is_write);
static_assert(split.schema.args[1].type == Type{BaseType::SymInt, false, true, -1, false});
static_assert(split.schema.returns[0].type.list && split.schema.returns[0].alias == "a");

constexpr auto bn = parse_schema(
    "aten::_native_batch_norm_legit(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean, "
    "Tensor(b!) running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)");
static_assert(bn.ok && bn.schema.is_mutable() && bn.schema.num_returns == 3);
static_assert(bn.schema.args[3].is_write && bn.schema.args[3].alias == "a" && bn.schema.args[4].alias == "b");
static_assert(bn.schema.args[1].type.optional && !bn.schema.args[1].type.list);

constexpr auto index = parse_schema("aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor");
static_assert(index.ok && index.schema.args[1].type == Type{BaseType::Tensor, true, true, -1, false});

constexpr auto pool = parse_schema(
    "aten::max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
    "int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)");
static_assert(pool.ok && pool.schema.args[1].type.list_size == 2 && pool.schema.args[2].default_text == "[]");

constexpr auto mean = parse_schema(
    "aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor");
static_assert(mean.ok && mean.schema.args[1].type == Type{BaseType::Int, false, true, 1, true});

constexpr auto maxdim = parse_schema(
    "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
static_assert(maxdim.ok && maxdim.schema.returns[0].name == "values" && maxdim.schema.returns[1].name == "indices");

constexpr auto assert_meta = parse_schema(
    "aten::_assert_tensor_metadata(Tensor a, SymInt[]? size=None, SymInt[]? stride=None, "
    "ScalarType? dtype=None, *, Device? device=None, Layout? layout=None) -> ()");
static_assert(assert_meta.ok && assert_meta.schema.num_returns == 0 && assert_meta.schema.num_args == 6);

constexpr auto bad_type = parse_schema("aten::f(Tensr x) -> Tensor");
static_assert(!bad_type.ok && bad_type.error_pos == 8 && bad_type.error == "unknown type");

// schema_ok<> is true for a schema that parses (the failing side is the compile_fail tests).
static_assert(schema_ok<&scale_cast>() && schema_ok<&add>() && schema_ok<&assert_meta>());
static_assert(detail::parse_error_index("unknown type") < detail::parse_error_message_count);
static_assert(detail::parse_error_index("no such message") == detail::parse_error_message_count);

// Every schema of the built-in table parses in a constant expression. Checked in chunks, each
// its own static_assert (one constant evaluation), and compilers cap the steps of one evaluation
// (clang: 1M) — a pattern declares one op per evaluation, so this mirrors real use.
template <std::size_t Begin>
constexpr bool builtin_chunk_parses() {
  constexpr std::size_t end = Begin + 25 < std::size(builtin_schemas) ? Begin + 25 : std::size(builtin_schemas);
  for (std::size_t i = Begin; i < end; ++i)
    if (!parse_schema(builtin_schemas[i]).ok) return false;
  return true;
}
template <std::size_t Begin>
struct BuiltinChunk {
  static_assert(builtin_chunk_parses<Begin>(), "a built-in schema does not parse");
  static constexpr bool ok = true;
};
template <std::size_t... Chunk>
constexpr bool all_builtin_parse(std::index_sequence<Chunk...>) {
  return (BuiltinChunk<Chunk * 25>::ok && ...);
}
static_assert(all_builtin_parse(std::make_index_sequence<(std::size(builtin_schemas) + 24) / 25>{}));

// ---- run time helpers ---------------------------------------------------------------------
/// Parses a run-time copy of `s` (kept alive: the result views it), so that nothing is folded
/// at compile time.
ParseResult parse(const std::string& s) {
  static std::deque<std::string> texts;
  texts.push_back(s);
  return parse_schema(texts.back());
}

struct ErrorCase {
  const char* text;
  std::size_t pos;
  const char* message_part;
};

}  // namespace

TEST_CASE("parse: names, namespaces and overloads") {
  auto r = parse("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  REQUIRE(r.ok);
  CHECK(r.schema.ns == "aten");
  CHECK(r.schema.name == "add");
  CHECK(r.schema.overload == "Tensor");
  CHECK(op_key(r.schema) == "aten.add.Tensor");
  auto mm = parse("aten::mm(Tensor self, Tensor mat2) -> Tensor");
  REQUIRE(mm.ok);
  CHECK(mm.schema.overload.empty());
  CHECK(op_key(mm.schema) == "aten.mm.default");
  CHECK(op_key_equals(mm.schema, "aten.mm.default"));
  CHECK_FALSE(op_key_equals(mm.schema, "aten.bmm.default"));
  CHECK_FALSE(op_key_equals(mm.schema, "aten.mm.defaul"));
  auto pow = parse("aten::pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor");
  REQUIRE(pow.ok);
  CHECK(op_key(pow.schema) == "aten.pow.Tensor_Scalar");
  auto none = parse("prims::_make_token() -> Tensor");
  REQUIRE(none.ok);
  CHECK(none.schema.num_args == 0);
}

TEST_CASE("parse: every type form") {
  auto r = parse(
      "test::types(Tensor a, Tensor(a) b, Tensor(b!) c, Tensor(c -> *) d, Tensor? e, Tensor?[] f, "
      "Tensor[] g, SymInt[] h, int[2] i, int[]? j, ScalarType? k, Scalar l, Device? m, Layout? n, "
      "MemoryFormat? o, Generator? p, str q, Dimname r, float[]? s, bool[3] t, SymFloat u, SymBool v, "
      "Tensor(d!)[] w, Tensor(e|f) x) -> Tensor");
  REQUIRE(r.ok);
  const auto& a = r.schema.args;
  REQUIRE(r.schema.num_args == 24);
  CHECK(a[0].type == Type{});
  CHECK(a[1].alias == "a");
  CHECK_FALSE(a[1].is_write);
  CHECK(a[2].alias == "b");
  CHECK(a[2].is_write);
  CHECK(a[3].alias == "c");
  CHECK_FALSE(a[3].is_write);
  CHECK(a[4].type.optional);
  CHECK(a[5].type == Type{BaseType::Tensor, true, true, -1, false});
  CHECK(a[6].type == Type{BaseType::Tensor, false, true, -1, false});
  CHECK(a[7].type == Type{BaseType::SymInt, false, true, -1, false});
  CHECK(a[8].type == Type{BaseType::Int, false, true, 2, false});
  CHECK(a[9].type == Type{BaseType::Int, false, true, -1, true});
  CHECK(a[10].type == Type{BaseType::ScalarType, false, false, -1, true});
  CHECK(a[11].type.base == BaseType::Scalar);
  CHECK(a[12].type.base == BaseType::Device);
  CHECK(a[13].type.base == BaseType::Layout);
  CHECK(a[14].type.base == BaseType::MemoryFormat);
  CHECK(a[15].type.base == BaseType::Generator);
  CHECK(a[16].type.base == BaseType::Str);
  CHECK(a[17].type.base == BaseType::Dimname);
  CHECK(a[18].type == Type{BaseType::Float, false, true, -1, true});
  CHECK(a[19].type == Type{BaseType::Bool, false, true, 3, false});
  CHECK(a[20].type.base == BaseType::SymFloat);
  CHECK(a[21].type.base == BaseType::SymBool);
  CHECK(a[22].type.list);
  CHECK(a[22].is_write);
  CHECK(a[22].alias == "d");
  CHECK(a[23].alias == "e");
  CHECK(r.schema.is_mutable());
  CHECK(r.schema.num_positional() == 24);
}

TEST_CASE("parse: defaults of every kind") {
  auto r = parse(
      "test::defaults(int a=0, int b=-1, SymInt c=9223372036854775807, float d=1e-05, float e=-1.5E+3, "
      "float f=2, bool g=True, bool h=False, Tensor? i=None, str j='none', str k=\"x\", int[2] l=[0, 0], "
      "int[1] m=[], MemoryFormat n=contiguous_format, ScalarType? o=long, int reduction=Mean, "
      "Scalar p=1, Scalar q=0.01, int[2] r=1, float s=-inf, Layout t=strided, Device u='cuda:0', "
      "str v='a,b)c', int w=-9223372036854775808) -> Tensor");
  REQUIRE(r.ok);
  const auto& a = r.schema.args;
  REQUIRE(r.schema.num_args == 24);
  const char* expected[] = {"0",     "-1",   "9223372036854775807", "1e-05", "-1.5E+3", "2",
                            "True",  "False", "None",               "'none'", "\"x\"",  "[0, 0]",
                            "[]",    "contiguous_format", "long",   "Mean",  "1",      "0.01",
                            "1",     "-inf", "strided",             "'cuda:0'", "'a,b)c'",
                            "-9223372036854775808"};
  for (std::size_t i = 0; i < 24; ++i) {
    CAPTURE(i);
    CHECK(a[i].has_default);
    CHECK(a[i].default_text == expected[i]);
  }
}

TEST_CASE("parse: keyword-only arguments") {
  auto r = parse(
      "aten::_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
      "bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor");
  REQUIRE(r.ok);
  CHECK(r.schema.num_positional() == 1);
  CHECK_FALSE(r.schema.args[0].kwarg_only);
  for (std::size_t i = 1; i < r.schema.num_args; ++i) CHECK(r.schema.args[i].kwarg_only);
}

TEST_CASE("parse: returns") {
  auto none = parse("aten::_print(str s) -> ()");
  REQUIRE(none.ok);
  CHECK(none.schema.num_returns == 0);
  auto three = parse("aten::f(Tensor x) -> (Tensor, Tensor, Tensor)");
  REQUIRE(three.ok);
  CHECK(three.schema.num_returns == 3);
  auto named = parse("aten::sort.values(Tensor self, *, Tensor(a!) values) -> (Tensor(a!) values, Tensor indices)");
  REQUIRE(named.ok);
  CHECK(named.schema.returns[0].name == "values");
  CHECK(named.schema.returns[0].is_write);
  CHECK(named.schema.returns[1].name == "indices");
  auto list = parse("aten::unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]");
  REQUIRE(list.ok);
  CHECK(list.schema.returns[0].type.list);
  auto scalar = parse("aten::_local_scalar_dense(Tensor self) -> Scalar");
  REQUIRE(scalar.ok);
  CHECK(scalar.schema.returns[0].type.base == BaseType::Scalar);
  auto tensors = parse("aten::f(Tensor[] x) -> Tensor[]");
  REQUIRE(tensors.ok);
  CHECK(tensors.schema.returns[0].type.list);
}

TEST_CASE("parse: whitespace is free between tokens") {
  auto r = parse("  aten::f ( Tensor  x ,\n  * ,  int[2]   y = [ 1 , 2 ] ,\tbool z=True )\n -> ( Tensor a , Tensor )  ");
  REQUIRE(r.ok);
  CHECK(r.schema.num_args == 3);
  CHECK(r.schema.args[1].kwarg_only);
  CHECK(r.schema.args[1].default_text == "[ 1 , 2 ]");
  CHECK(r.schema.num_returns == 2);
}

TEST_CASE("parse: errors say where and what") {
  const ErrorCase cases[] = {
      {"", 0, "namespace"},
      {"aten", 4, "'::'"},
      {"aten::", 6, "operator name"},
      {"aten::f.", 8, "overload"},
      {"aten::f", 7, "'('"},
      {"aten::f(Tensr x) -> Tensor", 8, "unknown type"},
      {"aten::f(Tensor) -> Tensor", 14, "argument name"},
      {"aten::f(Tensor x Tensor y) -> Tensor", 17, "',' or ')'"},
      {"aten::f(Tensor x)", 17, "'->'"},
      {"aten::f(Tensor x) ->", 20, "type"},
      {"aten::f(Tensor x) -> Tensor junk", 28, "unexpected text"},
      {"aten::f(Tensor x, Tensor x) -> Tensor", 25, "duplicate"},
      {"aten::f(Tensor x, *, *, int y) -> Tensor", 21, "'*' given twice"},
      {"aten::f(Tensor x, *) -> Tensor", 19, "after '*'"},
      {"aten::f(Tensor(a x) -> Tensor", 17, "')'"},
      {"aten::f(int[2 x) -> Tensor", 13, "']'"},
      {"aten::f(int?? x) -> Tensor", 12, "'?' given twice"},
      {"aten::f(int[][] x) -> Tensor", 13, "lists of lists"},
      {"aten::f(bool b=1) -> Tensor", 15, "True or False"},
      {"aten::f(int i=1.5) -> Tensor", 14, "integer"},
      {"aten::f(int i=None) -> Tensor", 14, "optional"},
      {"aten::f(float f='x') -> Tensor", 16, "number"},
      {"aten::f(str s=none) -> Tensor", 14, "quoted"},
      {"aten::f(str s='none) -> Tensor", 14, "unterminated"},
      {"aten::f(ScalarType t=long_) -> Tensor", 21, "dtype"},
      {"aten::f(MemoryFormat m=contiguous) -> Tensor", 23, "memory format"},
      {"aten::f(Layout l=dense) -> Tensor", 17, "layout"},
      {"aten::f(Tensor t=0) -> Tensor", 17, "no default"},
      {"aten::f(int[2] l=[0, 0) -> Tensor", 22, "',' or ']'"},
      {"aten::f(int[2] l=[0,]) -> Tensor", 20, "default value"},
      {"aten::f(int[2] l=[[0]]) -> Tensor", 18, "nested"},
      {"aten::f(int l=[0]) -> Tensor", 14, "list type"},
      {"aten::f(int[] l=1) -> Tensor", 16, "sized list"},
      {"aten::f(int i=99999999999999999999) -> Tensor", 14, "out of range"},
      {"aten::f(int i=9223372036854775808) -> Tensor", 14, "out of range"},
      {"aten::f(float f=1e) -> Tensor", 18, "exponent"},
      {"aten::f(float f=1.0x) -> Tensor", 19, "unexpected character"},
      {"aten::f(int i=) -> Tensor", 14, "default value"},
      {"aten::f(Tensor x) -> (Tensor, Tensor", 36, "',' or ')'"},
      {"aten::f(Tensor x) -> (Tensor a b)", 31, "',' or ')'"},
  };
  for (const ErrorCase& c : cases) {
    CAPTURE(c.text);
    auto r = parse(c.text);
    CHECK_FALSE(r.ok);
    CHECK(r.error_pos == c.pos);
    CHECK(std::string(r.error).find(c.message_part) != std::string::npos);
  }
}

TEST_CASE("parse: limits are errors, not overflows") {
  std::string many = "test::many(";
  for (int i = 0; i < 33; ++i) many += (i ? ", int a" : "int a") + std::to_string(i);
  many += ") -> Tensor";
  auto r = parse(many);
  CHECK_FALSE(r.ok);
  CHECK(std::string(r.error).find("too many arguments") != std::string::npos);
  std::string rets = "test::rets(Tensor x) -> (";
  for (int i = 0; i < 9; ++i) rets += i ? ", Tensor" : "Tensor";
  rets += ")";
  auto r2 = parse(rets);
  CHECK_FALSE(r2.ok);
  CHECK(std::string(r2.error).find("too many returns") != std::string::npos);
  // exactly at the limit is fine
  std::string ok = "test::ok(";
  for (int i = 0; i < 32; ++i) ok += (i ? ", int a" : "int a") + std::to_string(i);
  ok += ") -> Tensor";
  CHECK(parse(ok).ok);
}

TEST_CASE("parse: a run-time copy of a text parses like the literal") {
  for (std::string_view s : builtin_schemas) {
    CAPTURE(s);
    std::string copy(s);
    auto rt = parse_schema(copy);
    auto lit = parse_schema(s);
    REQUIRE(rt.ok);
    CHECK(rt.schema.num_args == lit.schema.num_args);
    CHECK(rt.schema.num_returns == lit.schema.num_returns);
    for (std::size_t i = 0; i < rt.schema.num_args; ++i) {
      CHECK(rt.schema.args[i].name == lit.schema.args[i].name);
      CHECK(rt.schema.args[i].type == lit.schema.args[i].type);
      CHECK(rt.schema.args[i].default_text == lit.schema.args[i].default_text);
    }
  }
}

TEST_CASE("parse: every truncation and byte flip of the table is a clean result") {
  // Bad input must give an error with an in-range position, never a crash or a read past the
  // end (the sanitizer build runs this too).
  const char flips[] = {'\0', '(', ')', '[', ']', ',', '*', '=', '\'', '"', '?', '!', '-', '>', ' ', 'x', '9', '\xff'};
  std::size_t errors = 0;
  for (std::string_view s : builtin_schemas) {
    for (std::size_t n = 0; n < s.size(); ++n) {
      auto r = parse(std::string(s.substr(0, n)));
      if (r.ok) {  // only a prefix that ends after a whole return type: `-> Tensor` of `-> Tensor(a)`
        CHECK(s.substr(0, n).find("->") != std::string_view::npos);
        continue;
      }
      CHECK(r.error_pos <= n);
      CHECK_FALSE(r.error.empty());
      ++errors;
    }
    for (std::size_t i = 0; i < s.size(); i += 7) {
      for (char f : flips) {
        std::string m(s);
        m[i] = f;
        auto r = parse(m);
        if (!r.ok) {
          CHECK(r.error_pos <= m.size());
          CHECK_FALSE(r.error.empty());
        }
      }
    }
  }
  CHECK(errors > 20000);
}

TEST_CASE("diagnose: every message of the parser has its compile-time error function") {
  // Reads parse.hpp and checks every message passed to fail()/fail_at(), so that a new message
  // cannot be added without its named error function in diagnose.hpp.
  std::ifstream in(CTMATCH_TEST_DATA "/../../include/ctmatch/schema/parse.hpp");
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string src = ss.str();
  std::size_t found = 0;
  for (const char* call : {"fail(\"", "fail_at("}) {
    for (std::size_t p = src.find(call); p != std::string::npos; p = src.find(call, p + 1)) {
      std::size_t q = src.find('"', p);
      std::size_t line_end = src.find('\n', p);
      if (q == std::string::npos || q > line_end) continue;  // fail_at(pos, msg) with msg a variable
      std::size_t e = src.find('"', q + 1);
      std::string message = src.substr(q + 1, e - q - 1);
      CAPTURE(message);
      CHECK(detail::parse_error_index(message) < detail::parse_error_message_count);
      ++found;
    }
  }
  CHECK(found >= 40);
}
