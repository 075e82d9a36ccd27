#pragma once
// parse_schema: PyTorch schema text -> FunctionSchema, in a constant expression or at run time.
//
//   constexpr auto r = ctmatch::schema::parse_schema(
//       "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
//   static_assert(r.ok && r.schema.num_args == 3);
//
// One parser serves both worlds: patterns declare ops from schema strings as template
// arguments (and static_assert on `ok`, or on diagnose.hpp's schema_ok<&parsed>() for a
// message that names the error), and the schema table is parsed once at run time.
// It is a flat loop over the characters (no recursion, no allocation), so that a pattern
// translation unit with a hundred ops still compiles in seconds (about 2 ms per schema with
// g++, 5 000 to 10 000 constant-evaluation steps in clang; benchmarks/RESULTS.md).
//
// The language is torch's (torch/csrc/jit/frontend/function_schema_parser.cpp):
//   schema   := NS '::' NAME ['.' OVERLOAD] '(' [arg {',' arg}] ')' '->' returns
//   arg      := '*' | type NAME ['=' default]          ('*': the arguments after it are keyword-only)
//   type     := BASE [alias] ['?'] ['[' [N] ']' [alias] ['?']]
//   alias    := '(' set ['!'] ['->' set] ')'           (`Tensor(a)`, `Tensor(a!)`, `Tensor(a -> *)`)
//   returns  := type | '(' [type [NAME] {',' type [NAME]}] ')'
//   default  := int | float | True | False | None | 'str' | "str" | NAME | '[' [default {',' default}] ']'
// Defaults are checked against their argument's type (a `bool` takes True/False, a `ScalarType`
// takes a dtype name such as `long`, `None` needs an optional type, ...), so that a typo in a
// pattern's schema is a compile error, not a surprise at match time.
// Errors give the offset of the offending character and a short message.
// Not supported, because no operator of an exported graph uses them: TorchScript-only types
// (`Dict(str, Tensor)`, `Future(t)`, type variables `t`), varargs `...`, nested list types,
// and a schema without a namespace.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "../graph/layout.hpp"
#include "../graph/scalar_type.hpp"
#include "function_schema.hpp"

namespace ctmatch::schema {

namespace detail {

constexpr bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
constexpr bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

/// What a default value (or one element of a list default) is, lexically.
enum class DefaultKind : std::uint8_t { Int, Float, True, False, None, String, Name };

class SchemaParser {
 public:
  constexpr explicit SchemaParser(std::string_view text) : s_(text) {}

  constexpr ParseResult run() {
    if (parse_all()) r_.ok = true;
    return r_;
  }

 private:
  std::string_view s_;
  std::size_t i_ = 0;
  ParseResult r_{};

  // ---- low-level scanning -------------------------------------------------------------
  constexpr char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  constexpr char peek_at(std::size_t k) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }
  constexpr bool at_end() const { return i_ >= s_.size(); }
  constexpr void skip_ws() {
    while (i_ < s_.size() && is_space(s_[i_])) ++i_;
  }
  constexpr bool accept(char c) {
    if (peek() != c) return false;
    ++i_;
    return true;
  }
  /// An identifier at the cursor (no leading blanks skipped), or empty.
  constexpr std::string_view ident() {
    std::size_t start = i_;
    if (!is_ident_start(peek())) return {};
    while (is_ident_char(peek())) ++i_;
    return s_.substr(start, i_ - start);
  }
  constexpr bool fail(std::string_view msg) { return fail_at(i_, msg); }
  constexpr bool fail_at(std::size_t pos, std::string_view msg) {
    r_.ok = false;
    r_.error_pos = pos < s_.size() ? pos : s_.size();
    r_.error = msg;
    return false;
  }

