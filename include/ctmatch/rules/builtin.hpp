#pragma once
// The built-in rule sets by name, as ctmatch-opt's --rules and the Python module's `rules=`
// take them: `bench` (the benchmark rules, Inductor's semantics), `default` (the clean-ups),
// or rule names, comma-separated (the drivers by name are rewrite/run_pass.hpp).
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bench.hpp"
#include "default.hpp"
#include "../rewrite/run_pass.hpp"

namespace ctmatch::rules {

/// Both built-in sets in one: the default rules, then the bench rules.
inline auto all_rules() { return concat(rules::default_rules(), rules::bench_rules()); }
inline constexpr std::size_t default_rule_count = decltype(rules::default_rules())::size;

/// Enables only the rules `spec` names in the combined set; throws std::invalid_argument
/// naming unknown rules.
template <class Set>
void select_rules(Set& set, std::string_view spec) {
  for (std::size_t i = 0; i < Set::size; ++i) set.set_enabled(i, false);
  std::vector<std::string> unknown;
  std::size_t start = 0;
  while (start <= spec.size()) {
    std::size_t comma = spec.find(',', start);
    std::string_view tok = spec.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    start = comma == std::string_view::npos ? spec.size() + 1 : comma + 1;
    if (tok.empty()) continue;
    bool found = false;
    for (std::size_t i = 0; i < Set::size; ++i) {
      bool in_default = i < default_rule_count;
      if ((tok == "default" && in_default) || (tok == "bench" && !in_default) || set.name(i) == tok) {
        set.set_enabled(i, true);
        found = true;
      }
    }
    if (!found) unknown.emplace_back(tok);
  }
  if (!unknown.empty()) {
    std::string msg = "unknown rule";
    for (const std::string& u : unknown) msg += " '" + u + "'";
    msg += " (known: bench, default";
    for (const std::string& n : set.names()) msg += ", " + n;
    throw std::invalid_argument(msg + ")");
  }
}

}  // namespace ctmatch::rules
