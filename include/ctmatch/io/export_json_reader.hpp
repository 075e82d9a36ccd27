#pragma once
// read_export_json: torch.export's serialized ExportedProgram (the `exported_program` JSON
// document of torch/_export/serde/serialize.py) into a Graph.
//
// - Graph inputs become placeholders, nodes become call_function nodes (target
//   `torch.ops.aten.mm.default` -> op `aten.mm.default`), graph outputs the output node.
// - Named inputs: `kind` 1 is positional, 2 keyword (missing `kind`: torch's old rule,
//   positional unless the schema gives a default or makes it keyword-only). Every serde
//   Argument tag that has a Value is read; `as_graph`, `as_custom_obj`, `as_complex`,
//   `as_nested_tensors`, `as_string_to_argument` are reported as unsupported. A float may be
//   torch's string "Infinity", "-Infinity" or "NaN" (or Python's bare token of that name).
// - The format folds `operator.getitem` into the outputs of a multi-output node; they are
//   recreated right after it, named as listed, as torch's deserializer does
//   (deserialize_multiple_outputs / generate_getitem). Outputs the serializer named
//   `NODE_unused_I` are not recreated: nothing uses them, and FX does not have them.
// - tensor_values give Node::meta (dtype, sizes); their other fields, node metadata and every
//   field not modelled are kept as JSON text in annotations (export_json_format.hpp), so
//   write_export_json can give torch back everything it read.
//
// Three parts: the JSON cursor (export_json_cursor.hpp: simdjson's On-Demand API, positions in
// every error; benchmarks/RESULTS.md has the comparison with Boost.JSON that led to it), the
// document's schema read into records (export_json_document.hpp), and the graph built from
// them (below). Errors throw ParseError; the graph is never returned half-built.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../graph/graph.hpp"
#include "export_json_document.hpp"

namespace ctmatch::io {

namespace export_json::detail {

class Reader : DocumentReader {
 public:
  using DocumentReader::DocumentReader;

  Graph read() {
    open();
    od::object top = object_of_doc();
    for_fields(top, [&](std::string_view key, const char* key_at, od::value v) {
      if (key == "graph_module") {
        seen_module_ = true;
        read_graph_module(v);
      } else {
        keep(graph_annotations_, std::string(top_prefix) + std::string(key), v, key_at);
      }
    });
    if (auto rest = doc_.current_location(); !rest.error())
      fail(rest.value_unsafe(), "expected the end of the document after its top-level object");
    if (!seen_module_) fail(base_, "missing field 'graph_module' in the exported_program document");
    return build();
  }

 private:
  // ---------------------------------------------------------------- building the graph
  void resolve(Value& v, const std::vector<RefSite>& refs, std::size_t& k) {
    if (auto* r = v.get_if<NodeRef>()) {
      const RefSite& site = refs[k++];
      NodeId id = resolved_[site.name];
      if (id == no_node) {
        const std::string& name = name_list_[site.name];
        if (site.symbolic && !defined_[site.name]) {
          v = Value(SymInt{name});
          return;
        }
        if (defined_[site.name]) fail(site.at, "'" + name + "' is used before it is defined");
        fail(site.at, "reference to undefined node '" + name + "'");
      }
      r->id = id;
    } else if (v.is_list()) {
      bool refs_inside = false;  // most lists are shapes: left unopened, they stay known node-free
      v.for_each_node([&](NodeId) { refs_inside = true; });
      if (refs_inside)
        for (Value& x : v.get_if<List>()->items) resolve(x, refs, k);
    }
  }
  NodeId create(Graph& g, NodeSpec spec, const char* at) {
    NodeId id = no_node;
    // Every name that reaches here was checked where it was read (check_node_name), or is
    // empty (the graph names the node), or is "output".
    spec.name_is_node_name = !spec.name.empty();
    try {
      id = g.create(std::move(spec));
    } catch (const GraphError& e) {
      fail(at, e.what());
    }
    g.source_offsets.push_back(static_cast<std::size_t>(at - base_));
    return id;
  }
  void bind(std::string_view name, NodeId id) {
    auto it = names_.find(name);
    if (it != names_.end()) resolved_[it->second] = id;
  }

