#pragma once
// Graphviz DOT output of a graph: one box per node (its name and what it computes), an edge
// from each input to its user, labelled with where the input goes when that is not obvious.
// Nodes in `highlight` are filled, so a rewrite pass can show what it changed:
//   ctmatch-opt model.fx.txt --emit dot | dot -Tsvg > model.svg
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "../graph/graph.hpp"
#include "../graph/value_print.hpp"

namespace ctmatch::io {

namespace dot::detail {

/// Appends `s` escaped for a DOT double-quoted string.
inline void append_escaped(std::string& out, std::string_view s) {
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
}

/// What the node computes, for its label: the op, the target, or the node kind.
inline std::string what(const Node& n) {
  switch (n.kind()) {
    case NodeKind::CallFunction: return std::string(op_name(n.op()));
    case NodeKind::Placeholder: return "placeholder";
    case NodeKind::Output: return "output";
    default: return std::string(kind_name(n.kind())) + " " + n.target();
  }
}

}  // namespace dot::detail

/// The graph in Graphviz DOT. Node ids are stable (`n<id>`), so two outputs of the same graph
/// before and after a pass can be compared.
inline std::string write_dot(const Graph& g, const std::unordered_set<NodeId>& highlight = {}) {
  using dot::detail::append_escaped;
  std::string out;
  out.reserve(128 + g.size() * 96);
  out += "digraph G {\n";
  out += "  node [shape=box, fontname=\"monospace\"];\n";
  for (const Node& n : g.nodes()) {
    out += "  n" + std::to_string(n.id()) + " [label=\"";
    append_escaped(out, n.name());
    out += "\\n";
    append_escaped(out, dot::detail::what(n));
    out += '"';
    if (n.kind() == NodeKind::Placeholder || n.kind() == NodeKind::GetAttr) out += ", shape=ellipse";
    if (n.kind() == NodeKind::Output) out += ", shape=doubleoctagon";
    if (highlight.count(n.id())) out += ", style=filled, fillcolor=\"#ffd54f\"";
    out += "];\n";
  }
  for (const Node& n : g.nodes()) {
    // One edge per distinct input, in the order the node uses them.
    std::vector<NodeId> inputs;
    auto add = [&](NodeId in) {
      for (NodeId seen : inputs)
        if (seen == in) return;
      inputs.push_back(in);
    };
    for (const Value& v : n.args()) v.for_each_node(add);
    for (const Kwarg& k : n.kwargs()) k.value.for_each_node(add);
    for (NodeId in : inputs) out += "  n" + std::to_string(in) + " -> n" + std::to_string(n.id()) + ";\n";
  }
  out += "}\n";
  return out;
}

}  // namespace ctmatch::io
