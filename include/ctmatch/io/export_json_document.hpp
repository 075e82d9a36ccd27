#pragma once
// The reading half of the torch.export reader (export_json_reader.hpp): the exported_program
// document's schema (graph_module, graph, inputs, nodes and their serde Arguments, outputs,
// tensor_values) walked with the JSON cursor into plain records (a node's name, op, arguments
// with the name uses still to resolve, ...). The graph is built from them afterwards, once
// every name is known.
#include <cctype>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "../graph/graph.hpp"
#include "../schema/builtin.hpp"
#include "../schema/value_fits.hpp"
#include "export_json_cursor.hpp"
#include "fx_syntax.hpp"
#include "serde_enums.hpp"

namespace ctmatch::io::export_json::detail {

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
struct StringEq {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const noexcept { return a == b; }
};

/// A use of a name inside an argument, resolved once every node is known. Until then the
/// argument holds NodeRef{name index}.
struct RefSite {
  std::uint32_t name;
  const char* at;
  bool symbolic;  // as_sym_*'s `as_name`: a symbol, not a node, when no node has that name
};

struct InputRec {
  std::string name;
  const char* at;
  std::string_view tag;  // as_tensor, as_sym_int, ...
};

struct ArgRec {
  std::string name;
  Value value;
  int kind;  // 1 positional, 2 keyword, 0 not given
  std::string tag;
  const char* at;
};

struct NodeRec {
  const char* at = nullptr;  // its `{`
  std::string op;            // without `torch.ops.`
  std::string target;        // the target as written when it is neither `torch.ops.` nor a Python function
  const char* target_at = nullptr;
  std::vector<ArgRec> inputs;
  std::vector<RefSite> refs;
  std::string name;  // the FX node's name
  const char* name_at = nullptr;
  std::vector<std::string> slots;  // multi-output: the names of the outputs, in order
  std::vector<const char*> slot_at;
  std::vector<Annotation> annotations;
};

struct TensorValueRec {
  std::string name;
  const char* at;
  TensorMeta meta;
  std::string extras;  // members TensorMeta does not model, canonical JSON
};
class DocumentReader : protected JsonCursor {
 public:
  using JsonCursor::JsonCursor;

 protected:
  // ---------------------------------------------------------------- names
  std::uint32_t name_index(std::string_view name) {
    auto it = names_.find(name);
    if (it != names_.end()) return it->second;
    auto id = static_cast<std::uint32_t>(name_list_.size());
    name_list_.emplace_back(name);
    names_.emplace(std::string(name), id);
    defined_.push_back(false);
    return id;
  }
  void define(std::string_view name) { defined_[name_index(name)] = true; }
  /// A name that becomes a node's must be one (is_node_name): FX text could not refer to it.
  void check_node_name(std::string_view name, const char* at) {
    if (!is_node_name(name))
      fail(at, invalid_node_name_message(name));
  }

  // ---------------------------------------------------------------- the document
  void read_graph_module(od::value& v) {
    od::object gm = object(v, "'graph_module'");
    bool seen_graph = false;
    const char* gm_at = token_start(v);
    for_fields(gm, [&](std::string_view key, const char* key_at, od::value x) {
      if (key == "graph") {
        if (seen_graph) fail(key_at, "duplicate field 'graph'");
        seen_graph = true;
        read_graph(x);
      } else {
        keep(graph_annotations_, std::string(module_prefix) + std::string(key), x, key_at);
      }
    });
    if (!seen_graph) fail(gm_at, "missing field 'graph' in 'graph_module'");
  }

