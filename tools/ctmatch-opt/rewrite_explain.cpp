// ctmatch-opt's --explain, in a translation unit of its own: explaining instantiates every
// built-in rule's matcher again, with its reasons, and this compiles in parallel with
// tools/builtin_rules (the drivers).
#include <ctmatch/rewrite.hpp>
#include <ctmatch/rules/builtin.hpp>

#include "rewrite_stage.hpp"

namespace ctmatch_opt {

std::string explain_node(Graph& g, const RewriteOptions& o) {
  NodeId n = g.find(o.explain);
  if (n == no_node) throw std::invalid_argument("--explain: the graph has no node called '" + o.explain + "'");
  auto set = rules::all_rules();
  if (!o.rules.empty()) rules::select_rules(set, o.rules);
  std::vector<RuleExplanation> ex = explain(g, set, n);
  if (!o.rules.empty()) std::erase_if(ex, [](const RuleExplanation& e) { return !e.enabled; });
  return format_explanations(g, n, ex);
}

}  // namespace ctmatch_opt
