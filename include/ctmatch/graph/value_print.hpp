#pragma once
// Printing a Value the way PyTorch FX prints it, so that messages, explanations and the FX
// text writer all show arguments in the one syntax a PyTorch user already reads:
// `torch.float32`, `%mm`, `cuda:0`, `[1, 2]`, `(%a, %b)`, `1e-05`, `tanh`.
//
// FX has two spellings of a value, and both are here:
// - ValueStyle::Args, as `args = (...)` and `kwargs = {...}` print (torch.fx.node._format_arg):
//   node references are `%name`, strings are bare (`str(x)`, no quotes).
// - ValueStyle::Repr, as the `return` line prints (Python's repr of the output tuple): node
//   references are bare names, strings are quoted.
// Floats print as Python's repr does (shortest round-trip digits, `1e-05`, `1.0`, `inf`).
#include <charconv>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>

#include "device.hpp"
#include "graph.hpp"
#include "layout.hpp"
#include "scalar_type.hpp"
#include "value.hpp"

namespace ctmatch {

enum class ValueStyle : std::uint8_t { Args, Repr };

/// Appends `d` as Python's repr(float) spells it: `0.5`, `1.0`, `1e-05`, `-3.4028234663852886e+38`,
/// `inf`, `-inf`, `nan`. The digits are the shortest that read back to the same double.
inline void append_python_float(std::string& out, double d) {
  if (d != d) {
    out += "nan";
    return;
  }
  if (d == std::numeric_limits<double>::infinity()) {
    out += "inf";
    return;
  }
  if (d == -std::numeric_limits<double>::infinity()) {
    out += "-inf";
    return;
  }
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<std::size_t>(res.ptr - buf));  // -d.ddde+XX
  bool negative = !sci.empty() && sci[0] == '-';
  if (negative) sci.remove_prefix(1);
  auto e_pos = sci.find('e');
  std::string_view mant = sci.substr(0, e_pos);
  int exp10 = 0;
  std::string_view exp_text = sci.substr(e_pos + 1);
  if (!exp_text.empty() && exp_text[0] == '+') exp_text.remove_prefix(1);
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exp10);
  char digits[32];
  std::size_t nd = 0;
  for (char c : mant)
    if (c != '.' && nd < sizeof digits) digits[nd++] = c;
  if (negative) out += '-';
  // Python's repr switches to exponent notation below 1e-4 and from 1e16 on.
  if (exp10 < -4 || exp10 >= 16) {
    out += digits[0];
    if (nd > 1) {
      out += '.';
      out.append(digits + 1, nd - 1);
    }
    out += 'e';
    out += exp10 < 0 ? '-' : '+';
    int a = exp10 < 0 ? -exp10 : exp10;
    if (a < 10) out += '0';
    out += std::to_string(a);
    return;
  }
  int decpt = exp10 + 1;  // digits before the decimal point
  if (decpt <= 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-decpt), '0');
    out.append(digits, nd);
  } else if (static_cast<std::size_t>(decpt) < nd) {
    out.append(digits, static_cast<std::size_t>(decpt));
    out += '.';
    out.append(digits + decpt, nd - static_cast<std::size_t>(decpt));
  } else {
    out.append(digits, nd);
    out.append(static_cast<std::size_t>(decpt) - nd, '0');
    out += ".0";
  }
}

/// Appends `s` as Python's repr(str) spells it: single quotes unless the text holds a single
/// quote and no double quote; backslash escapes for the quote, `\\`, `\n`, `\r`, `\t` and other
/// control characters. Other characters (UTF-8 included) are kept as they are.
inline void append_python_repr(std::string& out, std::string_view s) {
  char q = (s.find('\'') != std::string_view::npos && s.find('"') == std::string_view::npos) ? '"' : '\'';
  out += q;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == q || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      constexpr char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += c;
    }
  }
  out += q;
}

/// Whether FX's bare spelling of the string `s` (as args and kwargs print strings) would read
/// back as something else: a number, None/True/False, a torch constant, a device, a node
/// reference, a quoted string, an empty element, or text that holds a delimiter. Such strings
/// are written quoted (Python repr) so that reading gives back the same string.
inline bool bare_string_is_ambiguous(std::string_view s) {
  if (s.empty()) return true;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == ',' || c == '(' || c == ')' || c == '[' || c == ']' || c == '{' || c == '}' || u < 0x20 ||
        u == 0x7f)
      return true;
  }
  char f = s.front();
  if (f == ' ' || s.back() == ' ' || f == '%' || f == '\'' || f == '"' || f == '-' || f == '+' ||
      f == '.' || (f >= '0' && f <= '9'))
    return true;
  if (s == "None" || s == "True" || s == "False" || s == "inf" || s == "nan") return true;
  if (s.substr(0, 6) == "torch.") return true;
  return parse_device(s).has_value();
}

/// Appends `v` in FX syntax. `g` names node references; without it they print as `%#ID`.
inline void append_value(std::string& out, const Value& v, const Graph* g = nullptr,
                         ValueStyle style = ValueStyle::Args) {
  switch (v.kind()) {
    case Value::Kind::None: out += "None"; return;
    case Value::Kind::Bool: out += *v.get_if<bool>() ? "True" : "False"; return;
    case Value::Kind::Int: {
      char buf[24];
      auto r = std::to_chars(buf, buf + sizeof buf, *v.get_if<std::int64_t>());
      out.append(buf, r.ptr);
      return;
    }
    case Value::Kind::Double: append_python_float(out, *v.get_if<double>()); return;
    case Value::Kind::String: {
      const std::string& s = *v.get_if<std::string>();
      if (style == ValueStyle::Args && !bare_string_is_ambiguous(s))
        out += s;
      else
        append_python_repr(out, s);
      return;
    }
    case Value::Kind::ScalarType:
      out += "torch.";
      out += torch_name(*v.get_if<ScalarType>());
      return;
    case Value::Kind::Device: out += to_string(*v.get_if<Device>()); return;
    case Value::Kind::Layout:
      out += "torch.";
      out += torch_name(*v.get_if<Layout>());
      return;
    case Value::Kind::MemoryFormat:
      out += "torch.";
      out += torch_name(*v.get_if<MemoryFormat>());
      return;
    case Value::Kind::Node: {
      NodeId id = v.node();
      if (style == ValueStyle::Args) out += '%';
      if (g && id < g->id_bound()) {
        out += (*g)[id].name();
      } else {
        if (style == ValueStyle::Repr) out += '%';
        out += '#';
        out += std::to_string(id);
      }
      return;
    }
    case Value::Kind::SymInt: out += v.get_if<SymInt>()->expr; return;
    case Value::Kind::List: {
      const List& l = *v.get_if<List>();
      out += l.tuple ? '(' : '[';
      for (std::size_t i = 0; i < l.items.size(); ++i) {
        if (i) out += ", ";
        append_value(out, l.items[i], g, style);
      }
      if (l.tuple && l.items.size() == 1) out += ',';
      out += l.tuple ? ')' : ']';
      return;
    }
  }
}

/// `v` in FX syntax, as args print it: `torch.float32`, `%mm` (with a graph), `cuda:0`, `[1, 2]`.
inline std::string to_string(const Value& v, const Graph* g = nullptr) {
  std::string s;
  append_value(s, v, g, ValueStyle::Args);
  return s;
}

}  // namespace ctmatch
