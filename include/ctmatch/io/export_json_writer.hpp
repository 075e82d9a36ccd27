#pragma once
// write_export_json: a Graph as torch.export's serialized ExportedProgram JSON document, the
// inverse of read_export_json, in the spelling of torch's serializer (`json.dumps` separators),
// so that torch's own deserializer takes it back.
//
// - Everything the reader kept is written back where it was: node metadata, tensor_values
//   fields, graph_signature, module_call_graph, range_constraints, versions, unknown fields.
// - getitem nodes on a multi-output node are folded into that node's outputs again (slots that
//   no getitem reads keep their `NODE_unused_I` names and tensor values).
// - Nodes that rewrites created (no annotations) are written from their op's schema: inputs
//   named by the schema, `kind` 1 for positional and 2 for keyword arguments, outputs
//   `as_tensor` named like the node (`as_tensors` / one per return for multi-output ops),
//   tensor_values from Node::meta when it has dtype and shape.
// - The graph signature's output specs are re-pointed at the graph's current outputs, so a
//   rewrite that replaced an output node still gives a consistent program.
// - A graph that never came from JSON (FX text) gets the fields torch requires, with every
//   placeholder a user input.
// Throws WriteError (a std::invalid_argument naming the node) for what the format cannot hold:
// a dtype or layout without a serde number, a list no serde argument holds (of dtypes, or mixing
// tensors and strings), a symbol spelled like a node's name, get_attr / call_method /
// call_module nodes, and what FX text carries that the format has no field for or would move
// (placeholder defaults and targets, type annotations, a placeholder after other nodes, an
// output that is not a tuple, a getitem apart from its op: check_representable), which a round
// trip through JSON would otherwise drop or change. Every graph it writes reads back the same.
#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "../graph/graph.hpp"
#include "../schema/registry.hpp"
#include "error.hpp"
#include "export_json_format.hpp"
#include "fx_syntax.hpp"
#include "serde_enums.hpp"

namespace ctmatch::io {

namespace export_json::detail {

/// The shape of a node's `outputs`, from the reader's annotation or from the op's schema.
struct OutputsShape {
  enum Form { Single, NoOutputs, List, Tensors } form = Single;
  std::vector<std::string> tags;   // List: per slot, as_tensor / as_sym_int; Single: the tag
  std::vector<std::string> names;  // List / Tensors: the slot names as read
};

class Writer {
 public:
  explicit Writer(const Graph& g) : g_(g) {}

  std::string write() {
    getitem_ = OpRegistry::global().find("operator.getitem");
    check_representable();
    out_.reserve(1 << 16);
    out_ += "{\"graph_module\": {\"graph\": {\"inputs\": [";
    bool first = true;
    for (const Node& n : g_.nodes()) {
      if (n.kind() != NodeKind::Placeholder) continue;
      if (!first) out_ += ", ";
      first = false;
      const std::string* tag = find_annotation(n.annotations(), key_input_tag);
      if (tag) {
        out_ += "{\"" + *tag + "\": {\"as_name\": ";
        append_json_string(out_, n.name());
        out_ += "}}";
      } else {
        out_ += "{\"as_tensor\": {\"name\": ";
        append_json_string(out_, n.name());
        out_ += "}}";
      }
    }
    out_ += "], \"outputs\": [";
    const Node* output = nullptr;
    for (const Node& n : g_.nodes())
      if (n.kind() == NodeKind::Output) output = &n;
    if (output) {
      try {
        write_graph_outputs(*output);
      } catch (const WriteError&) {
        throw;
      } catch (const std::invalid_argument& e) {
        throw WriteError(output->id(), e.what());
      }
    }
    out_ += "], \"nodes\": [";
    first = true;
    for (const Node& n : g_.nodes()) {
      if (n.kind() == NodeKind::Placeholder || n.kind() == NodeKind::Output || folded_getitem(n)) continue;
      if (!first) out_ += ", ";
      first = false;
      try {
        write_node(n);
      } catch (const WriteError&) {
        throw;
      } catch (const std::invalid_argument& e) {  // a value of one of its arguments
        throw WriteError(n.id(), e.what());
      }
    }
    out_ += "], \"tensor_values\": {";
    first = true;
    // Tensor values in node order; those of a node's unused outputs follow its getitems.
    const std::string* unused = nullptr;
    NodeId unused_of = no_node;
    auto flush_unused = [&] {
      if (!unused) return;
      if (!first) out_ += ", ";
      first = false;
      out_ += *unused;
      unused = nullptr;
    };
    for (const Node& n : g_.nodes()) {
      if (n.kind() == NodeKind::Output) continue;
      if (unused && !(folded_getitem(n) && n.args()[0].node() == unused_of)) flush_unused();
      if (n.meta().dtype && n.meta().shape) {
        if (!first) out_ += ", ";
        first = false;
        append_json_string(out_, n.name());
        out_ += ": ";
        write_tensor_meta(n);
      }
      if (const std::string* u = find_annotation(n.annotations(), key_unused_tensor_values)) {
        unused = u;
        unused_of = n.id();
      }
    }
    flush_unused();
    if (const std::string* orphans = find_annotation(g_.annotations, key_orphan_tensor_values)) {
      if (!first) out_ += ", ";
      out_ += *orphans;
    }
    out_ += '}';
    write_level(graph_prefix, {}, {{"sym_int_values", "{}"}, {"sym_bool_values", "{}"},
                                   {"is_single_tensor_return", "false"}, {"custom_obj_values", "{}"},
                                   {"sym_float_values", "{}"}});
    out_ += '}';
    write_level(module_prefix, graph_prefix,
                {{"signature", default_signature()}, {"module_call_graph", default_module_call_graph()},
                 {"metadata", "{}"}, {"treespec_namedtuple_fields", "{}"}});
    out_ += '}';
    write_level(top_prefix, module_prefix,
                {{"opset_version", "{\"aten\": 10}"}, {"range_constraints", "{}"},
                 {"schema_version", "{\"major\": 8, \"minor\": 17}"}, {"verifiers", "[\"ATEN\"]"},
                 {"torch_version", "\"2.11.0\""}, {"guards_code", "[]"}});
    out_ += '}';
    return std::move(out_);
  }