  // ---- grammar ----------------------------------------------------------------------
  constexpr bool parse_all() {
    FunctionSchema& f = r_.schema;
    skip_ws();
    f.ns = ident();
    if (f.ns.empty()) return fail("expected the operator's namespace (`aten::...`)");
    if (!(peek() == ':' && peek_at(1) == ':')) return fail("expected '::' after the namespace");
    i_ += 2;
    f.name = ident();
    if (f.name.empty()) return fail("expected the operator name after '::'");
    if (accept('.')) {
      f.overload = ident();
      if (f.overload.empty()) return fail("expected an overload name after '.'");
    }
    skip_ws();
    if (!accept('(')) return fail("expected '(' after the operator name");
    if (!parse_arguments()) return false;
    skip_ws();
    if (!(peek() == '-' && peek_at(1) == '>')) return fail("expected '->' after the arguments");
    i_ += 2;
    skip_ws();
    if (!parse_returns()) return false;
    skip_ws();
    if (!at_end()) return fail("unexpected text after the returns");
    return true;
  }

  constexpr bool parse_arguments() {
    FunctionSchema& f = r_.schema;
    bool kwarg_only = false;
    skip_ws();
    if (accept(')')) return true;
    while (true) {
      skip_ws();
      if (peek() == '*') {
        if (kwarg_only) return fail("'*' given twice");
        ++i_;
        kwarg_only = true;
        skip_ws();
        if (!accept(',')) return fail("expected ',' and keyword-only arguments after '*'");
        continue;
      }
      if (f.num_args == max_arguments) return fail("too many arguments (at most 32)");
      Argument a;
      a.kwarg_only = kwarg_only;
      if (!parse_type(a.type, a.alias, a.is_write)) return false;
      skip_ws();
      std::size_t name_pos = i_;
      a.name = ident();
      if (a.name.empty()) return fail("expected an argument name after the type");
      if (f.find(a.name) >= 0) return fail_at(name_pos, "duplicate argument name");
      skip_ws();
      if (accept('=')) {
        skip_ws();
        if (!parse_default(a)) return false;
      }
      f.args[f.num_args++] = a;
      skip_ws();
      if (accept(',')) continue;
      if (accept(')')) return true;
      return fail("expected ',' or ')' after an argument");
    }
  }

  constexpr bool parse_returns() {
    if (!accept('(')) return parse_return(false);
    skip_ws();
    if (accept(')')) return true;  // `-> ()`
    while (true) {
      skip_ws();
      if (!parse_return(true)) return false;
      skip_ws();
      if (accept(',')) continue;
      if (accept(')')) return true;
      return fail("expected ',' or ')' after a return");
    }
  }

  constexpr bool parse_return(bool may_be_named) {
    FunctionSchema& f = r_.schema;
    if (f.num_returns == max_returns) return fail("too many returns (at most 8)");
    Argument a;
    if (!parse_type(a.type, a.alias, a.is_write)) return false;
    if (may_be_named) {
      skip_ws();
      a.name = ident();
    }
    f.returns[f.num_returns++] = a;
    return true;
  }

  constexpr bool parse_type(Type& t, std::string_view& alias, bool& is_write) {
    skip_ws();
    std::size_t pos = i_;
    std::string_view name = ident();
    if (name.empty()) return fail("expected a type");
    bool known = false;
    for (std::size_t k = 0; k < base_type_count; ++k)
      if (base_type_name(static_cast<BaseType>(k)) == name) {
        t.base = static_cast<BaseType>(k);
        known = true;
        break;
      }
    if (!known) return fail_at(pos, "unknown type");
    if (peek() == '(' && !parse_alias(alias, is_write)) return false;
    while (true) {
      if (peek() == '?') {
        if (t.optional) return fail("'?' given twice");
        ++i_;
        t.optional = true;
      } else if (peek() == '[') {
        if (t.list) return fail("lists of lists are not part of the schema language");
        ++i_;
        if (is_digit(peek())) {
          int n = 0;
          while (is_digit(peek())) {
            if (n > 9999) return fail("list size too large");
            n = n * 10 + (s_[i_] - '0');
            ++i_;
          }
          t.list_size = n;
        }
        if (!accept(']')) return fail("expected ']' (or a size, `int[2]`) after '['");
        t.list = true;
        t.elem_optional = t.optional;  // `Tensor?[]`: the '?' so far was the element's
        t.optional = false;
        if (peek() == '(' && !parse_alias(alias, is_write)) return false;
      } else {
        return true;
      }
    }
  }