  void read_graph(od::value& v) {
    const char* g_at = token_start(v);
    od::object g = object(v, "'graph'");
    bool seen[4] = {};
    constexpr std::string_view parts[] = {"inputs", "outputs", "nodes", "tensor_values"};
    for_fields(g, [&](std::string_view key, const char* key_at, od::value x) {
      for (int i = 0; i < 4; ++i)
        if (key == parts[i]) {
          if (seen[i]) fail(key_at, "duplicate field '" + std::string(key) + "'");
          seen[i] = true;
        }
      if (key == "inputs") {
        od::array a = array(x, "the graph's 'inputs'");
        for_items(a, "the graph's 'inputs'", [&](std::size_t, od::value in) { read_graph_input(in); });
      } else if (key == "outputs") {
        od::array a = array(x, "the graph's 'outputs'");
        for_items(a, "the graph's 'outputs'", [&](std::size_t, od::value out) {
          std::size_t first_ref = output_refs_.size();
          ArgRec r{std::to_string(outputs_.size()), {}, 1, {}, token_start(out)};
          r.value = argument(out, r.tag, output_refs_, "a graph output");
          (void)first_ref;
          outputs_.push_back(std::move(r));
        });
      } else if (key == "nodes") {
        od::array a = array(x, "'nodes'");
        for_items(a, "'nodes'", [&](std::size_t, od::value n) { read_node(n); });
      } else if (key == "tensor_values") {
        od::object tv = object(x, "'tensor_values'");
        for_fields(tv, [&](std::string_view name, const char* name_at, od::value t) {
          read_tensor_value(name, name_at, t);
        });
      } else {
        keep(graph_annotations_, std::string(graph_prefix) + std::string(key), x, key_at);
      }
    });
    for (int i = 0; i < 3; ++i)
      if (!seen[i]) fail(g_at, "missing field '" + std::string(parts[i]) + "' in 'graph'");
  }

  void read_graph_input(od::value& v) {
    const char* at = token_start(v);
    od::object o = object(v, "a graph input");
    bool any = false;
    for_fields(o, [&](std::string_view tag, const char* tag_at, od::value x) {
      if (any) fail(tag_at, "a graph input has exactly one tag, found a second: '" + std::string(tag) + "'");
      any = true;
      if (tag == "as_tensor") {
        auto [name, name_at] = tensor_name(x, "a graph input");
        inputs_.push_back(InputRec{std::string(name), name_at, "as_tensor"});
      } else if (tag == "as_sym_int" || tag == "as_sym_float" || tag == "as_sym_bool") {
        const char* x_at = token_start(x);
        od::object s = object(x, "a symbolic graph input");
        std::string name;
        for_fields(s, [&](std::string_view k, const char* k_at, od::value y) {
          if (k != "as_name" || !name.empty())
            fail(k_at, "expected 'as_name' in a symbolic graph input, found '" + std::string(k) + "'");
          name = string(y, "'as_name'");
        });
        if (name.empty()) fail(x_at, "missing 'as_name' in a symbolic graph input");
        inputs_.push_back(InputRec{std::move(name), x_at, tag == "as_sym_int" ? "as_sym_int" : tag == "as_sym_float" ? "as_sym_float" : "as_sym_bool"});
      } else {
        fail(tag_at, "unsupported graph input '" + std::string(tag) +
                         "' (expected as_tensor or a symbolic input)");
      }
    });
    if (!any) fail(at, "empty graph input: expected one tag such as 'as_tensor'");
    check_node_name(inputs_.back().name, inputs_.back().at);
    define(inputs_.back().name);
  }

  /// `{"name": "x"}` (a TensorArgument): the name and where it is.
  std::pair<std::string_view, const char*> tensor_name(od::value& v, std::string_view what) {
    const char* at = token_start(v);
    od::object o = object(v, what);
    std::string_view name;
    const char* name_at = nullptr;
    for_fields(o, [&](std::string_view k, const char* k_at, od::value x) {
      if (k != "name") fail(k_at, "unexpected field '" + std::string(k) + "' in a tensor argument (expected 'name')");
      if (name_at) fail(k_at, "duplicate field 'name'");
      name_at = token_start(x);
      name = string(x, "a tensor name");
    });
    if (!name_at) fail(at, "missing field 'name' in a tensor argument");
    if (name.empty()) fail(name_at, "empty tensor name");
    return {name, name_at};
  }