 private:
  /// What the format cannot hold is refused before anything is written, naming the node:
  /// get_attr, call_method and call_module nodes (the format has call_function nodes and
  /// lifted inputs only), and what FX text carries that it has no field for (a placeholder's
  /// default value or a target other than its name, a placeholder after other nodes, a
  /// getitem apart from its op, type annotations, a target that is not a dotted name, an
  /// output that is not a tuple: AOT autograd's joint graphs return a list), which would
  /// otherwise be lost or changed on the way back to FX text.
  void check_representable() const {
    if (find_annotation(g_.annotations, "fx.return_type"))
      throw WriteError(no_node, "cannot write the graph as torch.export JSON: the format has no field for the "
                                "return type annotation of 'graph() -> ...'");
    bool past_inputs = false;
    NodeId run = no_node;       // the multi-output node whose getitems may follow here
    std::int64_t run_index = -1;  // the output its last getitem took
    for (const Node& n : g_.nodes()) {
      auto refusal = [&](const std::string& why) {
        return WriteError(n.id(), "cannot write node '" + std::string(n.name()) + "' as torch.export JSON: " + why);
      };
      switch (n.kind()) {
        case NodeKind::GetAttr: throw refusal("a get_attr node (the format lifts constants as inputs, which FX text reads back as placeholders)");
        case NodeKind::CallMethod: throw refusal("a call_method node (the format holds call_function nodes only)");
        case NodeKind::CallModule: throw refusal("a call_module node (the format holds call_function nodes only)");
        case NodeKind::Placeholder:
          if (past_inputs) throw refusal("a placeholder after other nodes (the format lists the inputs first)");
          if (!n.args().empty()) throw refusal("the format has no field for a placeholder's default value");
          if (n.target() != n.name()) throw refusal("the format has no field for a placeholder target ('" + n.target() + "') other than its name");
          break;
        case NodeKind::Output: {
          // The format lists the outputs, which a reader gives back as FX's output tuple.
          const List* out = n.args().size() == 1 ? n.args()[0].get_if<List>() : nullptr;
          if (!out || !out->tuple)
            throw refusal("its value is not a tuple (the format lists the outputs, which come back as a tuple)");
          break;
        }
        default: break;
      }
      past_inputs |= n.kind() != NodeKind::Placeholder;
      // The format folds an op's getitems into its outputs, and a reader makes them again
      // right after it, one an output, in the outputs' order: others would come back elsewhere.
      if (folded_getitem(n)) {
        check_output_index(n);
        if (n.args()[0].node() != run)
          throw refusal("a getitem of '" + std::string(g_[n.args()[0].node()].name()) +
                        "' placed after other nodes (the format puts an op's getitems right after it)");
        std::int64_t i = *n.args()[1].get_if<std::int64_t>();
        if (i <= run_index)
          throw refusal("getitems of '" + std::string(g_[run].name()) + "' out of the order of its outputs, or two of one output");
        run_index = i;
      } else {
        run = multi_output(n) ? n.id() : no_node;
        run_index = -1;
      }
      if (find_annotation(n.annotations(), "fx.type")) throw refusal("the format has no field for its type annotation");
      if (n.kind() == NodeKind::CallFunction && !fx::is_dotted_name(target(n)))
        throw refusal("its target " + quoted_name(target(n)) + " is not a dotted name");
    }
  }