  /// `(a)`, `(a!)`, `(a -> *)`, `(a|b)`: keeps the first name of the set and whether it is written.
  constexpr bool parse_alias(std::string_view& alias, bool& is_write) {
    ++i_;  // '('
    skip_ws();
    bool first_set = true;
    while (true) {
      skip_ws();
      std::string_view n;
      if (peek() == '*') {
        n = s_.substr(i_, 1);
        ++i_;
      } else {
        n = ident();
      }
      if (n.empty()) return fail("expected an alias name (`a`, `*`)");
      if (first_set && alias.empty()) alias = n;
      skip_ws();
      if (accept('|')) continue;
      if (first_set && accept('!')) {
        is_write = true;
        skip_ws();
      }
      if (first_set && peek() == '-' && peek_at(1) == '>') {
        i_ += 2;
        first_set = false;
        continue;
      }
      if (accept(')')) return true;
      return fail("expected ')' to close the alias annotation");
    }
  }

  // ---- defaults ---------------------------------------------------------------------
  /// Scans one scalar default at the cursor and says what it is.
  constexpr bool scan_scalar(DefaultKind& kind, std::string_view& text) {
    std::size_t start = i_;
    char c = peek();
    if (c == '\'' || c == '"') {
      ++i_;
      while (!at_end() && s_[i_] != c) {
        if (s_[i_] == '\\') ++i_;
        ++i_;
      }
      if (at_end()) return fail_at(start, "unterminated string default");
      ++i_;
      kind = DefaultKind::String;
    } else if (is_digit(c) || c == '-' || c == '+' || c == '.') {
      if (c == '-' || c == '+') ++i_;
      if (is_ident_start(peek())) {  // -inf
        std::string_view n = ident();
        if (n != "inf") return fail_at(start, "expected a number after the sign");
        kind = DefaultKind::Float;
        text = s_.substr(start, i_ - start);
        return true;
      }
      bool digits = false, is_float = false;
      std::uint64_t v = 0;
      bool overflow = false;
      while (is_digit(peek())) {
        std::uint64_t d = static_cast<std::uint64_t>(s_[i_] - '0');
        if (v > (UINT64_MAX - d) / 10) overflow = true;
        v = v * 10 + d;
        digits = true;
        ++i_;
      }
      if (peek() == '.') {
        is_float = true;
        ++i_;
        while (is_digit(peek())) {
          digits = true;
          ++i_;
        }
      }
      if (!digits) return fail_at(start, "expected a number");
      if (peek() == 'e' || peek() == 'E') {
        is_float = true;
        ++i_;
        if (peek() == '-' || peek() == '+') ++i_;
        if (!is_digit(peek())) return fail("expected the exponent's digits");
        while (is_digit(peek())) ++i_;
      }
      if (is_ident_char(peek())) return fail("unexpected character in a number");
      if (!is_float && (overflow || v > (c == '-' ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1)))
        return fail_at(start, "integer default out of range");
      kind = is_float ? DefaultKind::Float : DefaultKind::Int;
    } else if (is_ident_start(c)) {
      std::string_view n = ident();
      kind = n == "True"    ? DefaultKind::True
             : n == "False" ? DefaultKind::False
             : n == "None"  ? DefaultKind::None
                            : DefaultKind::Name;
    } else {
      return fail("expected a default value");
    }
    text = s_.substr(start, i_ - start);
    return true;
  }