  Value ref(std::string_view name, const char* at, std::vector<RefSite>& refs, bool symbolic = false) {
    std::uint32_t id = name_index(name);
    refs.push_back(RefSite{id, at, symbolic});
    return Value(NodeRef{id});
  }
  Value tensor_ref(od::value& v, std::vector<RefSite>& refs) {
    auto [name, at] = tensor_name(v, "a tensor argument");
    return ref(name, at, refs);
  }
  /// SymIntArgument / SymFloatArgument / SymBoolArgument: `{"as_name": ...}` or a constant.
  Value symbolic(od::value& v, std::string_view constant_tag, std::vector<RefSite>& refs) {
    const char* at = token_start(v);
    od::object o = object(v, "a symbolic argument");
    Value out;
    bool any = false;
    for_fields(o, [&](std::string_view k, const char* k_at, od::value x) {
      if (any) fail(k_at, "a symbolic argument has exactly one tag, found a second: '" + std::string(k) + "'");
      any = true;
      if (k == "as_name") {
        const char* x_at = token_start(x);
        std::string_view name = string(x, "'as_name'");
        if (name.empty()) fail(x_at, "empty symbol name");
        out = ref(name, x_at, refs, true);
      } else if (k == constant_tag) {
        if (k == "as_int") out = Value(integer(x, "a symbolic int"));
        else if (k == "as_float") out = Value(floating(x, "a symbolic float"));
        else out = Value(boolean(x, "a symbolic bool"));
      } else {
        fail(k_at, "expected 'as_name' or '" + std::string(constant_tag) + "' in a symbolic argument, found '" +
                       std::string(k) + "'");
      }
    });
    if (!any) fail(at, "empty symbolic argument: expected 'as_name' or '" + std::string(constant_tag) + "'");
    return out;
  }
  template <class F>
  Value list_of(od::value& v, std::string_view what, F&& item) {
    od::array a = array(v, what);
    std::vector<Value> items;
    for_items(a, what, [&](std::size_t, od::value x) { items.push_back(item(x)); });
    return Value::list(std::move(items));
  }

  /// One serde Argument (a union: one tag and its payload) as a Value; `tag` gets the tag.
  Value argument(od::value& v, std::string& tag_out, std::vector<RefSite>& refs, std::string_view what) {
    const char* at = token_start(v);
    od::object o = object(v, what);
    Value out;
    bool any = false;
    for_fields(o, [&](std::string_view tag, const char* tag_at, od::value x) {
      if (any) fail(tag_at, "an argument has exactly one tag, found a second: '" + std::string(tag) + "'");
      any = true;
      tag_out = tag;
      out = argument_payload(tag, tag_at, x, refs);
    });
    if (!any) fail(at, "empty argument: expected one tag such as 'as_tensor' or 'as_int'");
    return out;
  }

  Value argument_payload(std::string_view tag, const char* tag_at, od::value& x, std::vector<RefSite>& refs) {
    auto enum_value = [&](auto from_serde, std::string_view kind) { return Value(serde_enum(x, from_serde, kind, tag)); };
    auto optional_tensor = [&](od::value& y) -> Value {
      const char* y_at = token_start(y);
      od::object o = object(y, "an optional tensor");
      Value r;
      bool any = false;
      for_fields(o, [&](std::string_view k, const char* k_at, od::value z) {
        if (any) fail(k_at, "an optional tensor has exactly one tag, found a second: '" + std::string(k) + "'");
        any = true;
        if (k == "as_tensor") r = tensor_ref(z, refs);
        else if (k == "as_none") { boolean_or_null(z, "'as_none'"); r = Value(None{}); }
        else fail(k_at, "expected 'as_tensor' or 'as_none' in an optional tensor, found '" + std::string(k) + "'");
      });
      if (!any) fail(y_at, "empty optional tensor: expected 'as_tensor' or 'as_none'");
      return r;
    };
    if (tag == "as_none") { boolean_or_null(x, "'as_none'"); return Value(None{}); }
    if (tag == "as_tensor") return tensor_ref(x, refs);
    if (tag == "as_tensors") return list_of(x, tag, [&](od::value& y) { return tensor_ref(y, refs); });
    if (tag == "as_int") return Value(integer(x, tag));
    if (tag == "as_ints") return list_of(x, tag, [&](od::value& y) { return Value(integer(y, "an element of 'as_ints'")); });
    if (tag == "as_float") return Value(floating(x, tag));
    if (tag == "as_floats") return list_of(x, tag, [&](od::value& y) { return Value(floating(y, "an element of 'as_floats'")); });
    if (tag == "as_string" || tag == "as_operator") return Value(std::string(string(x, tag)));
    if (tag == "as_strings") return list_of(x, tag, [&](od::value& y) { return Value(std::string(string(y, "an element of 'as_strings'"))); });
    if (tag == "as_bool") return Value(boolean(x, tag));
    if (tag == "as_bools") return list_of(x, tag, [&](od::value& y) { return Value(boolean(y, "an element of 'as_bools'")); });
    if (tag == "as_sym_int") return symbolic(x, "as_int", refs);
    if (tag == "as_sym_ints") return list_of(x, tag, [&](od::value& y) { return symbolic(y, "as_int", refs); });
    if (tag == "as_sym_float") return symbolic(x, "as_float", refs);
    if (tag == "as_sym_floats") return list_of(x, tag, [&](od::value& y) { return symbolic(y, "as_float", refs); });
    if (tag == "as_sym_bool") return symbolic(x, "as_bool", refs);
    if (tag == "as_sym_bools") return list_of(x, tag, [&](od::value& y) { return symbolic(y, "as_bool", refs); });
    if (tag == "as_scalar_type") return enum_value(serde::scalar_type_from_serde, "dtype");
    if (tag == "as_layout") return enum_value(serde::layout_from_serde, "layout");
    if (tag == "as_memory_format") return enum_value(serde::memory_format_from_serde, "memory format");
    if (tag == "as_device") return device(x);
    if (tag == "as_optional_tensor") return optional_tensor(x);
    if (tag == "as_optional_tensors") return list_of(x, tag, optional_tensor);
    if (tag == "as_int_lists")
      return list_of(x, tag, [&](od::value& y) {
        return list_of(y, "an element of 'as_int_lists'", [&](od::value& z) { return Value(integer(z, "an element of 'as_int_lists'")); });
      });
    if (tag == "as_float_lists")
      return list_of(x, tag, [&](od::value& y) {
        return list_of(y, "an element of 'as_float_lists'", [&](od::value& z) { return Value(floating(z, "an element of 'as_float_lists'")); });
      });
    if (tag == "as_graph" || tag == "as_custom_obj" || tag == "as_complex" || tag == "as_nested_tensors" ||
        tag == "as_string_to_argument")
      fail(tag_at, "unsupported argument type '" + std::string(tag) + "'");
    fail(tag_at, "unknown argument type '" + std::string(tag) + "'");
  }