  // ---------------------------------------------------------------- levels and defaults
  /// Writes the kept fields whose key starts with `prefix` (but not `deeper`), then the
  /// `required` fields that were not kept.
  void write_level(std::string_view prefix, std::string_view deeper,
                   std::vector<std::pair<std::string_view, std::string>> required) {
    for (const Annotation& a : g_.annotations) {
      std::string_view k = a.key;
      if (k.substr(0, prefix.size()) != prefix) continue;
      if (!deeper.empty() && k.substr(0, deeper.size()) == deeper) continue;
      std::string_view field = k.substr(prefix.size());
      if (field.find('.') != std::string_view::npos && prefix != graph_prefix) continue;  // a deeper level
      out_ += ", ";
      append_json_string(out_, field);
      out_ += ": ";
      if (prefix == module_prefix && field == "signature")
        write_signature(a.value);
      else
        out_ += a.value;
      for (auto& r : required)
        if (r.first == field) r.first = {};
    }
    for (auto& [field, text] : required) {
      if (field.empty()) continue;
      out_ += ", ";
      append_json_string(out_, field);
      out_ += ": ";
      out_ += text;
    }
  }

  std::vector<const Value*> graph_outputs() const {
    std::vector<const Value*> r;
    for (const Node& n : g_.nodes())
      if (n.kind() == NodeKind::Output)
        for (const Value& v : n.args()) {
          if (auto* items = v.items())
            for (const Value& x : *items) r.push_back(&x);
          else
            r.push_back(&v);
        }
    return r;
  }

  std::string default_signature() const {
    std::string s = "{\"input_specs\": [";
    bool first = true;
    for (const Node& n : g_.nodes()) {
      if (n.kind() != NodeKind::Placeholder) continue;
      if (!first) s += ", ";
      first = false;
      s += "{\"user_input\": {\"arg\": {\"as_tensor\": {\"name\": ";
      append_json_string(s, n.name());
      s += "}}}}";
    }
    s += "], \"output_specs\": [";
    first = true;
    for (const Value* v : graph_outputs()) {
      if (!first) s += ", ";
      first = false;
      s += "{\"user_output\": {\"arg\": ";
      std::string arg;
      if (!write_arg(arg, *v, default_tag(*v))) arg = "{\"as_none\": true}";
      s += arg;
      s += "}}";
    }
    s += "]}";
    return s;
  }