  Graph build() {
    schema::ensure_builtin_schemas();
    Graph g;
    resolved_.assign(name_list_.size(), no_node);
    for (const InputRec& in : inputs_) {
      if (g.find(in.name) != no_node) fail(in.at, "duplicate node name '" + in.name + "'");
      NodeId id = create(g, NodeSpec{NodeKind::Placeholder, no_op, in.name, in.name, {}, {}}, in.at);
      if (in.tag != "as_tensor") g[id].edit_annotations().push_back(Annotation{std::string(key_input_tag), std::string(in.tag)});
      bind(in.name, id);
    }
    const OpId getitem = intern_op("operator.getitem");
    for (NodeRec& n : nodes_) {
      if (!n.name.empty() && g.find(n.name) != no_node) fail(n.name_at, "duplicate node name '" + n.name + "'");
      std::size_t k = 0;
      for (ArgRec& a : n.inputs) resolve(a.value, n.refs, k);
      NodeSpec spec{NodeKind::CallFunction, intern_op(n.op), n.name, std::move(n.target), {}, {}};
      const OpSignature* sig = OpRegistry::global().signature(spec.op);
      const schema::FunctionSchema* fs = schema::find_schema(spec.op);
      std::string overrides, positional_names;
      // kind 1 positional, 2 keyword; none given: torch's old rule (positional unless the
      // schema gives a default or makes it keyword-only).
      auto is_positional = [&](const ArgRec& a) {
        if (a.kind != 0) return a.kind == 1;
        if (!sig) return true;
        int p = sig->find(a.name);
        return p >= 0 && !sig->params[static_cast<std::size_t>(p)].kwarg_only &&
               !sig->params[static_cast<std::size_t>(p)].default_value;
      };
      std::size_t positional_count = 0, max_positional = 0;
      for (const ArgRec& a : n.inputs) positional_count += is_positional(a);
      if (sig)
        while (max_positional < sig->params.size() && !sig->params[max_positional].kwarg_only) ++max_positional;
      for (ArgRec& a : n.inputs) {
        bool positional = is_positional(a);
        if (sig) {  // point at the input that does not fit (Graph::create would name the node)
          if (positional && spec.args.size() >= max_positional)
            fail(a.at, n.op + ": takes at most " + std::to_string(max_positional) + " positional arguments, got " +
                           std::to_string(positional_count));
          if (!positional && sig->find(a.name) < 0) fail(a.at, n.op + ": has no argument '" + a.name + "'");
        }
        if (int i = fs ? fs->find(a.name) : -1; i >= 0) {
          const schema::Argument& arg = fs->args[static_cast<std::size_t>(i)];
          if (!schema::value_fits(arg.type, a.value)) fail(a.at, schema::misfit_message(n.op, arg.name, arg.type, a.value));
        }
        if (writer_tag(fs, a.name, a.value) != a.tag) {
          if (!overrides.empty()) overrides += ',';
          overrides += a.name + '=' + a.tag;
        }
        if (positional) {
          if (!spec.kwargs.empty()) fail(a.at, "positional input '" + a.name + "' after a keyword input");
          spec.args.push_back(std::move(a.value));
          if (!positional_names.empty()) positional_names += ',';
          positional_names += a.name;
        } else {
          spec.kwargs.push_back(Kwarg{a.name, std::move(a.value)});
        }
      }
      NodeId id = create(g, std::move(spec), n.at);
      Node& node = g[id];
      node.edit_annotations() = std::move(n.annotations);
      if (!overrides.empty()) node.edit_annotations().push_back(Annotation{std::string(key_input_tags), std::move(overrides)});
      if (!node.signature() && !positional_names.empty())
        node.edit_annotations().push_back(Annotation{std::string(key_arg_names), std::move(positional_names)});
      const std::string node_name(node.name());  // `node` may move as the graph grows
      bind(node_name, id);
      // An op of several returns has that many output slots: a getitem of each (the FX reader
      // holds getitems to the same count).
      if (fs && fs->num_returns > 1 && !n.slots.empty() && n.slots.size() != fs->num_returns)
        fail(n.slot_at[0], n.op + ": " + std::to_string(n.slots.size()) + " outputs listed, but the op has " +
                               std::to_string(fs->num_returns));
      for (std::size_t i = 0; i < n.slots.size(); ++i) {
        if (is_unused_slot(node_name, n.slots[i], i)) {
          unused_parent_.emplace(n.slots[i], id);
          continue;
        }
        if (g.find(n.slots[i]) != no_node) fail(n.slot_at[i], "duplicate node name '" + n.slots[i] + "'");
        NodeId gi = create(g,
                           NodeSpec{NodeKind::CallFunction, getitem, n.slots[i], {},
                                    {Value(NodeRef{id}), Value(static_cast<std::int64_t>(i))}, {}},
                           n.slot_at[i]);
        bind(n.slots[i], gi);
      }
    }
    // The output node.
    std::vector<Value> results;
    std::string overrides;
    std::size_t k = 0;
    for (ArgRec& a : outputs_) {
      resolve(a.value, output_refs_, k);
      if (default_tag(a.value) != a.tag) {
        if (!overrides.empty()) overrides += ',';
        overrides += a.name + '=' + a.tag;
      }
      results.push_back(std::move(a.value));
    }
    if (g.find("output") != no_node) fail(base_, "a node is named 'output', the name of the graph's output node");
    NodeId out = create(g, NodeSpec{NodeKind::Output, no_op, "output", "output", {Value::tuple(std::move(results))}, {}}, base_);
    if (!overrides.empty()) g[out].edit_annotations().push_back(Annotation{std::string(key_input_tags), std::move(overrides)});
    // Tensor metadata.
    std::string orphans;
    for (TensorValueRec& t : tensor_values_) {
      NodeId id = g.find(t.name);
      if (id != no_node && g[id].kind() != NodeKind::Output) {
        Node& node = g[id];
        if (node.meta().dtype) fail(t.at, "duplicate tensor value '" + t.name + "'");
        node.edit_meta() = std::move(t.meta);
        if (!t.extras.empty()) node.edit_annotations().push_back(Annotation{std::string(key_tensor_meta), std::move(t.extras)});
        continue;
      }
      std::string member;
      append_json_string(member, t.name);
      member += ": ";
      append_tensor_value(member, t);
      auto parent = unused_parent_.find(t.name);
      std::vector<Annotation>& to = parent != unused_parent_.end() ? g[parent->second].edit_annotations() : orphan_target_;
      std::string_view key = parent != unused_parent_.end() ? key_unused_tensor_values : key_orphan_tensor_values;
      auto it = std::find_if(to.begin(), to.end(), [&](const Annotation& a) { return a.key == key; });
      if (it == to.end()) {
        to.push_back(Annotation{std::string(key), std::move(member)});
      } else {
        if (it->value.find(member.substr(0, member.find(": ") + 2)) != std::string::npos)
          fail(t.at, "duplicate tensor value '" + t.name + "'");
        it->value += ", " + member;
      }
    }
    g.annotations = std::move(graph_annotations_);
    for (Annotation& a : orphan_target_) g.annotations.push_back(std::move(a));
    g.reserve(Graph::room_for(g.id_bound()));
    return g;
  }

  static void append_tensor_value(std::string& out, const TensorValueRec& t) {
    append_tensor_meta(out, t.meta, t.extras);  // read from JSON: every field has a serde form
  }

  std::vector<NodeId> resolved_;
  std::unordered_map<std::string, NodeId> unused_parent_;
};

}  // namespace export_json::detail

/// Reads a torch.export `exported_program` JSON document. `file` names the input in errors.
/// Throws ParseError (`FILE:LINE:COL: error: ...`) on malformed input.
inline Graph read_export_json(std::string_view text, std::string file = "<input>") {
  return export_json::detail::Reader(text, std::move(file)).read();
}

}  // namespace ctmatch::io
