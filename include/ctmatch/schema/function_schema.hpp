#pragma once
// FunctionSchema: a PyTorch operator schema (`aten::add.Tensor(Tensor self, Tensor other, *,
// Scalar alpha=1) -> Tensor`) as plain constexpr data. The same parser (parse.hpp) builds it
// in a constant expression, for patterns declared from schema strings, and at run time, for
// the schema table. Everything is a view into the schema text, which must outlive the result
// (string literals and template-argument strings do).
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ctmatch::schema {

/// The element type of an argument, as the schema language spells it.
enum class BaseType : std::uint8_t {
  Tensor, Int, SymInt, Float, Bool, Str, Scalar, ScalarType, Layout, Device, MemoryFormat,
  Generator, Storage, Stream, Dimname, QScheme, Any, SymFloat, SymBool,
};
inline constexpr std::size_t base_type_count = 19;

/// The spellings of the base types in schema text, in enum order. A namespace-scope constant
/// (not a local array) so that constant evaluation builds it once, not on every lookup.
inline constexpr std::string_view base_type_names[base_type_count] = {
    "Tensor", "int", "SymInt", "float", "bool", "str", "Scalar", "ScalarType", "Layout",
    "Device", "MemoryFormat", "Generator", "Storage", "Stream", "Dimname", "QScheme", "Any",
    "SymFloat", "SymBool"};

/// The spelling of a base type in schema text: `Tensor`, `int`, `SymInt`, `float`, ...
constexpr std::string_view base_type_name(BaseType t) {
  return base_type_names[static_cast<std::size_t>(t)];
}

struct Type {
  BaseType base = BaseType::Tensor;
  bool elem_optional = false;  // `Tensor?[]`: a list of optional elements
  bool list = false;           // `int[]`, `SymInt[2]`
  int list_size = -1;          // `int[2]`: 2; -1 when unsized
  bool optional = false;       // `ScalarType?`, `int[]?`
  friend constexpr bool operator==(const Type&, const Type&) = default;
};

struct Argument {
  std::string_view name;
  Type type;
  bool kwarg_only = false;       // after `*`
  bool has_default = false;
  std::string_view default_text; // as written: `1`, `False`, `None`, `'none'`, `[0, 0]`, `contiguous_format`
  std::string_view alias;        // `a` for `Tensor(a)` and `Tensor(a!)`; empty when none
  bool is_write = false;         // `Tensor(a!)`: the op writes this argument
};

inline constexpr std::size_t max_arguments = 32;
inline constexpr std::size_t max_returns = 8;

struct FunctionSchema {
  std::string_view ns;        // `aten`
  std::string_view name;      // `add`
  std::string_view overload;  // `Tensor`; empty for the default overload
  std::array<Argument, max_arguments> args{};
  std::size_t num_args = 0;
  std::array<Argument, max_returns> returns{};  // names may be empty
  std::size_t num_returns = 0;

  /// Index of the argument called `n`, or -1.
  constexpr int find(std::string_view n) const {
    for (std::size_t i = 0; i < num_args; ++i)
      if (args[i].name == n) return static_cast<int>(i);
    return -1;
  }
  /// Number of arguments that may be passed positionally (those before `*`).
  constexpr std::size_t num_positional() const {
    std::size_t i = 0;
    while (i < num_args && !args[i].kwarg_only) ++i;
    return i;
  }
  constexpr bool is_mutable() const {
    for (std::size_t i = 0; i < num_args; ++i)
      if (args[i].is_write) return true;
    return false;
  }
};

/// The outcome of parsing: the schema, or the offset and text of the first error.
struct ParseResult {
  FunctionSchema schema;
  bool ok = false;
  std::size_t error_pos = 0;
  std::string_view error;
};

}  // namespace ctmatch::schema
