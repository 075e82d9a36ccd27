#pragma once
// A rule set run on a torch.fx.Graph: convert (from_fx), run the pass, write the result back
// (write_back), with the statistics ctmatch-opt --stats-json prints plus the conversion and
// write-back times. One template for the built-in sets and for a user's compiled rules
// (rule_set_module.hpp).
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "../rewrite/run_pass.hpp"
#include "write_back.hpp"

namespace ctmatch::python {

/// The statistics ctmatch-opt --stats-json prints, as a dict; `by_op` counts the graph's
/// call_function nodes by op (hist_after).
inline py::dict stats_dict(const PassStats& st, const Graph& g, const std::unordered_map<OpId, std::size_t>& by_op) {
  py::dict d, matches, roots, hist;
  for (const auto& [rule, n] : st.matches()) matches[py::str(rule)] = n;
  for (const auto& [rule, names] : st.root_names(g)) {
    py::list l;
    for (const std::string& s : names) l.append(py::str(s));
    roots[py::str(rule)] = l;
  }
  std::map<std::string_view, std::size_t> h;  // by name, as --stats-json orders them
  for (const auto& [op, n] : by_op) h[op_name(op)] = n;
  for (const auto& [op, n] : h) hist[py::str(op.data(), op.size())] = n;
  std::size_t dropped = 0;
  for (const RuleStats& r : st.rules) dropped += r.kwargs_dropped;
  d["matches"] = matches;
  d["roots"] = roots;
  d["hist_after"] = hist;
  d["time_s"] = st.seconds;
  d["nodes_before"] = st.nodes_before;
  d["nodes_after"] = st.nodes_after;
  d["kwargs_dropped"] = dropped;
  return d;
}
inline py::dict stats_dict(const PassStats& st, const Graph& g) {
  std::unordered_map<OpId, std::size_t> by_op;  // counted by id, named once per op
  for (const Node& n : g.nodes())
    if (n.kind() == NodeKind::CallFunction) ++by_op[n.op()];
  return stats_dict(st, g, by_op);
}

/// What a look at the kinds and targets of an fx graph's nodes finds: whether to convert it (a
/// node has an op that a rule of the set is rooted at, or a kind from_fx refuses, with its
/// message); where not (no rule can match anywhere in it), the number of nodes and the ops of
/// the calls.
struct RootScan {
  bool convert = false;
  std::size_t nodes = 0;
  std::unordered_map<OpId, std::size_t> by_op;
};

/// What apply_to_fx runs: a RuleSet, or a set compiled elsewhere that offers the same two
/// calls as members (the built-in sets compiled once: tools/builtin_rules): `current_table()`,
/// its dispatch table as a driver would use it now, and `run(graph, mode)`.
template <class Rules>
const DispatchTable& current_table(const Rules& rules, std::optional<DispatchTable>& local) {
  if constexpr (requires { rules.current_table(); }) return rules.current_table();
  else return dispatch_table_for(rules, local);
}
template <class Rules>
PassStats run_rules(Graph& g, const Rules& rules, std::string_view mode) {
  if constexpr (requires { rules.run(g, mode); }) return rules.run(g, mode);
  else return run_pass(g, rules, mode);
}

/// Reads the op kind and target of each fx node (two attributes, the target looked up in
/// from_fx's cache), stopping at the first node to convert the graph for.
template <class Rules>
RootScan scan_for_roots(py::handle fx_graph, const Rules& rules) {
  const Torch& t = Torch::get();
  io::fx::ensure_schemas();
  detail::Targets& targets = detail::Targets::of_process();
  std::optional<DispatchTable> local;
  const DispatchTable* table = &current_table(rules, local);
  RootScan scan;
  py::list nodes(fx_graph.attr("nodes"));
  for (py::handle node : nodes) {
    ++scan.nodes;
    std::optional<NodeKind> kind = detail::node_kind(node.attr(t.op), t);
    if (kind == NodeKind::CallFunction) {
      OpId id = targets.of(node, node.attr(t.target)).op;
      scan.convert = table->has_rules(id);
      ++scan.by_op[id];
    } else {
      scan.convert = !kind;
    }
    if (scan.convert) return scan;
  }
  // The rules' root ops may name ops that the scan interned first: ask again with those.
  table = &current_table(rules, local);
  for (const auto& [id, n] : scan.by_op) scan.convert |= table->has_rules(id);
  return scan;
}

/// Runs `rules` with the driver called `mode` ("sweep" or "fixpoint") on `fx_graph` and writes
/// the result back. Returns (stats, the fx nodes created). Throws before touching the fx graph
/// on anything it cannot convert or write. A graph where no node has an op that a rule is
/// rooted at is not converted (stats["converted"] is False): no rule can match in it, and
/// reading its targets costs a fraction of converting it. (Its values are then not checked.)
template <class Rules>
py::tuple apply_to_fx(py::handle fx_graph, const Rules& rules, const std::string& mode) {
  check_mode(mode);  // before anything is converted
  using clock = std::chrono::steady_clock;
  auto since = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
  auto t0 = clock::now();
  if (RootScan scan = scan_for_roots(fx_graph, rules); !scan.convert) {
    PassStats st;
    st.nodes_before = st.nodes_after = scan.nodes;
    py::dict d = stats_dict(st, Graph(), scan.by_op);
    d["converted"] = false;
    d["convert_s"] = since(t0);
    d["write_back_s"] = 0.0;
    return py::make_tuple(d, py::list());
  }
  FxGraph fx = from_fx(fx_graph);
  double convert_s = since(t0);
  fx.graph.keep_first_args();  // what write_back compares with
  PassStats st = run_rules(fx.graph, rules, mode);
  auto t1 = clock::now();
  py::list made;
  if (st.total_matches() != 0)
    for (py::object& n : write_back(fx_graph, fx, st)) made.append(n);
  py::dict d = stats_dict(st, fx.graph);
  d["converted"] = true;
  d["convert_s"] = convert_s;
  d["write_back_s"] = since(t1);
  return py::make_tuple(d, made);
}

/// Turns the library's exceptions into Python ones: TypeError for a value ctmatch cannot hold,
/// ValueError for the rest (bad graphs, unknown ops, rules or modes). Once per module.
inline void register_exception_translators() {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const UnsupportedValue& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const FromFxError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const GraphError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
}

}  // namespace ctmatch::python
