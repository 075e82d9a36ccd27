#pragma once
// ensure_builtin_schemas(): registers the built-in schema table (builtin_table.hpp) once per
// process — the Core ATen operator set, other common ATen ops and overloads, the prims, and
// the ops of the benchmark rules — and the ATen ops' tags (builtin_tags.hpp). Call it before reading or building graphs whose nodes
// should resolve their arguments through a schema; calling it again is free, and it is safe
// from several threads at once (a function-local static). Parsing the whole table takes about
// a tenth of a millisecond (benchmarks/RESULTS.md), and the texts are literals, so nothing is
// copied.
//
// An op that was registered before with another interface (say a pattern declared
// `aten::expand` without its `implicit` argument) keeps that first definition, as every
// registration does; its table entry is skipped rather than failing the whole table, and
// skipped_builtin_schemas() says which and why.
#include <cstddef>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "builtin_table.hpp"
#include "builtin_tags.hpp"
#include "registry.hpp"

namespace ctmatch::schema {

namespace detail {
struct BuiltinSchemas {
  std::size_t count = 0;              // entries of the table
  std::vector<std::string> skipped;  // one message per entry that was not registered
};
inline const BuiltinSchemas& builtin_state() {
  static const BuiltinSchemas state = [] {
    BuiltinSchemas s;
    s.count = std::size(builtin_schemas);
    for (std::string_view text : builtin_schemas) {
      try {
        register_static_schema(text);
      } catch (const std::invalid_argument& e) {
        s.skipped.emplace_back(e.what());
      }
    }
    for (std::string_view line : builtin_op_tags) {
      auto space = line.find(' ');
      auto tags = OpTags::parse(line.substr(space + 1));
      if (!tags) throw std::logic_error("builtin_tags.hpp: unknown tag in '" + std::string(line) + "'");
      OpRegistry::global().add_tags(intern_op(line.substr(0, space)), *tags);
    }
    return s;
  }();
  return state;
}
}  // namespace detail

/// Registers every built-in schema (once); returns how many the table holds.
inline std::size_t ensure_builtin_schemas() { return detail::builtin_state().count; }

/// Why built-in entries were not registered (their op already had another definition when
/// the table was first registered); empty in the usual case.
inline const std::vector<std::string>& skipped_builtin_schemas() {
  return detail::builtin_state().skipped;
}

}  // namespace ctmatch::schema
