// ctmatch-opt's rewrite stage (--rules, --mode): the built-in rule sets, compiled once
// (builtin_rules.hpp), run with the sweep or fixpoint driver.
#include <builtin_rules.hpp>

#include "rewrite_stage.hpp"

namespace ctmatch_opt {

RewriteReport run_rewrites(Graph& g, const RewriteOptions& o) {
  RewriteReport r;
  if (o.rules.empty()) return r;
  check_mode(o.mode);
  const builtin::BuiltinRules set(o.rules);
  // What is reported costs time and memory in a large graph (a copy of it, a root per
  // rewrite): only a report pays for it.
  PassOptions options;
  options.record_roots = o.report;
  // A first run on a copy, untimed, as Inductor's figures leave out its pass's registration:
  // ops are interned and their schemas registered on first use, and the copy's arena grows.
  if (o.report) {
    Graph warm = g;
    set.run(warm, o.mode, options);
  }
  r.first_created = static_cast<NodeId>(g.id_bound());
  r.stats = set.run(g, o.mode, options);
  r.ran = true;
  r.rules = o.rules;
  r.mode = o.mode;
  r.matches = r.stats.matches();
  return r;
}

}  // namespace ctmatch_opt
