#pragma once
// What the torch.export JSON reader and writer agree on: how the parts of an
// `exported_program` document that ctmatch does not model are kept on the graph (annotation
// keys, all starting with `json:`), which serde Argument tag a Value is written with, and
// the small JSON text helpers both use (string escaping, floats spelled as torch writes them).
//
// Unmodelled parts are kept as JSON text in the canonical spelling of `append_json_*`
// (torch's `json.dumps` separators `, ` and `: `), so read -> write -> read gives the same
// annotation strings.
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "../graph/node.hpp"
#include "../graph/tensor_meta.hpp"
#include "../graph/value.hpp"
#include "../schema/function_schema.hpp"
#include "serde_enums.hpp"

namespace ctmatch::io::export_json {

// ---- annotation keys ----
// On the Graph: `json:` + the path of a document field that is not modelled, e.g.
// `json:opset_version`, `json:graph_module.signature`, `json:graph_module.graph.sym_int_values`.
inline constexpr std::string_view key_prefix = "json:";
inline constexpr std::string_view top_prefix = "json:";                       // top-level fields
inline constexpr std::string_view module_prefix = "json:graph_module.";       // graph_module fields
inline constexpr std::string_view graph_prefix = "json:graph_module.graph.";  // graph fields
/// tensor_values entries whose name is no node of the graph, as `"name": {...}` members.
inline constexpr std::string_view key_orphan_tensor_values = "json@orphan_tensor_values";
// On a Node:
inline constexpr std::string_view key_metadata = "json@metadata";  // the node's metadata object
inline constexpr std::string_view key_hop = "json@is_hop_single_tensor_return";
/// tensor_values fields that TensorMeta does not model (torch's are all modelled: dtype,
/// sizes, requires_grad, device, strides, storage_offset, layout), as object members.
inline constexpr std::string_view key_tensor_meta = "json@tensor_meta";
/// The node's `outputs` array, when it is not the single `as_tensor` named like the node.
inline constexpr std::string_view key_outputs = "json@outputs";
/// tensor_values of outputs the serializer marked unused (`NAME_unused_I`), which have no
/// getitem node; `"name": {...}` members.
inline constexpr std::string_view key_unused_tensor_values = "json@unused_tensor_values";
/// Input names of an op without a known schema, `self,mat2`, so the writer can name them.
inline constexpr std::string_view key_arg_names = "json@arg_names";
/// Argument tags that differ from the tag the writer would pick from the value alone
/// (`as_sym_ints` holding plain ints, an empty `as_tensors`): `name=tag,name=tag`.
inline constexpr std::string_view key_input_tags = "json@input_tags";
/// A placeholder that is not a tensor input (`as_sym_int`): the tag it was read with.
inline constexpr std::string_view key_input_tag = "json@graph_input_tag";
/// Unknown fields of a node: `json@field:` + key.
inline constexpr std::string_view key_field_prefix = "json@field:";

inline const std::string* find_annotation(const std::vector<Annotation>& as, std::string_view key) {
  for (const Annotation& a : as)
    if (a.key == key) return &a.value;
  return nullptr;
}

/// The serde Argument tag the writer uses for `v` when nothing says otherwise; empty when no
/// tag can hold it (a list mixing strings and tensors).
inline std::string_view default_tag(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::None: return "as_none";
    case Value::Kind::Bool: return "as_bool";
    case Value::Kind::Int: return "as_int";
    case Value::Kind::Double: return "as_float";
    case Value::Kind::String: return "as_string";
    case Value::Kind::ScalarType: return "as_scalar_type";
    case Value::Kind::Device: return "as_device";
    case Value::Kind::Layout: return "as_layout";
    case Value::Kind::MemoryFormat: return "as_memory_format";
    case Value::Kind::Node: return "as_tensor";
    case Value::Kind::SymInt: return "as_sym_int";
    case Value::Kind::List: break;
  }
  const auto& items = *v.items();
  if (items.empty()) return "as_ints";
  bool nodes = true, opt_nodes = true, ints = true, floats = true, bools = true, strings = true,
       sym_ints = true, int_lists = true, float_lists = true;
  for (const Value& x : items) {
    auto k = x.kind();
    nodes &= k == Value::Kind::Node;
    opt_nodes &= k == Value::Kind::Node || k == Value::Kind::None;
    ints &= k == Value::Kind::Int;
    floats &= k == Value::Kind::Int || k == Value::Kind::Double;
    bools &= k == Value::Kind::Bool;
    strings &= k == Value::Kind::String;
    sym_ints &= k == Value::Kind::Int || k == Value::Kind::SymInt || k == Value::Kind::Node;
    bool int_list = k == Value::Kind::List, float_list = int_list;
    if (int_list)
      for (const Value& y : *x.items()) {
        int_list &= y.kind() == Value::Kind::Int;
        float_list &= y.kind() == Value::Kind::Int || y.kind() == Value::Kind::Double;
      }
    int_lists &= int_list;
    float_lists &= float_list;
  }
  if (nodes) return "as_tensors";
  if (opt_nodes) return "as_optional_tensors";
  if (ints) return "as_ints";
  if (floats) return "as_floats";
  if (bools) return "as_bools";
  if (strings) return "as_strings";
  if (sym_ints) return "as_sym_ints";
  if (int_lists) return "as_int_lists";
  if (float_lists) return "as_float_lists";
  return {};
}

