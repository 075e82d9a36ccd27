#pragma once
// What a node may be called. FX names are Python identifiers (FX text refers to nodes by bare
// name in the returned value, and generated code binds them as variables), and a keyword such
// as `None` or `True` would read back as the literal. Both readers refuse other names, and
// Graph::create too, so that every graph ctmatch holds can be written and read back.
#include <cstdio>
#include <string>
#include <string_view>

namespace ctmatch {

/// Python's keywords (`keyword.kwlist`): never a node name.
inline constexpr std::string_view python_keywords[] = {
    "False", "None",   "True",    "and",      "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",      "elif", "else",   "except", "finally",  "for",
    "from",  "global", "if",      "import",   "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",   "raise",   "return",   "try",  "while",  "with",   "yield"};

/// Whether `s` is an ASCII Python identifier: [A-Za-z_][A-Za-z0-9_]* (an argument's name, which
/// a schema may spell like a keyword: `random_.from(Tensor self, int from, ...)`).
constexpr bool is_identifier(std::string_view s) {
  if (s.empty()) return false;
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!letter(s[0])) return false;
  for (char c : s)
    if (!letter(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}

/// Whether `s` is an ASCII Python identifier that is not a keyword.
constexpr bool is_node_name(std::string_view s) {
  if (!is_identifier(s)) return false;
  for (std::string_view k : python_keywords)
    if (s == k) return false;
  return true;
}

/// `s` quoted for an error message, its control and non-ASCII bytes as `\xHH`, so that a
/// message about a bad name stays one printable line.
inline std::string quoted_name(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f || c == '\\' || c == '\'') {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace ctmatch