  /// A serde enum number (`what` names the field in errors) as the enum `from_serde` gives;
  /// an unknown number is refused at its position.
  template <class FromSerde>
  typename std::invoke_result_t<FromSerde, std::int64_t>::value_type serde_enum(od::value& v, FromSerde from_serde,
                                                                                 std::string_view kind,
                                                                                 std::string_view what) {
    const char* at = token_start(v);
    std::int64_t code = integer(v, what);
    auto e = from_serde(code);
    if (!e) fail(at, "unknown " + std::string(kind) + " number " + std::to_string(code) + " (torch.export serde numbering)");
    return *e;
  }

  void boolean_or_null(od::value& v, std::string_view what) {
    const char* at = token_start(v);
    if (is_type(v, od::json_type::null)) {
      if (!take(v.is_null(), at, what)) fail(at, "malformed JSON in " + std::string(what));
      return;
    }
    boolean(v, what);
  }

  Value device(od::value& v) {
    const char* at = token_start(v);
    od::object o = object(v, "'as_device'");
    std::string type;
    const char* type_at = nullptr;
    std::int64_t index = -1;
    for_fields(o, [&](std::string_view k, const char* k_at, od::value x) {
      if (k == "type") {
        type_at = token_start(x);
        type = string(x, "a device type");
      } else if (k == "index") {
        if (is_type(x, od::json_type::null)) { boolean_or_null(x, "a device index"); index = -1; }
        else {
          const char* i_at = token_start(x);
          index = integer(x, "a device index");
          if (index < 0 || index > 32767) fail(i_at, "device index " + std::to_string(index) + " out of range");
        }
      } else {
        fail(k_at, "unexpected field '" + std::string(k) + "' in a device (expected 'type' and 'index')");
      }
    });
    if (!type_at) fail(at, "missing field 'type' in a device");
    std::string spelled = index >= 0 ? type + ":" + std::to_string(index) : type;
    auto d = parse_device(spelled);
    if (!d) fail(type_at, "unknown device type '" + type + "'");
    return Value(*d);
  }