/// The tag the op's schema implies for a value whose own kind does not say it (an empty
/// list, a node passed as a SymInt).
inline std::string_view schema_tag(const schema::FunctionSchema* fs, std::string_view name, const Value& v) {
  if (!fs) return {};
  int p = fs->find(name);
  if (p < 0) return {};
  const schema::Type& t = fs->args[static_cast<std::size_t>(p)].type;
  using schema::BaseType;
  if (t.list && v.is_list() && v.items()->empty()) {
    switch (t.base) {
      case BaseType::Tensor: return t.elem_optional ? "as_optional_tensors" : "as_tensors";
      case BaseType::Int: case BaseType::SymInt: return "as_ints";
      case BaseType::Float: return "as_floats";
      case BaseType::Bool: return "as_bools";
      case BaseType::Str: return "as_strings";
      default: return {};
    }
  }
  if (!t.list && v.is_node()) {
    if (t.base == BaseType::SymInt) return "as_sym_int";
    if (t.base == BaseType::Float) return "as_sym_float";
    if (t.base == BaseType::Bool) return "as_sym_bool";
  }
  if (t.list && t.base == BaseType::SymInt && v.is_list()) {
    for (const Value& x : *v.items())
      if (!x.is<std::int64_t>()) return "as_sym_ints";
  }
  return {};
}

/// The tag the writer picks when the reader recorded none: the schema's, else the value's.
/// The reader records a tag exactly when it differs from this one.
inline std::string_view writer_tag(const schema::FunctionSchema* fs, std::string_view name, const Value& v) {
  std::string_view t = schema_tag(fs, name, v);
  return t.empty() ? default_tag(v) : t;
}


// ---- JSON text ----
/// Appends `s` as a JSON string literal. UTF-8 passes through; quotes, backslashes and control
/// characters are escaped.
inline void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  std::size_t run = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default: {
        constexpr char hex[] = "0123456789abcdef";
        out += "\\u00";
        out += hex[c >> 4];
        out += hex[c & 15];
      }
    }
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