  std::string default_module_call_graph() const {
    // The root module's calling convention as pytree specs: (args tuple, kwargs dict) in,
    // one leaf or a tuple of leaves out.
    constexpr std::string_view leaf = R"({\"type\": null, \"context\": null, \"children_spec\": []})";
    std::size_t inputs = 0;
    std::string names = "[";
    for (const Node& n : g_.nodes())
      if (n.kind() == NodeKind::Placeholder) {
        if (inputs++) names += ", ";
        append_json_string(names, n.name());
      }
    names += ']';
    std::string in = R"([1, {\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": [{\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": [)";
    for (std::size_t i = 0; i < inputs; ++i) {
      if (i) in += ", ";
      in += leaf;
    }
    in += R"(]}, {\"type\": \"builtins.dict\", \"context\": \"[]\", \"children_spec\": []}]}])";
    std::size_t outputs = graph_outputs().size();
    std::string out = "[1, ";
    if (outputs == 1) {
      out += leaf;
    } else {
      out += R"({\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": [)";
      for (std::size_t i = 0; i < outputs; ++i) {
        if (i) out += ", ";
        out += leaf;
      }
      out += "]}";
    }
    out += ']';
    return "[{\"fqn\": \"\", \"signature\": {\"inputs\": [], \"outputs\": [], \"in_spec\": \"" + in +
           "\", \"out_spec\": \"" + out + "\", \"forward_arg_names\": " + names + "}}]";
  }

  /// The kept graph signature, with each output spec's argument re-pointed at the graph's
  /// current output of the same position.
  void write_signature(const std::string& text) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    if (parser.parse(text).get(doc)) {
      out_ += text;
      return;
    }
    std::vector<const Value*> outputs = graph_outputs();
    simdjson::dom::array specs;
    bool patch = !doc["output_specs"].get_array().get(specs) && specs.size() == outputs.size();
    if (!patch) {
      out_ += text;
      return;
    }
    simdjson::dom::object top;
    if (doc.get_object().get(top)) {
      out_ += text;
      return;
    }
    out_ += '{';
    bool first = true;
    for (auto [key, value] : top) {
      if (!first) out_ += ", ";
      first = false;
      append_json_string(out_, key);
      out_ += ": ";
      if (key != "output_specs") {
        append_element(value);
        continue;
      }
      out_ += '[';
      std::size_t i = 0;
      for (simdjson::dom::element spec : specs) {
        if (i) out_ += ", ";
        append_output_spec(spec, *outputs[i++]);
      }
      out_ += ']';
    }
    out_ += '}';
  }
  void append_output_spec(simdjson::dom::element spec, const Value& output) {
    simdjson::dom::object kind;
    if (spec.get_object().get(kind) || kind.size() != 1) {
      append_element(spec);
      return;
    }
    auto [kind_name, body] = *kind.begin();
    simdjson::dom::object fields;
    if (body.get_object().get(fields)) {
      append_element(spec);
      return;
    }
    out_ += '{';
    append_json_string(out_, kind_name);
    out_ += ": {";
    bool first = true;
    for (auto [key, value] : fields) {
      if (!first) out_ += ", ";
      first = false;
      append_json_string(out_, key);
      out_ += ": ";
      simdjson::dom::object tensor;
      if (key == "arg" && output.is_node() && !value["as_tensor"].get_object().get(tensor)) {
        out_ += "{\"as_tensor\": {\"name\": ";
        append_json_string(out_, g_[output.node()].name());
        out_ += "}}";
      } else {
        append_element(value);
      }
    }
    out_ += "}}";
  }
  void append_element(simdjson::dom::element e) {
    using simdjson::dom::element_type;
    switch (e.type()) {
      case element_type::OBJECT: {
        simdjson::dom::object o = e.get_object().value_unsafe();
        out_ += '{';
        bool first = true;
        for (auto [k, v] : o) {
          if (!first) out_ += ", ";
          first = false;
          append_json_string(out_, k);
          out_ += ": ";
          append_element(v);
        }
        out_ += '}';
        break;
      }
      case element_type::ARRAY: {
        simdjson::dom::array a = e.get_array().value_unsafe();
        out_ += '[';
        bool first = true;
        for (simdjson::dom::element v : a) {
          if (!first) out_ += ", ";
          first = false;
          append_element(v);
        }
        out_ += ']';
        break;
      }
      case element_type::STRING: append_json_string(out_, e.get_string().value_unsafe()); break;
      case element_type::INT64: append_json_int(out_, e.get_int64().value_unsafe()); break;
      case element_type::UINT64: out_ += std::to_string(e.get_uint64().value_unsafe()); break;
      case element_type::DOUBLE: append_json_float(out_, e.get_double().value_unsafe()); break;
      case element_type::BOOL: out_ += e.get_bool().value_unsafe() ? "true" : "false"; break;
      case element_type::NULL_VALUE: out_ += "null"; break;
    }
  }

  // ---------------------------------------------------------------- outputs and getitems
  OutputsShape outputs_shape(const Node& n) const {
    OutputsShape s;
    if (const std::string* text = find_annotation(n.annotations(), key_outputs)) {
      simdjson::dom::parser parser;
      simdjson::dom::array slots;
      if (parser.parse(*text).get_array().get(slots)) return s;
      if (slots.size() == 0) {
        s.form = OutputsShape::NoOutputs;
        return s;
      }
      for (simdjson::dom::element slot : slots) {
        simdjson::dom::object o;
        if (slot.get_object().get(o) || o.size() != 1) continue;
        auto [tag, body] = *o.begin();
        s.tags.emplace_back(tag);
        std::string_view name;
        if (tag == "as_tensors") {
          simdjson::dom::array ts;
          if (!body.get_array().get(ts))
            for (simdjson::dom::element t : ts)
              if (!t["name"].get_string().get(name)) s.names.emplace_back(name);
        } else if (!body["name"].get_string().get(name) || !body["as_name"].get_string().get(name)) {
          s.names.emplace_back(name);
        }
      }
      if (s.tags.size() == 1 && s.tags[0] == "as_tensors") s.form = OutputsShape::Tensors;
      else if (s.tags.size() == 1) s.form = OutputsShape::Single;
      else s.form = OutputsShape::List;
      return s;
    }
    if (n.op() == no_op) return s;
    if (const schema::FunctionSchema* fs = schema::find_schema(n.op())) {
      if (fs->num_returns == 0) s.form = OutputsShape::NoOutputs;
      else if (fs->num_returns == 1 && fs->returns[0].type.list) s.form = OutputsShape::Tensors;
      else if (fs->num_returns > 1) {
        s.form = OutputsShape::List;
        for (std::size_t i = 0; i < fs->num_returns; ++i)
          s.tags.emplace_back(fs->returns[i].type.base == schema::BaseType::Tensor ? "as_tensor" : "as_sym_int");
      }
    }
    return s;
  }
  bool multi_output(const Node& n) const {
    if (n.kind() != NodeKind::CallFunction) return false;
    auto form = outputs_shape(n).form;
    return form == OutputsShape::List || form == OutputsShape::Tensors;
  }
  /// A getitem that the format folds into its source's outputs.
  bool folded_getitem(const Node& n) const {
    if (n.kind() != NodeKind::CallFunction || n.op() != getitem_ || getitem_ == no_op || n.args().size() != 2 ||
        !n.kwargs().empty())
      return false;
    return n.args()[0].is_node() && n.args()[1].is<std::int64_t>() && multi_output(g_[n.args()[0].node()]);
  }

  /// Most slots an op with a list return (`Tensor[]`) is written with when the graph does not
  /// say how many it has: a getitem past it is refused rather than written as that many slots.
  static constexpr std::int64_t max_list_slots = 1 << 16;
  /// A folded getitem's index must name one of its source's output slots: 0 to the number of
  /// returns less one (or, for a list return whose length is not recorded, below
  /// max_list_slots). Throws WriteError naming the getitem otherwise.
  void check_output_index(const Node& getitem) const {
    const Node& source = g_[getitem.args()[0].node()];
    std::int64_t i = *getitem.args()[1].get_if<std::int64_t>();
    OutputsShape s = outputs_shape(source);
    std::int64_t slots = s.form == OutputsShape::List ? static_cast<std::int64_t>(s.tags.size())
                         : s.names.empty()            ? max_list_slots
                                                      : static_cast<std::int64_t>(s.names.size());
    if (i < 0 || i >= slots)
      throw WriteError(getitem.id(), "cannot write node '" + std::string(getitem.name()) + "' as torch.export JSON: getitem index " +
                                  std::to_string(i) + " is not an output of '" + std::string(source.name()) + "' (" +
                                  std::to_string(slots) + (s.names.empty() && s.form != OutputsShape::List ? " at most)" : " outputs)"));
  }

  void write_outputs(const Node& n) {
    OutputsShape s = outputs_shape(n);
    if (s.form == OutputsShape::NoOutputs) {
      out_ += "[]";
      return;
    }
    if (s.form == OutputsShape::Single) {
      std::string tag = s.tags.empty() ? "as_tensor" : s.tags[0];
      out_ += "[{\"" + tag + "\": {\"" + (tag == "as_tensor" ? "name" : "as_name") + "\": ";
      append_json_string(out_, n.name());
      out_ += "}}]";
      return;
    }
    // Slot names: the getitem that reads a slot, else the name the slot was read with, else
    // the serializer's name for an unused output.
    std::vector<std::string> names = s.names;
    names.resize(std::max(names.size(), s.tags.size()));
    std::vector<bool> used(names.size(), false);
    for (NodeId u : n.users()) {
      const Node& user = g_[u];
      if (!folded_getitem(user) || user.args()[0].node() != n.id()) continue;
      // In range: check_representable checked every folded getitem's index.
      auto i = static_cast<std::size_t>(*user.args()[1].get_if<std::int64_t>());
      if (i >= names.size()) {
        names.resize(i + 1);
        used.resize(i + 1, false);
      }
      names[i] = user.name();
      used[i] = true;
    }
    for (std::size_t i = 0; i < names.size(); ++i)
      if (!used[i]) names[i] = std::string(n.name()) + "_unused_" + std::to_string(i);
    if (s.form == OutputsShape::Tensors) {
      out_ += "[{\"as_tensors\": [";
      for (std::size_t i = 0; i < names.size(); ++i) {
        if (i) out_ += ", ";
        out_ += "{\"name\": ";
        append_json_string(out_, names[i]);
        out_ += '}';
      }
      out_ += "]}]";
      return;
    }
    out_ += '[';
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (i) out_ += ", ";
      std::string tag = i < s.tags.size() ? s.tags[i] : "as_tensor";
      out_ += "{\"" + tag + "\": {\"" + (tag == "as_tensor" ? "name" : "as_name") + "\": ";
      append_json_string(out_, names[i]);
      out_ += "}}";
    }
    out_ += ']';
  }