  void read_node(od::value& v) {
    NodeRec n;
    n.at = token_start(v);
    od::object o = object(v, "a node");
    bool seen_target = false, seen_inputs = false, seen_outputs = false;
    std::string field_name;
    const char* name_field_at = nullptr;
    std::vector<std::pair<std::string, const char*>> outs;  // output names, where
    std::string outputs_text;
    bool single_tensor = false;
    for_fields(o, [&](std::string_view key, const char* key_at, od::value x) {
      auto once = [&](bool& seen) {
        if (seen) fail(key_at, "duplicate field '" + std::string(key) + "' in a node");
        seen = true;
      };
      if (key == "target") {
        once(seen_target);
        n.target_at = token_start(x);
        std::string_view t = string(x, "a node's 'target'");
        if (fx::spelled_unlike_fx(t)) n.target = t;  // kept, as the FX reader keeps it
        t = fx::op_name_of_target(t);
        if (t.empty()) fail(n.target_at, "empty node target");
        if (!fx::is_dotted_name(t))
          fail(n.target_at, "invalid node target " + quoted_name(t) + ": expected a dotted name such as torch.ops.aten.mm.default");
        n.op = t;
      } else if (key == "inputs") {
        once(seen_inputs);
        od::array a = array(x, "a node's 'inputs'");
        for_items(a, "a node's 'inputs'", [&](std::size_t, od::value in) { read_named_argument(in, n); });
      } else if (key == "outputs") {
        once(seen_outputs);
        read_outputs(x, n, outs, outputs_text, single_tensor);
      } else if (key == "name") {
        if (name_field_at) fail(key_at, "duplicate field 'name' in a node");
        name_field_at = token_start(x);
        field_name = string(x, "a node's 'name'");
        if (field_name.empty()) fail(name_field_at, "empty node name");
      } else if (key == "metadata") {
        // dict[str, str], checked here and kept as written: stack traces make up most of a
        // document, and copying them verbatim is several times faster than re-escaping them.
        const char* m_at = token_start(x);
        od::object m = object(x, "a node's 'metadata'");
        for_fields(m, [&](std::string_view, const char*, od::value mv) { raw_string(mv, "a metadata entry"); });
        const char* m_end = here() - 1;  // just before the token after the object
        while (m_end > m_at && *m_end != '}') --m_end;
        std::string text(m_at, static_cast<std::size_t>(m_end - m_at) + 1);
        for (const Annotation& a : n.annotations)
          if (a.key == key_metadata) fail(key_at, "duplicate field 'metadata' in a node");
        n.annotations.push_back(Annotation{std::string(key_metadata), std::move(text)});
      } else if (key == "is_hop_single_tensor_return") {
        keep(n.annotations, std::string(key_hop), x, key_at);
      } else {
        keep(n.annotations, std::string(key_field_prefix) + std::string(key), x, key_at);
      }
    });
    if (!seen_target) fail(n.at, "missing field 'target' in a node");
    if (!seen_inputs) fail(n.at, "missing field 'inputs' in a node");
    if (!seen_outputs) fail(n.at, "missing field 'outputs' in a node");
    if (single_tensor) {
      n.name = outs[0].first;
      n.name_at = outs[0].second;
    } else {
      n.name = field_name;  // may be empty: the graph names it after the op
      n.name_at = name_field_at ? name_field_at : n.at;
      for (auto& [s, at] : outs) {
        n.slots.push_back(s);
        n.slot_at.push_back(at);
      }
      n.annotations.push_back(Annotation{std::string(key_outputs), std::move(outputs_text)});
    }
    if (!n.name.empty()) {
      check_node_name(n.name, n.name_at);
      define(n.name);
    }
    for (std::size_t i = 0; i < n.slots.size(); ++i)
      if (!is_unused_slot(n.name, n.slots[i], i)) {
        check_node_name(n.slots[i], n.slot_at[i]);
        define(n.slots[i]);
      }
    nodes_.push_back(std::move(n));
  }

  static bool is_unused_slot(std::string_view node, std::string_view slot, std::size_t i) {
    // torch's serializer names outputs that nothing uses `NODE_unused_I`.
    std::string want = std::string(node) + "_unused_" + std::to_string(i);
    return !node.empty() && slot == want;
  }

