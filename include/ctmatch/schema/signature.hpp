#pragma once
// From a parsed FunctionSchema to what the graph needs at run time: an OpSignature (parameter
// names, keyword-only markers, defaults as typed Values, number of returns, mutability and
// side effects). Defaults are converted by their argument's type, the way torch reads them:
//
//   bool clamp=False              -> bool false
//   int dim=0, SymInt step=1      -> int
//   Scalar alpha=1 / =1.0         -> int 1 / double 1.0 (a Scalar keeps what was written)
//   float eps=1e-05, float p=2    -> double (a float argument is always a double)
//   ScalarType? dtype=None        -> None
//   str approximate='none'        -> string "none"
//   int[2] padding=[0, 0]         -> list [0, 0]
//   int[2] dilation=1             -> list [1, 1]: torch broadcasts a single value to the size
//   int[2] stride=[]              -> empty list (torch reads it as "same as kernel_size")
//   MemoryFormat m=contiguous_format, Layout l=strided, ScalarType t=long -> those enums
//   int reduction=Mean            -> int 1 (at::Reduction: None 0, Mean 1, Sum 2)
//   Device d='cpu'                -> Device
//   QScheme / Dimname names       -> string
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "../graph/device.hpp"
#include "../graph/layout.hpp"
#include "../graph/op.hpp"
#include "../graph/scalar_type.hpp"
#include "../graph/value.hpp"
#include "function_schema.hpp"
#include "op_key.hpp"