  // ---------------------------------------------------------------- nodes
  /// The target as FX spells it (a node that kept another spelling writes that).
  static std::string target(const Node& n) {
    if (!n.target().empty()) return n.target();
    std::string t;
    fx::append_target(t, op_name(n.op()));
    return t;
  }
  /// `name=tag,name=tag` -> the tag for `name`, or empty.
  static std::string_view recorded_tag(const std::string* tags, std::string_view name) {
    if (!tags) return {};
    std::string_view s = *tags;
    while (!s.empty()) {
      std::string_view item = s.substr(0, s.find(','));
      s.remove_prefix(std::min(s.size(), item.size() + 1));
      auto eq = item.find('=');
      if (eq != std::string_view::npos && item.substr(0, eq) == name) return item.substr(eq + 1);
    }
    return {};
  }
  void write_input(std::string_view name, const Value& v, int kind, const std::string* tags,
                   const schema::FunctionSchema* fs, bool& first) {
    if (!first) out_ += ", ";
    first = false;
    out_ += "{\"name\": ";
    append_json_string(out_, name);
    out_ += ", \"arg\": ";
    write_value(v, recorded_tag(tags, name), schema_tag(fs, name, v), name);
    out_ += ", \"kind\": ";
    out_ += kind == 1 ? '1' : '2';
    out_ += '}';
  }
  void write_value(const Value& v, std::string_view recorded, std::string_view from_schema, std::string_view what) {
    std::string arg;
    for (std::string_view tag : {recorded, from_schema, default_tag(v)}) {
      if (tag.empty()) continue;
      arg.clear();
      if (write_arg(arg, v, tag)) {
        out_ += arg;
        return;
      }
    }
    throw std::invalid_argument("cannot write argument '" + std::string(what) +
                                "' as torch.export JSON: no serde Argument holds a " +
                                std::string(kind_name(v.kind())) + " like it");
  }

