#pragma once
// The rewrite stage of ctmatch-opt: --rules, --mode, --explain, and what they add to the
// statistics (matches, roots, hist_after, time_s) and to the DOT output (the nodes the
// rewrites created are highlighted).
//
//   --rules bench|default|NAME,NAME...   bench: the benchmark rules (Inductor's semantics);
//                                        default: the clean-ups; a NAME selects every rule of
//                                        that name in either set; several may be listed
//   --mode sweep|fixpoint                sweep (default): one reverse pass, as Inductor's
//                                        PatternMatcherPass; fixpoint: until nothing applies
//   --explain NODE                       why each rule whose root op fits NODE does or does not
//                                        match there (before the pass), on standard error
#include <ctmatch/graph/graph.hpp>
#include <ctmatch/io/fx_text.hpp>
#include <ctmatch/rewrite/stats.hpp>

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace ctmatch_opt {

using namespace ctmatch;

struct RewriteOptions {
  std::string rules;    // empty: no rewriting
  std::string mode = "sweep";
  std::string explain;  // a node name, or empty
  bool report = false;  // its time and roots are reported (--stats, --stats-json, the sample report)
};

struct RewriteReport {
  bool ran = false;
  std::string rules, mode;
  PassStats stats;
  std::map<std::string, std::size_t> matches;
  NodeId first_created = 0;  // the nodes the pass created have this id or a larger one
};

/// The live nodes the pass created (DOT highlights them).
inline std::unordered_set<NodeId> created_nodes(const Graph& g, const RewriteReport& r) {
  std::unordered_set<NodeId> created;
  if (r.ran)
    for (NodeId id = r.first_created; id < g.id_bound(); ++id)
      if (g[id].alive()) created.insert(id);
  return created;
}

/// Explanations for --explain, as text (the selected rules, or all when none are selected)
/// (rewrite_explain.cpp).
std::string explain_node(Graph& g, const RewriteOptions& o);

/// Runs the selected rules on g (rewrite_run.cpp).
RewriteReport run_rewrites(Graph& g, const RewriteOptions& o);

inline void append_json_str(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
      continue;
    }
    out += c;
  }
  out += '"';
}

/// `"rules": ..., "mode": ..., "matches": {...}, "unchanged": {...}, "roots": {...},
/// "hist_after": {...}, "time_s": ...` — the fields --stats-json adds (with a leading ", ").
inline std::string report_json_fields(const Graph& g, const RewriteReport& r) {
  std::string out = ", \"rules\": ";
  append_json_str(out, r.rules);
  out += ", \"mode\": ";
  append_json_str(out, r.mode);
  out += ", \"matches\": {";
  bool first = true;
  for (const auto& [k, v] : r.matches) {
    out += first ? "" : ", ";
    first = false;
    append_json_str(out, k);
    out += ": " + std::to_string(v);
  }
  // Rules that matched and changed nothing (Inductor counts those in its `matched` too).
  out += "}, \"unchanged\": {";
  first = true;
  for (const RuleStats& rs : r.stats.by_name()) {
    if (!rs.unchanged) continue;
    out += first ? "" : ", ";
    first = false;
    append_json_str(out, rs.name);
    out += ": " + std::to_string(rs.unchanged);
  }
  out += "}, \"roots\": {";
  first = true;
  for (const auto& [k, names] : r.stats.root_names(g)) {
    out += first ? "" : ", ";
    first = false;
    append_json_str(out, k);
    out += ": [";
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (i) out += ", ";
      append_json_str(out, names[i]);
    }
    out += "]";
  }
  out += "}, \"hist_after\": {";
  first = true;
  for (const auto& [k, v] : op_histogram(g)) {
    out += first ? "" : ", ";
    first = false;
    append_json_str(out, k);
    out += ": " + std::to_string(v);
  }
  char t[64];
  std::snprintf(t, sizeof t, "}, \"time_s\": %.9f", r.stats.seconds);
  out += t;
  if (r.mode == "fixpoint") out += std::string(", \"cap_hit\": ") + (r.stats.cap_hit ? "true" : "false");
  return out;
}

/// A few readable lines: per rule that fired, its matches and roots; nodes before and after.
inline std::string report_text(const RewriteReport& r, const Graph& g) {
  std::string out = "rules " + r.rules + " (" + r.mode + "): ";
  if (r.matches.empty()) out += "nothing to rewrite";
  else out += std::to_string(r.stats.total_matches()) + " rewrite(s)";
  char t[96];
  std::snprintf(t, sizeof t, ", %zu -> %zu nodes, %.1f us\n", r.stats.nodes_before, r.stats.nodes_after,
                r.stats.seconds * 1e6);
  out += t;
  for (const RuleStats& s : r.stats.by_name()) {
    if (!s.matches && !s.refused && !s.failed && !s.unchanged) continue;
    out += "  " + std::string(s.name) + ": " + std::to_string(s.matches) + " at";
    std::vector<std::string> names;
    for (NodeId id : s.roots) names.emplace_back(g[id].name());
    for (const std::string& n : names) out += " " + n;
    if (s.unchanged) out += " (" + std::to_string(s.unchanged) + " matched, changed nothing)";
    if (s.refused) out += " (" + std::to_string(s.refused) + " refused by safety checks)";
    if (s.failed) out += " (" + std::to_string(s.failed) + " failed: " + s.first_error + ")";
    if (s.kwargs_dropped) out += " (" + std::to_string(s.kwargs_dropped) + " kwarg(s) dropped; first: " + s.first_drop + ")";
    out += "\n";
  }
  if (r.stats.cap_hit) out += "  stopped at the cap of " + std::to_string(r.stats.cap) + " rewrites\n";
  return out;
}

/// What ctmatch-opt prints without arguments: the default rules (to a fixed point), then the
/// bench rules (a sweep) on the embedded sample, what each did, and the graph after.
inline std::string sample_report(Graph& g, const std::string& name) {
  std::string out = "ctmatch-opt: no FILE given, so the built-in rule sets run on " + name + " (" +
                    std::to_string(g.size()) + " nodes)\n\n";
  RewriteReport d = run_rewrites(g, RewriteOptions{"default", "fixpoint", {}, /*report=*/true});
  out += report_text(d, g);
  RewriteReport b = run_rewrites(g, RewriteOptions{"bench", "sweep", {}, /*report=*/true});
  out += report_text(b, g);
  out += "\nthe graph after:\n" + io::write_fx_text(g) + "\n\n";
  out += "on your graph: ctmatch-opt FILE --rules bench|default|NAME,... [--mode sweep|fixpoint]\n"
         "                          [--stats-json] [--explain NODE] [--emit fx|json|dot|none]\n";
  return out;
}

}  // namespace ctmatch_opt
