// The one translation unit that instantiates the built-in rule sets for the drivers (see
// builtin_rules.hpp).
#include "builtin_rules.hpp"

#include <ctmatch/rewrite/run_pass.hpp>
#include <ctmatch/rules/builtin.hpp>

#include <optional>

namespace ctmatch::builtin {

struct BuiltinRules::Impl {
  decltype(rules::all_rules()) set = rules::all_rules();
  mutable std::optional<DispatchTable> local;  // a table for rules whose root ops changed
};

BuiltinRules::BuiltinRules(std::string_view spec) : impl_(std::make_unique<Impl>()) {
  rules::select_rules(impl_->set, spec);
}
BuiltinRules::~BuiltinRules() = default;
BuiltinRules::BuiltinRules(BuiltinRules&&) noexcept = default;
BuiltinRules& BuiltinRules::operator=(BuiltinRules&&) noexcept = default;

PassStats BuiltinRules::run(Graph& g, std::string_view mode, const PassOptions& options) const {
  return run_pass(g, impl_->set, mode, options);
}

const DispatchTable& BuiltinRules::current_table() const { return dispatch_table_for(impl_->set, impl_->local); }

std::vector<std::string> rule_names() { return rules::all_rules().names(); }

}  // namespace ctmatch::builtin
