#pragma once
// Schemas and types back to text, for messages and explanations ("argument 'dtype' is a
// ScalarType, found a bool"). The output is canonical schema text: parsing it again gives the
// same interface (a test checks this on the whole built-in table).
#include <string>

#include "function_schema.hpp"

namespace ctmatch::schema {

/// `Tensor`, `int[2]`, `Tensor?[]`, `ScalarType?`, `Tensor(a!)` (with the alias when given).
inline std::string to_string(const Type& t, std::string_view alias = {}, bool is_write = false) {
  std::string s(base_type_name(t.base));
  if (!alias.empty()) {  // `(a -> *)` prints as `(a)`: the interface is the same
    s += '(';
    s += alias;
    if (is_write) s += '!';
    s += ')';
  }
  if (t.list) {
    if (t.elem_optional) s += '?';
    s += '[';
    if (t.list_size >= 0) s += std::to_string(t.list_size);
    s += ']';
  }
  if (t.optional) s += '?';
  return s;
}

/// `Tensor(a!) out`, `bool clamp=False`.
inline std::string to_string(const Argument& a) {
  std::string s = to_string(a.type, a.alias, a.is_write);
  if (!a.name.empty()) {
    s += ' ';
    s += a.name;
  }
  if (a.has_default) {
    s += '=';
    s += a.default_text;
  }
  return s;
}

/// The whole schema: `aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor`.
inline std::string to_string(const FunctionSchema& f) {
  std::string s(f.ns);
  s += "::";
  s += f.name;
  if (!f.overload.empty()) {
    s += '.';
    s += f.overload;
  }
  s += '(';
  bool star = false;
  for (std::size_t i = 0; i < f.num_args; ++i) {
    if (i) s += ", ";
    if (f.args[i].kwarg_only && !star) {
      s += "*, ";
      star = true;
    }
    s += to_string(f.args[i]);
  }
  s += ") -> ";
  if (f.num_returns == 1 && f.returns[0].name.empty()) return s + to_string(f.returns[0]);
  s += '(';
  for (std::size_t i = 0; i < f.num_returns; ++i) {
    if (i) s += ", ";
    s += to_string(f.returns[i]);
  }
  return s + ')';
}

}  // namespace ctmatch::schema
