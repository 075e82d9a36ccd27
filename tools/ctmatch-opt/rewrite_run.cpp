// ctmatch-opt's rewrite stage (--rules, --mode), in a translation unit of its own: the
// built-in rule sets instantiated for the sweep and fixpoint drivers, compiled in parallel
// with rewrite_explain.cpp (--explain).
#include <ctmatch/rewrite.hpp>
#include <ctmatch/rules/builtin.hpp>

#include "rewrite_stage.hpp"

namespace ctmatch_opt {

RewriteReport run_rewrites(Graph& g, const RewriteOptions& o) {
  RewriteReport r;
  if (o.rules.empty()) return r;
  check_mode(o.mode);
  auto set = rules::all_rules();
  rules::select_rules(set, o.rules);
  // A first run on a copy, untimed, as Inductor's figures leave out its pass's registration:
  // ops are interned and their schemas registered on first use, and the copy's arena grows.
  {
    Graph warm = g;
    run_pass(warm, set, o.mode);
  }
  std::size_t ids_before = g.id_bound();
  r.stats = run_pass(g, set, o.mode);
  r.ran = true;
  r.rules = o.rules;
  r.mode = o.mode;
  r.matches = r.stats.matches();
  r.roots = r.stats.root_names(g);
  for (NodeId id = static_cast<NodeId>(ids_before); id < g.id_bound(); ++id)
    if (g[id].alive()) r.created.insert(id);
  return r;
}

}  // namespace ctmatch_opt