  void write_node(const Node& n) {
    const OpSignature* sig = n.signature();
    const schema::FunctionSchema* fs = schema::find_schema(n.op());
    const std::string* tags = find_annotation(n.annotations(), key_input_tags);
    std::vector<std::string_view> arg_names;
    if (const std::string* names = find_annotation(n.annotations(), key_arg_names)) {
      std::string_view s = *names;
      while (!s.empty()) {
        std::string_view item = s.substr(0, s.find(','));
        arg_names.push_back(item);
        s.remove_prefix(std::min(s.size(), item.size() + 1));
      }
    }
    out_ += "{\"target\": ";
    append_json_string(out_, target(n));
    out_ += ", \"inputs\": [";
    bool first = true;
    std::string fallback;
    for (std::size_t i = 0; i < n.args().size(); ++i) {
      std::string_view name;
      if (sig && i < sig->params.size()) name = sig->params[i].name;
      else if (i < arg_names.size()) name = arg_names[i];
      else name = fallback = "arg" + std::to_string(i);
      write_input(name, n.args()[i], 1, tags, fs, first);
    }
    for (const Kwarg& k : n.kwargs()) write_input(k.name, k.value, 2, tags, fs, first);
    out_ += "], \"outputs\": ";
    write_outputs(n);
    out_ += ", \"metadata\": ";
    const std::string* meta = find_annotation(n.annotations(), key_metadata);
    out_ += meta ? *meta : "{}";
    out_ += ", \"is_hop_single_tensor_return\": ";
    const std::string* hop = find_annotation(n.annotations(), key_hop);
    out_ += hop ? *hop : "null";
    out_ += ", \"name\": ";
    append_json_string(out_, n.name());
    for (const Annotation& a : n.annotations()) {
      if (a.key.compare(0, key_field_prefix.size(), key_field_prefix) != 0) continue;
      out_ += ", ";
      append_json_string(out_, std::string_view(a.key).substr(key_field_prefix.size()));
      out_ += ": ";
      out_ += a.value;
    }
    out_ += '}';
  }

