#pragma once
// The built-in rule sets by name, as ctmatch-opt's --rules and the Python module's `rules=`
// take them: `bench` (the benchmark rules, Inductor's semantics), `default` (the clean-ups),
// `inductor_joint` (the port of Inductor's joint-graph pattern pass, inductor_joint.hpp, with
// `inductor_joint_early` and `inductor_joint_late`, the passes Inductor runs just before and
// after it), `inductor_post_grad` (of its post-grad passes, inductor_post_grad.hpp), or rule
// names, comma-separated (the drivers by name are rewrite/run_pass.hpp). Naming several sets
// runs their rules in one pass; Inductor runs its passes one after the other.
#include <array>
#include <stdexcept>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include "bench.hpp"
#include "default.hpp"
#include "inductor_joint.hpp"
#include "inductor_joint_early.hpp"
#include "inductor_joint_late.hpp"
#include "inductor_post_grad.hpp"
#include "../rewrite/run_pass.hpp"

namespace ctmatch::rules {

/// The built-in sets in one, in builtin_sets' order.
inline auto all_rules() {
  return concat(concat(concat(concat(concat(rules::default_rules(), rules::bench_rules()), rules::inductor_joint()),
                              rules::inductor_joint_early()),
                       rules::inductor_joint_late()),
                rules::inductor_post_grad());
}
/// The built-in sets' names and sizes, in all_rules()'s order.
inline constexpr std::array<std::pair<std::string_view, std::size_t>, 6> builtin_sets{{
    {"default", decltype(rules::default_rules())::size},
    {"bench", decltype(rules::bench_rules())::size},
    {"inductor_joint", decltype(rules::inductor_joint())::size},
    {"inductor_joint_early", decltype(rules::inductor_joint_early())::size},
    {"inductor_joint_late", decltype(rules::inductor_joint_late())::size},
    {"inductor_post_grad", decltype(rules::inductor_post_grad())::size},
}};

/// The set of all_rules()'s rule `i`.
constexpr std::string_view builtin_set_of(std::size_t i) {
  for (const auto& [name, size] : builtin_sets) {
    if (i < size) return name;
    i -= size;
  }
  return {};
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
    std::string_view sep = " (known: ";
    for (const auto& [name, size] : builtin_sets) msg.append(sep).append(name), sep = ", ";
    for (const std::string& n : set.names()) msg.append(sep).append(n);
    throw std::invalid_argument(msg + ")");
  }
}

}  // namespace ctmatch::rules
