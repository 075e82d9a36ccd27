#pragma once
// The FX text writer: prints a Graph exactly as `str(torch.fx.Graph)` prints it, so that a
// graph read from FX text is written back byte for byte, and a graph built or rewritten in
// C++ can be diffed against what PyTorch prints.
#include <string>
#include <string_view>

#include "../graph/graph.hpp"
#include "../graph/value_print.hpp"
#include "fx_syntax.hpp"

namespace ctmatch::io {

namespace fx::detail {

inline std::string_view annotation(const std::vector<Annotation>& as, std::string_view key) {
  for (const Annotation& a : as)
    if (a.key == key) return a.value;
  return {};
}

/// A string in a `str` slot prints bare (as FX prints it) where the reader's word in that
/// slot (scan_str_word) is the whole string: no control character, no bracket left open or
/// closed too often, no comma that would end the word (a last one would: a separator follows).
inline bool bare_in_str_slot(std::string_view s) {
  if (s.empty() || s == "None" || s.front() == ' ' || s.back() == ' ' || s.front() == '\'' ||
      s.front() == '"' || s.front() == '%' || s.front() == '(' || s.front() == '[' || s.front() == '{')
    return false;
  for (char c : s)
    if (static_cast<unsigned char>(c) < 0x20) return false;
  const StrWord w = scan_str_word(s);
  return w.end == s.size() && w.open == 0;
}

/// Appends an argument, printing strings bare where the schema says the slot is a `str`.
inline void append_arg(std::string& out, const Value& v, const Graph& g, SlotHint hint) {
  if (hint == SlotHint::Str) {
    if (auto* s = v.get_if<std::string>(); s && bare_in_str_slot(*s)) {
      out += *s;
      return;
    }
    if (auto* l = v.get_if<List>()) {
      out += l->tuple ? '(' : '[';
      for (std::size_t i = 0; i < l->items.size(); ++i) {
        if (i) out += ", ";
        append_arg(out, l->items[i], g, hint);
      }
      if (l->tuple && l->items.size() == 1) out += ',';
      out += l->tuple ? ')' : ']';
      return;
    }
  }
  append_value(out, v, &g, ValueStyle::Args);
}

/// `users_key`: "[num_users=" (torch 2.1 on) or "[#users=", as the graph was read.
inline void append_node(std::string& out, const Graph& g, const Node& n, std::string_view users_key) {
  if (n.kind() == NodeKind::Output) {
    out += "return ";
    if (n.args().empty()) {
      out += "None";
    } else {
      append_value(out, n.args()[0], &g, ValueStyle::Repr);
    }
    return;
  }
  out += '%';
  out += n.name();
  out += " : ";
  if (std::string_view t = annotation(n.annotations(), "fx.type"); !t.empty()) {
    out += t;
    out += ' ';
  }
  out += users_key;
  out += std::to_string(n.num_users());
  out += "] = ";
  out += kind_name(n.kind());
  out += "[target=";
  if (n.kind() == NodeKind::CallFunction && n.target().empty())
    append_target(out, op_name(n.op()));
  else
    out += n.target();
  out += ']';
  if (n.kind() == NodeKind::Placeholder) {
    if (!n.args().empty()) {
      // FX prints str(default): a string bare, anything else as Python's repr.
      out += "(default=";
      if (auto* s = n.args()[0].get_if<std::string>(); s && !bare_string_is_ambiguous(*s))
        out += *s;
      else
        append_value(out, n.args()[0], &g, ValueStyle::Repr);
      out += ')';
    }
    return;
  }
  if (n.kind() == NodeKind::GetAttr) return;
  const schema::FunctionSchema* sch = n.kind() == NodeKind::CallFunction ? schema_of(n.op()) : nullptr;
  out += "(args = (";
  auto args = n.args();
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (i) out += ", ";
    append_arg(out, args[i], g, positional_hint(sch, i));
  }
  if (args.size() == 1) out += ',';
  out += "), kwargs = {";
  auto kwargs = n.kwargs();
  for (std::size_t i = 0; i < kwargs.size(); ++i) {
    if (i) out += ", ";
    out += kwargs[i].name;
    out += ": ";
    append_arg(out, kwargs[i].value, g, keyword_hint(sch, kwargs[i].name));
  }
  out += "})";
}

}  // namespace fx::detail

/// The graph as `str(torch.fx.Graph)` prints it (no trailing newline, like FX).
inline std::string write_fx_text(const Graph& g) {
  fx::ensure_schemas();
  std::string out;
  out.reserve(64 + g.size() * 128);
  out += "graph()";
  if (std::string_view t = fx::detail::annotation(g.annotations, "fx.return_type"); !t.empty()) {
    out += " -> ";
    out += t;
  }
  out += ':';
  std::string_view users_key = fx::detail::annotation(g.annotations, "fx.users_key");
  if (users_key.empty()) users_key = "[num_users=";
  for (const Node& n : g.nodes()) {
    out += "\n    ";
    fx::detail::append_node(out, g, n, users_key);
  }
  return out;
}

}  // namespace ctmatch::io