  void write_graph_outputs(const Node& output) {
    const std::string* tags = find_annotation(output.annotations(), key_input_tags);
    std::size_t i = 0;
    for (const Value* v : graph_outputs()) {
      if (i) out_ += ", ";
      std::string index = std::to_string(i++);
      write_value(*v, recorded_tag(tags, index), {}, "output " + index);
    }
  }

  // ---------------------------------------------------------------- arguments
  /// Appends `v` as a serde Argument with `tag`; false (and nothing useful appended) when
  /// that tag cannot hold `v`.
  bool write_arg(std::string& s, const Value& v, std::string_view tag) const {
    s += "{\"";
    s += tag;
    s += "\": ";
    bool ok = payload(s, v, tag);
    s += '}';
    return ok;
  }
  void name_of(std::string& s, const Value& v) const { append_json_string(s, g_[v.node()].name()); }
  bool symbolic(std::string& s, const Value& v, std::string_view constant) const {
    if (v.is_node()) {
      s += "{\"as_name\": ";
      name_of(s, v);
    } else if (auto* sym = v.get_if<SymInt>()) {
      // The format names a symbol and a node alike (`as_name`), and a reader takes the name
      // of a node for the node: a symbol spelled like one cannot be written.
      if (g_.find(sym->expr) != no_node)
        throw std::invalid_argument("cannot write the symbol '" + sym->expr +
                                    "' as torch.export JSON: a node has that name, and it would read back as the node");
      s += "{\"as_name\": ";
      append_json_string(s, sym->expr);
    } else if (constant == "as_int" && v.is<std::int64_t>()) {
      s += "{\"as_int\": ";
      append_json_int(s, *v.get_if<std::int64_t>());
    } else if (constant == "as_float" && (v.is<double>() || v.is<std::int64_t>())) {
      s += "{\"as_float\": ";
      append_json_float(s, v.is<double>() ? *v.get_if<double>() : static_cast<double>(*v.get_if<std::int64_t>()));
    } else if (constant == "as_bool" && v.is<bool>()) {
      s += "{\"as_bool\": ";
      s += *v.get_if<bool>() ? "true" : "false";
    } else {
      return false;
    }
    s += '}';
    return true;
  }
  template <class F>
  bool list(std::string& s, const Value& v, F&& item) const {
    const auto* items = v.items();
    if (!items) return false;
    s += '[';
    for (std::size_t i = 0; i < items->size(); ++i) {
      if (i) s += ", ";
      if (!item(s, (*items)[i])) return false;
    }
    s += ']';
    return true;
  }
  bool payload(std::string& s, const Value& v, std::string_view tag) const {
    auto tensor = [&](std::string& o, const Value& x) {
      if (!x.is_node()) return false;
      o += "{\"name\": ";
      name_of(o, x);
      o += '}';
      return true;
    };
    auto integer = [&](std::string& o, const Value& x) {
      if (!x.is<std::int64_t>()) return false;
      append_json_int(o, *x.get_if<std::int64_t>());
      return true;
    };
    auto floating = [&](std::string& o, const Value& x) {
      if (x.is<double>()) append_json_float(o, *x.get_if<double>());
      else if (x.is<std::int64_t>()) append_json_float(o, static_cast<double>(*x.get_if<std::int64_t>()));
      else return false;
      return true;
    };
    auto string = [&](std::string& o, const Value& x) {
      if (!x.is<std::string>()) return false;
      append_json_string(o, *x.get_if<std::string>());
      return true;
    };
    auto boolean = [&](std::string& o, const Value& x) {
      if (!x.is<bool>()) return false;
      o += *x.get_if<bool>() ? "true" : "false";
      return true;
    };
    auto optional_tensor = [&](std::string& o, const Value& x) {
      if (x.is_none()) {
        o += "{\"as_none\": true}";
        return true;
      }
      o += "{\"as_tensor\": ";
      bool ok = tensor(o, x);
      o += '}';
      return ok;
    };
    auto code = [&](std::optional<std::int64_t> c, std::string_view what, std::string_view name) {
      if (!c)
        throw std::invalid_argument("cannot write " + std::string(what) + " " + std::string(name) +
                                    " as torch.export JSON: the serde format has no number for it");
      append_json_int(s, *c);
      return true;
    };
    if (tag == "as_none") {
      if (!v.is_none()) return false;
      s += "true";
      return true;
    }
    if (tag == "as_tensor") return tensor(s, v);
    if (tag == "as_tensors") return list(s, v, tensor);
    if (tag == "as_optional_tensor") return optional_tensor(s, v);
    if (tag == "as_optional_tensors") return list(s, v, optional_tensor);
    if (tag == "as_int") return integer(s, v);
    if (tag == "as_ints") return list(s, v, integer);
    if (tag == "as_float") return floating(s, v);
    if (tag == "as_floats") return list(s, v, floating);
    if (tag == "as_string" || tag == "as_operator") return string(s, v);
    if (tag == "as_strings") return list(s, v, string);
    if (tag == "as_bool") return boolean(s, v);
    if (tag == "as_bools") return list(s, v, boolean);
    if (tag == "as_sym_int") return symbolic(s, v, "as_int");
    if (tag == "as_sym_ints") return list(s, v, [&](std::string& o, const Value& x) { return symbolic(o, x, "as_int"); });
    if (tag == "as_sym_float") return symbolic(s, v, "as_float");
    if (tag == "as_sym_floats") return list(s, v, [&](std::string& o, const Value& x) { return symbolic(o, x, "as_float"); });
    if (tag == "as_sym_bool") return symbolic(s, v, "as_bool");
    if (tag == "as_sym_bools") return list(s, v, [&](std::string& o, const Value& x) { return symbolic(o, x, "as_bool"); });
    if (tag == "as_int_lists") return list(s, v, [&](std::string& o, const Value& x) { return list(o, x, integer); });
    if (tag == "as_float_lists") return list(s, v, [&](std::string& o, const Value& x) { return list(o, x, floating); });
    if (tag == "as_scalar_type") {
      auto* t = v.get_if<ScalarType>();
      return t && code(serde::scalar_type_to_serde(*t), "dtype", torch_name(*t));
    }
    if (tag == "as_layout") {
      auto* l = v.get_if<Layout>();
      return l && code(serde::layout_to_serde(*l), "layout", torch_name(*l));
    }
    if (tag == "as_memory_format") {
      auto* m = v.get_if<MemoryFormat>();
      return m && code(serde::memory_format_to_serde(*m), "memory format", torch_name(*m));
    }
    if (tag == "as_device") {
      auto* d = v.get_if<Device>();
      if (!d) return false;
      s += "{\"type\": ";
      append_json_string(s, device_type_name(d->type));
      s += ", \"index\": ";
      if (d->index >= 0) append_json_int(s, d->index);
      else s += "null";
      s += '}';
      return true;
    }
    return false;
  }

