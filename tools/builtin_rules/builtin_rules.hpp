#pragma once
// The built-in rule sets (ctmatch/rules/builtin.hpp: bench, default, inductor_joint,
// inductor_post_grad) compiled once, for the programs that take them by name: ctmatch-opt's
// --rules and the Python module's rules=. Instantiating every built-in rule's matcher is most
// of the time either takes to compile (some 90 s with g++ -O2); this library does it in one
// translation unit, and its users include this header, which names no rule.
#include <ctmatch/graph/graph.hpp>
#include <ctmatch/rewrite/rule_set.hpp>
#include <ctmatch/rewrite/run_pass.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ctmatch::builtin {

/// The built-in rules a spec selects: "bench", "default", "inductor_joint",
/// "inductor_post_grad" or rule names, comma-separated (rules::select_rules).
class BuiltinRules {
 public:
  /// Throws std::invalid_argument naming the rules `spec` names that do not exist.
  explicit BuiltinRules(std::string_view spec);
  ~BuiltinRules();
  BuiltinRules(BuiltinRules&&) noexcept;
  BuiltinRules& operator=(BuiltinRules&&) noexcept;

  /// Runs the selected rules on g with the driver called `mode` ("sweep" or "fixpoint").
  PassStats run(Graph& g, std::string_view mode, const PassOptions& options = {}) const;
  /// The selected rules' dispatch table as of now (rebuilt when a rule's root op was interned
  /// since it was built), as a driver would use it.
  const DispatchTable& current_table() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The names of every built-in rule, in declaration order, each once.
std::vector<std::string> rule_names();

}  // namespace ctmatch::builtin