namespace ctmatch::schema {

namespace detail {

[[noreturn]] inline void bad_default(const Argument& a, std::string_view text, std::string_view why) {
  throw std::invalid_argument("default of argument '" + std::string(a.name) + "' (" +
                              std::string(text) + "): " + std::string(why));
}

inline std::string unquote(std::string_view q) {
  std::string out;
  out.reserve(q.size());
  for (std::size_t i = 1; i + 1 < q.size(); ++i) {
    char c = q[i];
    if (c == '\\' && i + 2 < q.size()) {
      char e = q[++i];
      c = e == 'n' ? '\n' : e == 't' ? '\t' : e;
    }
    out.push_back(c);
  }
  return out;
}

/// One scalar default (an element, for lists) as a Value of the argument's element type.
inline Value scalar_default(const Argument& a, std::string_view t) {
  if (t == "None") return Value();
  if (t == "True") return Value(true);
  if (t == "False") return Value(false);
  const BaseType base = a.type.base;
  const bool quoted = !t.empty() && (t.front() == '\'' || t.front() == '"');
  const bool numeric = !t.empty() && (t.front() == '-' || t.front() == '+' || t.front() == '.' ||
                                      (t.front() >= '0' && t.front() <= '9'));
  if (numeric || t == "inf" || t == "nan") {
    std::string_view body = t.front() == '+' ? t.substr(1) : t;
    bool is_float = body.find_first_of(".eEin") != std::string_view::npos;
    bool want_double = base == BaseType::Float || base == BaseType::SymFloat ||
                       (base == BaseType::Scalar && is_float) || base == BaseType::Any;
    if (want_double || is_float) {
      if (base != BaseType::Float && base != BaseType::SymFloat && base != BaseType::Scalar &&
          base != BaseType::Any)
        bad_default(a, t, "a float default needs a float or Scalar argument");
      if (body == "inf") return Value(std::numeric_limits<double>::infinity());
      if (body == "-inf") return Value(-std::numeric_limits<double>::infinity());
      if (body == "nan") return Value(std::numeric_limits<double>::quiet_NaN());
      double d = 0;
      auto [p, ec] = std::from_chars(body.data(), body.data() + body.size(), d);
      if (ec != std::errc{} || p != body.data() + body.size()) bad_default(a, t, "not a number");
      return Value(d);
    }
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
    if (ec != std::errc{} || p != body.data() + body.size()) bad_default(a, t, "not an integer");
    return Value(v);
  }
  if (quoted) {
    std::string s = unquote(t);
    if (base == BaseType::Device) {
      auto d = parse_device(s);
      if (!d) bad_default(a, t, "unknown device");
      return Value(*d);
    }
    return Value(std::move(s));
  }
  // a bare name
  switch (base) {
    case BaseType::ScalarType:
      if (auto st = parse_scalar_type(t)) return Value(*st);
      break;
    case BaseType::Layout:
      if (auto l = parse_layout(t)) return Value(*l);
      break;
    case BaseType::MemoryFormat:
      if (auto m = parse_memory_format(t)) return Value(*m);
      break;
    case BaseType::Device:
      if (auto d = parse_device(t)) return Value(*d);
      break;
    case BaseType::Int:
    case BaseType::SymInt:
      if (t == "Mean") return Value(std::int64_t{1});
      if (t == "Sum") return Value(std::int64_t{2});
      break;
    default:
      return Value(std::string(t));  // QScheme, Dimname, Any: kept as the name
  }
  bad_default(a, t, "unknown name");
}

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

}  // namespace detail

/// The argument's default as a Value; throws std::invalid_argument when it has none or when
/// its text does not fit its type (the parser already rejects what it can see).
inline Value default_value(const Argument& a) {
  if (!a.has_default) throw std::invalid_argument("argument '" + std::string(a.name) + "' has no default");
  std::string_view t = detail::trim(a.default_text);
  if (t.empty()) detail::bad_default(a, t, "empty");
  if (t.front() != '[') {
    Value v = detail::scalar_default(a, t);
    if (a.type.list && !v.is_none()) {
      // `int[2] dilation=1` -> [1, 1]
      if (a.type.list_size < 0) detail::bad_default(a, t, "a single value needs a sized list");
      return Value::list(std::vector<Value>(static_cast<std::size_t>(a.type.list_size), v));
    }
    return v;
  }
  if (!a.type.list) detail::bad_default(a, t, "a list default needs a list type");
  if (t.back() != ']') detail::bad_default(a, t, "unterminated list");
  std::vector<Value> items;
  std::string_view body = detail::trim(t.substr(1, t.size() - 2));
  while (!body.empty()) {
    std::size_t comma = std::string_view::npos;
    char quote = 0;
    for (std::size_t i = 0; i < body.size(); ++i) {
      char c = body[i];
      if (quote) {
        if (c == '\\') ++i;
        else if (c == quote) quote = 0;
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == ',') {
        comma = i;
        break;
      }
    }
    std::string_view item = detail::trim(body.substr(0, comma));
    if (item.empty()) detail::bad_default(a, t, "empty list element");
    items.push_back(detail::scalar_default(a, item));
    body = comma == std::string_view::npos ? std::string_view{} : detail::trim(body.substr(comma + 1));
  }
  return Value::list(std::move(items));
}

/// Ops that have side effects although they write no argument: dead-code elimination keeps
/// them (torch.fx's `_side_effectful_functions`). An op that returns nothing and writes no
/// argument is also taken to be impure: it is only ever called for its effect.
inline bool is_side_effecting(const FunctionSchema& s) {
  constexpr std::string_view known[] = {
      "aten._assert_tensor_metadata.default", "aten._assert_async.default",
      "aten._assert_async.msg",               "aten._assert_scalar.default",
      "aten._functional_assert_async.msg",    "aten._functional_assert_scalar.default",
      "aten.sym_constrain_range.default",     "aten.sym_constrain_range_for_size.default",
      "aten._functional_sym_constrain_range.default",
      "aten._functional_sym_constrain_range_for_size.default",
      "aten._print.default",                  "aten._make_dep_token.default",
      "aten.record_stream.default",           "profiler._record_function_enter.default",
      "profiler._record_function_enter_new.default", "profiler._record_function_exit._RecordFunction",
  };
  for (std::string_view k : known)
    if (op_key_equals(s, k)) return true;
  return s.num_returns == 0;
}

/// The runtime signature of an op with this schema. Throws std::invalid_argument when a
/// default cannot be converted.
inline OpSignature to_signature(const FunctionSchema& s) {
  OpSignature sig;
  sig.params.reserve(s.num_args);
  for (std::size_t i = 0; i < s.num_args; ++i) {
    const Argument& a = s.args[i];
    OpSignature::Param p{std::string(a.name), a.kwarg_only, std::nullopt};
    if (a.has_default) p.default_value = default_value(a);
    sig.params.push_back(std::move(p));
  }
  sig.num_returns = s.num_returns;
  sig.is_mutable = s.is_mutable();
  sig.is_impure = sig.is_mutable || is_side_effecting(s);
  return sig;
}

}  // namespace ctmatch::schema