  // ---------------------------------------------------------------- tensor_values
  void write_tensor_meta(const Node& n) {
    // torch's TensorMeta has every field: what the node's metadata lacks (a node a rewrite
    // made, a graph built in code) is written as a dense, strided tensor on the graph's device.
    TensorMeta m = n.meta();
    if (!m.requires_grad) m.requires_grad = false;
    if (!m.device) m.device = graph_device();
    if (!m.strides) {
      std::vector<std::size_t> order(m.shape->size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      auto dense = ctmatch::detail::dense_strides(*m.shape, order);  // nullopt with symbolic sizes
      m.strides.emplace();
      for (std::size_t i = 0; i < m.shape->size(); ++i) m.strides->push_back(Value(dense ? (*dense)[i] : 1));
    }
    if (!m.storage_offset) m.storage_offset = Value(std::int64_t{0});
    if (!m.layout) m.layout = Layout::Strided;
    const std::string* extras = find_annotation(n.annotations(), key_tensor_meta);
    std::string why = append_tensor_meta(out_, m, extras ? std::string_view(*extras) : std::string_view{});
    if (!why.empty())
      throw WriteError(n.id(), "cannot write the metadata of '" + std::string(n.name()) + "' as torch.export JSON: " + why);
  }
  /// The device of the graph's tensors: the first node's that has one, else the CPU.
  Device graph_device() {
    if (device_) return *device_;
    device_ = Device{};
    for (const Node& n : g_.nodes())
      if (n.meta().device) {
        device_ = *n.meta().device;
        break;
      }
    return *device_;
  }

  const Graph& g_;
  OpId getitem_ = no_op;
  std::string out_;
  std::optional<Device> device_;
};

}  // namespace export_json::detail

/// Writes `g` as a torch.export `exported_program` JSON document (see the header comment).
inline std::string write_export_json(const Graph& g) { return export_json::detail::Writer(g).write(); }

}  // namespace ctmatch::io
