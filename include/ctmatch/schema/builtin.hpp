#pragma once
// ensure_builtin_schemas(): registers the built-in schema table (builtin_table.hpp) once per
// process — the Core ATen operator set, the other ops that exported graphs hold, a few prims,
// and the ops of the benchmark rules. Call it before reading or building graphs whose nodes
// should resolve their arguments through a schema; calling it again is free, and it is safe
// from several threads at once (a function-local static). Parsing the whole table takes a
// fraction of a millisecond (benchmarks/RESULTS.md), and the texts are literals, so nothing
// is copied.
#include <cstddef>
#include <iterator>

#include "builtin_table.hpp"
#include "registry.hpp"

namespace ctmatch::schema {

/// Registers every built-in schema (once); returns how many the table holds.
inline std::size_t ensure_builtin_schemas() {
  static const std::size_t n = [] {
    for (std::string_view text : builtin_schemas) register_static_schema(text);
    return std::size(builtin_schemas);
  }();
  return n;
}

}  // namespace ctmatch::schema
