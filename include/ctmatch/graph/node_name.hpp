#pragma once
// What a node may be called. FX names are Python identifiers (FX text refers to nodes by bare
// name in the returned value, and generated code binds them as variables), and a keyword such
// as `None` or `True` would read back as the literal. Both readers refuse other names, and
// Graph::create too, so that every graph ctmatch holds can be written and read back.
#include <cstdio>
#include <initializer_list>
#include <string>
#include <string_view>

namespace ctmatch {

/// Whether `s` is one of Python's keywords (`keyword.kwlist`): never a node name. By length
/// first, so that a name costs a compare or two (a pass names every node it creates).
constexpr bool is_python_keyword(std::string_view s) {
  auto any = [&](std::initializer_list<std::string_view> ks) {
    for (std::string_view k : ks)
      if (s == k) return true;
    return false;
  };
  switch (s.size()) {
    case 2: return any({"as", "if", "in", "is", "or"});
    case 3: return any({"and", "def", "del", "for", "not", "try"});
    case 4: return any({"None", "True", "elif", "else", "from", "pass", "with"});
    case 5: return any({"False", "async", "await", "break", "class", "raise", "while", "yield"});
    case 6: return any({"assert", "except", "global", "import", "lambda", "return"});
    case 7: return s == "finally";
    case 8: return any({"continue", "nonlocal"});
    default: return false;
  }
}

/// Whether `s` is an ASCII Python identifier: [A-Za-z_][A-Za-z0-9_]* (an argument's name, which
/// a schema may spell like a keyword: `random_.from(Tensor self, int from, ...)`).
namespace detail {
struct IdentifierChars {
  bool in[256] = {};
  constexpr IdentifierChars() {
    for (int c = 'a'; c <= 'z'; ++c) in[c] = true;
    for (int c = 'A'; c <= 'Z'; ++c) in[c] = true;
    for (int c = '0'; c <= '9'; ++c) in[c] = true;
    in[static_cast<unsigned char>('_')] = true;
  }
};
inline constexpr IdentifierChars identifier_chars{};
}  // namespace detail

constexpr bool is_identifier(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  bool ok = true;  // no early exit: names are short, and a branch-free loop is cheaper
  for (char c : s) ok &= detail::identifier_chars.in[static_cast<unsigned char>(c)];
  return ok;
}

/// Whether `s` is an ASCII Python identifier that is not a keyword.
constexpr bool is_node_name(std::string_view s) { return is_identifier(s) && !is_python_keyword(s); }

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

/// Why `name` is refused as a node name (the one wording of the graph and both readers).
inline std::string invalid_node_name_message(std::string_view name) {
  return "invalid node name " + quoted_name(name) + ": a node name is a Python identifier (ASCII) that is not a keyword";
}

}  // namespace ctmatch
