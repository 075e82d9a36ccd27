#pragma once
// The op key: how graphs name an op. A schema `aten::add.Tensor(...)` is the op
// `aten.add.Tensor`; one without an overload, `aten::mm(...)`, is `aten.mm.default` — the way
// torch.export and FX print targets (without `torch.ops.`). The graph layer interns ops by
// this key; the constexpr forms let a pattern compare or spell it at compile time.
#include <cstddef>
#include <string>
#include <string_view>

#include "function_schema.hpp"

namespace ctmatch::schema {

/// The overload as the key spells it: `default` when the schema has none.
constexpr std::string_view key_overload(const FunctionSchema& s) {
  return s.overload.empty() ? std::string_view("default") : s.overload;
}

/// Length of `ns.name.overload`.
constexpr std::size_t op_key_size(const FunctionSchema& s) {
  return s.ns.size() + 1 + s.name.size() + 1 + key_overload(s).size();
}

/// Writes `ns.name.overload` to out[0 .. op_key_size(s)) (no terminator), e.g. into a
/// fixed-size char array in a constant expression.
constexpr void write_op_key(const FunctionSchema& s, char* out) {
  std::size_t n = 0;
  for (char c : s.ns) out[n++] = c;
  out[n++] = '.';
  for (char c : s.name) out[n++] = c;
  out[n++] = '.';
  for (char c : key_overload(s)) out[n++] = c;
}

/// Whether `key` (`aten.add.Tensor`, `aten.mm.default`) names the schema's op.
constexpr bool op_key_equals(const FunctionSchema& s, std::string_view key) {
  if (key.size() != op_key_size(s)) return false;
  std::string_view ov = key_overload(s);
  return key.substr(0, s.ns.size()) == s.ns && key[s.ns.size()] == '.' &&
         key.substr(s.ns.size() + 1, s.name.size()) == s.name &&
         key[s.ns.size() + 1 + s.name.size()] == '.' &&
         key.substr(s.ns.size() + s.name.size() + 2) == ov;
}

/// `ns.name.overload`, at run time.
inline std::string op_key(const FunctionSchema& s) {
  std::string k(op_key_size(s), '\0');
  write_op_key(s, k.data());
  return k;
}

}  // namespace ctmatch::schema