  void read_outputs(od::value& v, NodeRec& n, std::vector<std::pair<std::string, const char*>>& outs,
                    std::string& text, bool& single_tensor) {
    const char* at = token_start(v);
    od::array a = array(v, "a node's 'outputs'");
    std::vector<std::string> tags;
    text = "[";
    for_items(a, "a node's 'outputs'", [&](std::size_t i, od::value out) {
      if (i) text += ", ";
      const char* out_at = token_start(out);
      od::object o = object(out, "a node output");
      bool any = false;
      for_fields(o, [&](std::string_view tag, const char* tag_at, od::value x) {
        if (any) fail(tag_at, "a node output has exactly one tag, found a second: '" + std::string(tag) + "'");
        any = true;
        tags.emplace_back(tag);
        text += '{';
        append_json_string(text, tag);
        text += ": ";
        if (tag == "as_tensor") {
          auto [name, name_at] = tensor_name(x, "a node output");
          outs.emplace_back(std::string(name), name_at);
          text += "{\"name\": ";
          append_json_string(text, name);
          text += '}';
        } else if (tag == "as_tensors") {
          od::array ts = array(x, "'as_tensors'");
          text += '[';
          for_items(ts, "'as_tensors'", [&](std::size_t k, od::value t) {
            auto [name, name_at] = tensor_name(t, "a node output");
            outs.emplace_back(std::string(name), name_at);
            if (k) text += ", ";
            text += "{\"name\": ";
            append_json_string(text, name);
            text += '}';
          });
          text += ']';
        } else if (tag == "as_sym_int" || tag == "as_sym_float" || tag == "as_sym_bool") {
          const char* x_at = token_start(x);
          od::object s = object(x, "a symbolic output");
          std::string name;
          for_fields(s, [&](std::string_view k, const char* k_at, od::value y) {
            if (k != "as_name" || !name.empty())
              fail(k_at, "expected 'as_name' in a symbolic node output, found '" + std::string(k) + "'");
            name = string(y, "'as_name'");
          });
          if (name.empty()) fail(x_at, "missing 'as_name' in a symbolic node output");
          outs.emplace_back(name, x_at);
          text += "{\"as_name\": ";
          append_json_string(text, name);
          text += '}';
        } else {
          fail(tag_at, "unsupported node output '" + std::string(tag) + "'");
        }
        text += '}';
      });
      if (!any) fail(out_at, "empty node output: expected one tag such as 'as_tensor'");
    });
    text += ']';
    if (tags.size() == 1 && tags[0] != "as_tensors") {
      // One value: the node itself is it (torch syncs the node with that name).
      single_tensor = true;
      if (tags[0] != "as_tensor") n.annotations.push_back(Annotation{std::string(key_outputs), text});
      return;
    }
    if (tags.size() > 1)
      for (std::size_t i = 0; i < tags.size(); ++i)
        if (tags[i] != "as_tensor" && tags[i] != "as_sym_int")
          fail(at, "unsupported node outputs: a list of outputs holds '" + tags[i] + "'");
  }

  void read_named_argument(od::value& v, NodeRec& n) {
    const char* at = token_start(v);
    od::object o = object(v, "a node input");
    ArgRec r{{}, {}, 0, {}, at};
    bool seen_name = false, seen_arg = false, seen_kind = false;
    for_fields(o, [&](std::string_view key, const char* key_at, od::value x) {
      if (key == "name") {
        if (seen_name) fail(key_at, "duplicate field 'name' in a node input");
        seen_name = true;
        const char* x_at = token_start(x);
        r.name = string(x, "an input's 'name'");
        if (r.name.empty()) fail(x_at, "empty input name");
        if (!is_identifier(r.name))  // FX text writes it as a keyword argument's name
          fail(x_at, "invalid input name " + quoted_name(r.name) + ": an argument name is a Python identifier (ASCII)");
      } else if (key == "arg") {
        if (seen_arg) fail(key_at, "duplicate field 'arg' in a node input");
        seen_arg = true;
        r.at = token_start(x);
        r.value = argument(x, r.tag, n.refs, "a node input's 'arg'");
      } else if (key == "kind") {
        if (seen_kind) fail(key_at, "duplicate field 'kind' in a node input");
        seen_kind = true;
        if (is_type(x, od::json_type::null)) {
          boolean_or_null(x, "'kind'");
        } else {
          const char* k_at = token_start(x);
          std::int64_t k = integer(x, "'kind'");
          if (k < 0 || k > 2) fail(k_at, "unknown argument kind " + std::to_string(k) + " (expected 1 positional or 2 keyword)");
          r.kind = static_cast<int>(k);
        }
      } else {
        fail(key_at, "unexpected field '" + std::string(key) + "' in a node input (expected name, arg, kind)");
      }
    });
    if (!seen_name) fail(at, "missing field 'name' in a node input");
    if (!seen_arg) fail(at, "missing field 'arg' in a node input");
    for (const ArgRec& other : n.inputs)
      if (other.name == r.name) fail(at, "input '" + r.name + "' given twice");
    n.inputs.push_back(std::move(r));
  }

