#pragma once
// explain: for one node, every rule of a set whose root op fits it, in the order the drivers
// try them, with why it does or does not match (the rule's own explanation: op, arity, kwarg
// type, users, check) or why the safety checks refuse it. Changes nothing in the graph.
// The drivers never pay for this: explanations are only built when asked for here.
#include <string>
#include <vector>

#include "apply.hpp"
#include "rule_set.hpp"
#include "sweep.hpp"

namespace ctmatch {

struct RuleExplanation {
  std::string rule;
  bool matches = false;  // would apply (matched and passed the safety checks)
  bool enabled = true;
  std::string why;
};

template <class Set>
std::vector<RuleExplanation> explain(Graph& g, const Set& set, NodeId node, const PassOptions& options = {}) {
  std::vector<RuleExplanation> out;
  if (node >= g.id_bound() || !g[node].alive() || g[node].kind() != NodeKind::CallFunction) return out;
  PassStats stats;
  init_rule_stats(set, stats);
  PassContext cx(g, options, stats);
  set.for_each([&](const auto& rule, std::size_t i) {
    bool fits = false;
    for (OpId op : std::span<const OpId>(rule.root_ops())) fits |= op == g[node].op();
    if (!fits) return;
    Reason why;
    ApplyResult r = apply_rule(rule, i, cx, node, &why);
    out.push_back(RuleExplanation{std::string(rule.name()), r == ApplyResult::Applied, set.enabled(i),
                                  why.text.empty() ? std::string("does not match") : why.text});
  });
  return out;
}

/// The explanation as lines of text: `rule: why`.
inline std::string format_explanations(const Graph& g, NodeId node, const std::vector<RuleExplanation>& ex) {
  const Node& n = g[node];
  std::string s = "node " + std::string(n.name()) + " (" +
                  std::string(n.op() == no_op ? kind_name(n.kind()) : op_name(n.op())) + "):\n";
  if (ex.empty()) s += "  no rule has this op as its root\n";
  for (const RuleExplanation& e : ex)
    s += "  " + e.rule + (e.enabled ? "" : " (disabled)") + ": " + e.why + "\n";
  return s;
}

}  // namespace ctmatch
