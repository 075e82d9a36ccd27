#pragma once
// What the FX text reader and writer share: how a call_function target is spelled in FX text
// and how it maps to an interned op name, and the schema type of an argument slot, which
// decides how a bare word reads (FX prints strings and devices alike, without quotes:
// `kwargs = {approximate: tanh}`, `kwargs = {device: cpu}`).
#include <cstdint>
#include <string>
#include <string_view>

#include "../graph/graph.hpp"
#include "../graph/op.hpp"
#include "../schema/builtin.hpp"
#include "../schema/function_schema.hpp"
#include "../schema/registry.hpp"

namespace ctmatch::io::fx {

/// The op name of an FX target: `torch.ops.aten.mm.default` -> `aten.mm.default`; Python
/// functions (`operator.getitem`) keep their whole qualified name.
constexpr std::string_view op_name_of_target(std::string_view target) {
  constexpr std::string_view ops = "torch.ops.";
  return target.substr(0, ops.size()) == ops ? target.substr(ops.size()) : target;
}

/// Whether an op name is a Python function's qualified name (printed as it is), rather than a
/// torch operator (printed with `torch.ops.` in front).
constexpr bool is_python_function(std::string_view op) {
  constexpr std::string_view modules[] = {"operator.", "_operator.", "builtins.", "math.", "torch."};
  for (std::string_view m : modules)
    if (op.substr(0, m.size()) == m) return true;
  return false;
}

/// Whether `t` is a dotted name (`torch.ops.aten.mm.default`, `operator.getitem`): parts of
/// letters, digits and `_`, none empty. torch.export JSON holds only such targets (the JSON
/// reader refuses others and the writer does not write them), so that every target read from
/// JSON prints as FX text that reads back.
constexpr bool is_dotted_name(std::string_view t) {
  if (t.empty() || t.front() == '.' || t.back() == '.') return false;
  char prev = 0;
  for (char c : t) {
    bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!word && !(c == '.' && prev != '.')) return false;
    prev = c;
  }
  return true;
}

/// How FX prints the target of an op: `aten.mm.default` -> `torch.ops.aten.mm.default`,
/// `operator.getitem` -> `operator.getitem`.
inline void append_target(std::string& out, std::string_view op) {
  if (!is_python_function(op)) out += "torch.ops.";
  out += op;
}

/// Whether a target is spelled otherwise than FX prints the op it names (append_target): such
/// a node keeps the spelling, so that it is written back as it was read (`aten.mm.default`
/// without `torch.ops.`, a Python function with it, a plain `my_python_fn`).
constexpr bool spelled_unlike_fx(std::string_view target) {
  std::string_view name = op_name_of_target(target);
  return name.empty() || is_python_function(name) == (name.size() != target.size());
}

/// What the schema says an argument slot holds, as far as reading a bare word is concerned.
enum class SlotHint : std::uint8_t {
  Unknown,  // no schema: a device-like word is a Device, any other word a string
  Str,      // `str`: the word is the string, whatever it looks like
  Device,   // `Device`: the word must be a device
  Int,      // `int` / `SymInt`: a word that is not a number is a symbolic int
  Other,    // any other type: the default rules
};

/// How far a bare word in a `str` slot runs. FX prints a string argument as it is, between
/// ", " separators, so the word runs to the first ", " (or comma before a bracket or another
/// comma) or closing bracket outside the brackets it opens itself, or to the end of the line:
/// an assertion message `Runtime assertion failed for expression Eq(Mod(s0, 2), 0) on node
/// 'eq'` and an einsum equation `bij,bkj->bik` read whole. `open`: the brackets the word
/// leaves open (it then ran to the end of the line). The reader reads by it and the writer
/// prints a string bare only where it reads back whole.
struct StrWord {
  std::size_t end;
  int open;
};
constexpr StrWord scan_str_word(std::string_view s) {
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '\n' || c == '\r') return {i, depth};
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) return {i, 0};
      --depth;
    } else if (c == ',' && depth == 0) {
      char next = i + 1 < s.size() ? s[i + 1] : '\n';
      if (next == ' ' || next == ',' || next == ')' || next == ']' || next == '}' || next == '\n' || next == '\r')
        return {i, 0};
    }
  }
  return {s.size(), depth};
}

/// Registers the builtin schemas (once per process), so that known ops bind their signature.
inline void ensure_schemas() { schema::ensure_builtin_schemas(); }

/// The schema of an op, or nullptr when none is known.
inline const schema::FunctionSchema* schema_of(OpId op) {
  return op == no_op ? nullptr : schema::find_schema(op);
}

/// What is wrong with the index of `spec` when it is a getitem of a node whose op's schema
/// gives its number of outputs (two or more): an index that is not an int, or out of range.
/// Empty when nothing is (or nothing is known). The FX reader says it at the index; the
/// Python conversion names the node.
inline std::string getitem_index_misfit(const Graph& g, const NodeSpec& spec) {
  static const OpId getitem = intern_op("operator.getitem");
  if (spec.op != getitem || spec.args.size() != 2 || !spec.args[0].is_node()) return {};
  const Node& producer = g[spec.args[0].node()];
  const schema::FunctionSchema* ps = producer.kind() == NodeKind::CallFunction ? schema_of(producer.op()) : nullptr;
  if (!ps || ps->num_returns < 2) return {};
  const auto* i = spec.args[1].get_if<std::int64_t>();
  if (!i) return "getitem of '" + std::string(producer.name()) + "' (" + std::to_string(ps->num_returns) + " outputs) needs an integer index";
  if (*i < 0 || *i >= static_cast<std::int64_t>(ps->num_returns))
    return "getitem index " + std::to_string(*i) + " is out of range: '" + std::string(producer.name()) + "' (" +
           std::string(op_name(producer.op())) + ") has " + std::to_string(ps->num_returns) + " outputs, 0 to " +
           std::to_string(ps->num_returns - 1);
  return {};
}

inline SlotHint hint_of(const schema::Type& t) {
  switch (t.base) {
    case schema::BaseType::Str: return SlotHint::Str;
    case schema::BaseType::Device: return SlotHint::Device;
    case schema::BaseType::Int:
    case schema::BaseType::SymInt: return SlotHint::Int;
    default: return SlotHint::Other;
  }
}
/// Hint for positional argument `i` of a call to the op with schema `s` (may be nullptr).
inline SlotHint positional_hint(const schema::FunctionSchema* s, std::size_t i) {
  if (!s || i >= s->num_args) return SlotHint::Unknown;
  return hint_of(s->args[i].type);
}
/// Hint for keyword argument `name`.
inline SlotHint keyword_hint(const schema::FunctionSchema* s, std::string_view name) {
  if (!s) return SlotHint::Unknown;
  int i = s->find(name);
  return i < 0 ? SlotHint::Unknown : hint_of(s->args[static_cast<std::size_t>(i)].type);
}

}  // namespace ctmatch::io::fx