  /// Parses `= default` (cursor after '=') into a.default_text, checking it fits a.type.
  constexpr bool parse_default(Argument& a) {
    std::size_t start = i_, end = i_;
    int depth = 0;
    bool expect_value = true;
    bool is_list_literal = peek() == '[';
    DefaultKind top_kind = DefaultKind::Int;  // of a default that is not a list literal
    while (true) {
      skip_ws();
      if (expect_value) {
        if (peek() == '[') {
          if (depth > 0) return fail("nested lists are not valid defaults");
          ++depth;
          ++i_;
          skip_ws();
          if (accept(']')) {
            --depth;
            expect_value = false;
            end = i_;
          }
          continue;
        }
        std::size_t pos = i_;
        DefaultKind kind{};
        std::string_view text;
        if (!scan_scalar(kind, text)) return false;
        if (!check_default(a.type, kind, text, depth > 0, pos)) return false;
        if (depth == 0) top_kind = kind;
        expect_value = false;
        end = i_;
        continue;
      }
      if (depth == 0) break;
      if (accept(',')) {
        expect_value = true;
        continue;
      }
      if (accept(']')) {
        --depth;
        end = i_;
        continue;
      }
      return fail("expected ',' or ']' in the list default");
    }
    if (is_list_literal && !a.type.list) return fail_at(start, "a list default needs a list type");
    if (!is_list_literal && a.type.list) {
      // `int[2] stride=1`: torch broadcasts a single value to the list's size; a `None` default
      // of an optional list is fine too.
      if (top_kind != DefaultKind::None && a.type.list_size < 0)
        return fail_at(start, "a single value as a list default needs a sized list (`int[2]`)");
    }
    a.has_default = true;
    a.default_text = s_.substr(start, end - start);
    return true;
  }

  /// Whether a scalar default of `kind` fits `t`'s element type; `in_list` when it is an
  /// element of a list literal (then `None` needs optional elements, `Tensor?[]`).
  constexpr bool check_default(const Type& t, DefaultKind kind, std::string_view text, bool in_list,
                               std::size_t pos) {
    if (kind == DefaultKind::None) {
      if (in_list ? t.elem_optional : t.optional) return true;
      return fail_at(pos, "None is a default only for an optional type (`int?`)");
    }
    bool is_bool = kind == DefaultKind::True || kind == DefaultKind::False;
    bool is_number = kind == DefaultKind::Int || kind == DefaultKind::Float;
    switch (t.base) {
      case BaseType::Bool:
      case BaseType::SymBool:
        if (is_bool) return true;
        return fail_at(pos, "a bool default must be True or False");
      case BaseType::Int:
      case BaseType::SymInt:
        if (kind == DefaultKind::Int) return true;
        // at::Reduction names (`int reduction=Mean`)
        if (kind == DefaultKind::Name && (text == "Mean" || text == "Sum")) return true;
        return fail_at(pos, "an int default must be an integer");
      case BaseType::Float:
      case BaseType::SymFloat:
        if (is_number) return true;
        if (kind == DefaultKind::Name && (text == "inf" || text == "nan")) return true;
        return fail_at(pos, "a float default must be a number");
      case BaseType::Scalar:
        if (is_number || is_bool) return true;
        return fail_at(pos, "a Scalar default must be a number or a bool");
      case BaseType::Str:
        if (kind == DefaultKind::String) return true;
        return fail_at(pos, "a str default must be quoted ('none')");
      case BaseType::ScalarType:
        if (kind == DefaultKind::Name && parse_scalar_type(text)) return true;
        return fail_at(pos, "a ScalarType default must be a dtype name (`long`, `float32`)");
      case BaseType::Layout:
        if (kind == DefaultKind::Name && parse_layout(text)) return true;
        return fail_at(pos, "a Layout default must be a layout name (`strided`)");
      case BaseType::MemoryFormat:
        if (kind == DefaultKind::Name && parse_memory_format(text)) return true;
        return fail_at(pos, "a MemoryFormat default must be a memory format (`contiguous_format`)");
      case BaseType::Device:
        if (kind == DefaultKind::String || kind == DefaultKind::Name) return true;
        return fail_at(pos, "a Device default must be a device name ('cpu')");
      case BaseType::QScheme:
      case BaseType::Dimname:
        if (kind == DefaultKind::Name || kind == DefaultKind::String) return true;
        return fail_at(pos, "expected a name as default");
      case BaseType::Any:
        return true;
      default:
        return fail_at(pos, "this type takes no default other than None");
    }
  }
};

}  // namespace detail

/// Parses a schema. On error, `ok` is false and `error_pos`/`error` say where and what.
/// The result's string views point into `text`, which must outlive it.
constexpr ParseResult parse_schema(std::string_view text) {
  return detail::SchemaParser(text).run();
}

}  // namespace ctmatch::schema