inline void append_json_int(std::string& out, std::int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// ---- non-finite floats ----
// JSON has no number for them. torch's serializer writes them as the strings "Infinity",
// "-Infinity" and "NaN" (its deserializer turns them back with float()); the writer does the
// same, and the reader also takes Python json.dumps's bare tokens of the same names.
inline constexpr std::string_view json_infinity = "Infinity";
inline constexpr std::string_view json_negative_infinity = "-Infinity";
inline constexpr std::string_view json_nan = "NaN";

/// The float a JSON string stands for when it is torch's spelling of a non-finite float;
/// nullopt for every other string.
inline std::optional<double> non_finite_float(std::string_view s) {
  if (s == json_infinity) return std::numeric_limits<double>::infinity();
  if (s == json_negative_infinity) return -std::numeric_limits<double>::infinity();
  if (s == json_nan) return std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;
}

/// Appends `d` as torch's serializer writes a float: shortest round-trip digits, always with
/// a `.` or an exponent (`1.0`, not `1`, as Python's json does), and the non-finite ones as
/// the strings `"Infinity"`, `"-Infinity"`, `"NaN"`, so that the output is JSON and torch
/// reads it back.
inline void append_json_float(std::string& out, double d) {
  if (d != d || d == std::numeric_limits<double>::infinity() || d == -std::numeric_limits<double>::infinity()) {
    out += '"';
    out += d != d ? json_nan : d < 0 ? json_negative_infinity : json_infinity;
    out += '"';
    return;
  }
  char buf[40];
  auto r = std::to_chars(buf, buf + sizeof buf, d);
  std::string_view t(buf, static_cast<std::size_t>(r.ptr - buf));
  out += t;
  if (t.find_first_of(".e") == std::string_view::npos) out += ".0";
}

/// Appends a serde SymInt, `{"as_int": 3}` or `{"as_expr": {"expr_str": "s0", "hint": null}}`;
/// false (nothing appended) when `v` is neither an int nor a SymInt.
inline bool append_sym_int(std::string& out, const Value& v) {
  if (auto* e = v.get_if<SymInt>()) {
    out += "{\"as_expr\": {\"expr_str\": ";
    append_json_string(out, e->expr);
    out += ", \"hint\": null}}";
  } else if (auto* k = v.get_if<std::int64_t>()) {
    out += "{\"as_int\": ";
    append_json_int(out, *k);
    out += '}';
  } else {
    return false;
  }
  return true;
}

/// Appends `[SymInt, ...]`; false at an element that is neither an int nor a SymInt.
inline bool append_sym_ints(std::string& out, const std::vector<Value>& vs) {
  out += '[';
  for (std::size_t i = 0; i < vs.size(); ++i) {
    if (i) out += ", ";
    if (!append_sym_int(out, vs[i])) return false;
  }
  out += ']';
  return true;
}

/// Appends a serde TensorMeta object: its members in torch's order (dtype, sizes,
/// requires_grad, device, strides, storage_offset, layout), each that `m` has, then `extras`
/// (members TensorMeta does not model). Returns why it cannot be written (a dtype or layout
/// without a serde number, a size that is not an int or a SymInt; `out` then holds a
/// fragment), or an empty string.
inline std::string append_tensor_meta(std::string& out, const TensorMeta& m, std::string_view extras) {
  out += '{';
  const char* sep = "";
  auto member = [&](std::string_view key) {
    out += sep;
    out += '"';
    out += key;
    out += "\": ";
    sep = ", ";
  };
  if (m.dtype) {
    auto code = serde::scalar_type_to_serde(*m.dtype);
    if (!code) return "the serde format has no number for its dtype " + std::string(torch_name(*m.dtype));
    member("dtype");
    append_json_int(out, *code);
  }
  if (m.shape) {
    member("sizes");
    if (!append_sym_ints(out, *m.shape)) return "a size is neither an int nor a SymInt";
  }
  if (m.requires_grad) {
    member("requires_grad");
    out += *m.requires_grad ? "true" : "false";
  }
  if (m.device) {
    member("device");
    out += "{\"type\": ";
    append_json_string(out, device_type_name(m.device->type));
    out += ", \"index\": ";
    if (m.device->index >= 0) append_json_int(out, m.device->index);
    else out += "null";
    out += '}';
  }
  if (m.strides) {
    member("strides");
    if (!append_sym_ints(out, *m.strides)) return "a stride is neither an int nor a SymInt";
  }
  if (m.storage_offset) {
    member("storage_offset");
    if (!append_sym_int(out, *m.storage_offset)) return "its storage offset is neither an int nor a SymInt";
  }
  if (m.layout) {
    auto code = serde::layout_to_serde(*m.layout);
    if (!code) return "the serde format has no number for its layout " + std::string(torch_name(*m.layout));
    member("layout");
    append_json_int(out, *code);
  }
  if (!extras.empty()) {
    out += sep;
    out += extras;
  }
  out += '}';
  return {};
}

}  // namespace ctmatch::io::export_json