  void read_tensor_value(std::string_view name, const char* name_at, od::value& v) {
    TensorValueRec t{std::string(name), name_at, {}, {}};
    TensorMeta& m = t.meta;
    const char* at = token_start(v);
    od::object o = object(v, "a tensor value");
    std::vector<std::string> unmodelled;
    for_fields(o, [&](std::string_view key, const char* key_at, od::value x) {
      auto once = [&](bool seen) {
        if (seen) fail(key_at, "duplicate field '" + std::string(key) + "'");
      };
      if (key == "dtype") {
        once(m.dtype.has_value());
        m.dtype = serde_enum(x, serde::scalar_type_from_serde, "dtype", "'dtype'");
      } else if (key == "sizes") {
        once(m.shape.has_value());
        m.shape = sym_sizes(x, "'sizes'");
      } else if (key == "strides") {
        once(m.strides.has_value());
        m.strides = sym_sizes(x, "'strides'");
      } else if (key == "storage_offset") {
        once(m.storage_offset.has_value());
        m.storage_offset = sym_size(x);
      } else if (key == "requires_grad") {
        once(m.requires_grad.has_value());
        m.requires_grad = boolean(x, "'requires_grad'");
      } else if (key == "device") {
        once(m.device.has_value());
        m.device = *device(x).get_if<Device>();
      } else if (key == "layout") {
        once(m.layout.has_value());
        m.layout = serde_enum(x, serde::layout_from_serde, "layout", "'layout'");
      } else {
        std::string member;
        append_json_string(member, key);
        for (const std::string& u : unmodelled)
          if (u == member) fail(key_at, "duplicate field '" + std::string(key) + "'");
        unmodelled.push_back(member);
        if (!t.extras.empty()) t.extras += ", ";
        t.extras += member;
        t.extras += ": ";
        canonical(x, t.extras, "a tensor value");
      }
    });
    if (!m.dtype) fail(at, "missing field 'dtype' in tensor value '" + t.name + "'");
    if (!m.shape) fail(at, "missing field 'sizes' in tensor value '" + t.name + "'");
    if (m.strides && m.strides->size() != m.shape->size())
      fail(at, "tensor value '" + t.name + "' has " + std::to_string(m.strides->size()) + " strides for " +
                   std::to_string(m.shape->size()) + " sizes");
    tensor_values_.push_back(std::move(t));
  }

  std::vector<Value> sym_sizes(od::value& x, std::string_view what) {
    std::vector<Value> out;
    od::array a = array(x, what);
    for_items(a, what, [&](std::size_t, od::value s) { out.push_back(sym_size(s)); });
    return out;
  }

  /// A tensor size (serde SymInt): `{"as_int": 3}` or `{"as_expr": {"expr_str": "s0", ...}}`.
  Value sym_size(od::value& v) {
    const char* at = token_start(v);
    od::object o = object(v, "a size");
    Value out;
    bool any = false;
    for_fields(o, [&](std::string_view k, const char* k_at, od::value x) {
      if (any) fail(k_at, "a size has exactly one tag, found a second: '" + std::string(k) + "'");
      any = true;
      if (k == "as_int") {
        out = Value(integer(x, "a size"));
      } else if (k == "as_expr") {
        const char* e_at = token_start(x);
        od::object e = object(x, "'as_expr'");
        std::string expr;
        bool seen = false;
        for_fields(e, [&](std::string_view ek, const char*, od::value ev) {
          if (ek == "expr_str") {
            seen = true;
            expr = string(ev, "'expr_str'");
          } else {
            canonical(ev, "'as_expr'");  // the hint: validated, not kept
          }
        });
        if (!seen) fail(e_at, "missing field 'expr_str' in a symbolic size");
        out = Value(SymInt{std::move(expr)});
      } else {
        fail(k_at, "expected 'as_int' or 'as_expr' in a size, found '" + std::string(k) + "'");
      }
    });
    if (!any) fail(at, "empty size: expected 'as_int' or 'as_expr'");
    return out;
  }

  bool seen_module_ = false;
  std::unordered_map<std::string, std::uint32_t, StringHash, StringEq> names_;
  std::vector<std::string> name_list_;
  std::vector<bool> defined_;
  std::vector<InputRec> inputs_;
  std::vector<ArgRec> outputs_;
  std::vector<RefSite> output_refs_;
  std::vector<NodeRec> nodes_;
  std::vector<TensorValueRec> tensor_values_;
  std::vector<Annotation> graph_annotations_;
  std::vector<Annotation> orphan_target_;
};

}  // namespace ctmatch::io::export_json::detail
