#pragma once
// The built-in rule sets by name, as ctmatch-opt's --rules and the Python module's `rules=`
// take them: `bench` (the benchmark rules, Inductor's semantics), `default` (the clean-ups),
// `inductor_joint` (the port of Inductor's joint-graph pass, inductor_joint.hpp),
// `inductor_post_grad` (of its post-grad passes, inductor_post_grad.hpp), or rule names,
// comma-separated (the drivers by name are rewrite/run_pass.hpp).
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bench.hpp"
#include "default.hpp"
#include "inductor_joint.hpp"
#include "inductor_post_grad.hpp"
#include "../rewrite/run_pass.hpp"

namespace ctmatch::rules {

/// The built-in sets in one: the default rules, the bench rules, Inductor's joint-graph and
/// post-grad ports.
inline auto all_rules() {
  return concat(concat(concat(rules::default_rules(), rules::bench_rules()), rules::inductor_joint()),
                rules::inductor_post_grad());
}
inline constexpr std::size_t default_rule_count = decltype(rules::default_rules())::size;
inline constexpr std::size_t bench_rule_count = decltype(rules::bench_rules())::size;
inline constexpr std::size_t inductor_joint_rule_count = decltype(rules::inductor_joint())::size;

/// The set of all_rules()'s rule `i`: "default", "bench", "inductor_joint" or "inductor_post_grad".
constexpr std::string_view builtin_set_of(std::size_t i) {
  if (i < default_rule_count) return "default";
  if (i < default_rule_count + bench_rule_count) return "bench";
  if (i < default_rule_count + bench_rule_count + inductor_joint_rule_count) return "inductor_joint";
  return "inductor_post_grad";
}

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
      if (tok == builtin_set_of(i) || set.name(i) == tok) {
        set.set_enabled(i, true);
        found = true;
      }
    }
    if (!found) unknown.emplace_back(tok);
  }
  if (!unknown.empty()) {
    std::string msg = "unknown rule";
    for (const std::string& u : unknown) msg += " '" + u + "'";
    msg += " (known: bench, default, inductor_joint, inductor_post_grad";
    for (const std::string& n : set.names()) msg += ", " + n;
    throw std::invalid_argument(msg + ")");
  }
}

}  // namespace ctmatch::rules
