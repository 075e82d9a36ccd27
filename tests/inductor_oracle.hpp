#pragma once
// What the Inductor parity tests share: the oracle's results (tests/data/inductor, written by
// tools/oracle/inductor_oracle.py) and its joint graphs, per-entry counts and their check
// against a pass's stats, a graph as lines independent of the new nodes' names, and the
// post-grad graphs' tensor metadata put back on their FX text.
// Include once per test program: it compiles Boost.JSON's sources in.
#include <boost/json/src.hpp>

#include <charconv>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include <ctmatch/graph/value_print.hpp>
#include <ctmatch/io/read.hpp>
#include <ctmatch/rewrite/stats.hpp>

namespace inductor_oracle {

using namespace ctmatch;
namespace fs = std::filesystem;

inline const fs::path dir = fs::path(CTMATCH_TEST_DATA) / "inductor";

inline boost::json::value read_json(const fs::path& p) { return boost::json::parse(io::read_file(p.string())); }

/// A record's per-entry counts by entry name (the part of the oracle's key before ':'); none
/// where the record has no "per_entry".
inline std::map<std::string, std::size_t> counts(const boost::json::object& rec) {
  std::map<std::string, std::size_t> out;
  const auto* per_entry = rec.if_contains("per_entry");
  if (!per_entry) return out;
  for (const auto& [k, v] : per_entry->as_object()) {
    std::string name(k);
    out[name.substr(0, name.find(':'))] += static_cast<std::size_t>(v.as_int64());
  }
  return out;
}

/// joint.json's records by graph name.
inline const boost::json::object& joint_graphs() {
  static const boost::json::value v = read_json(dir / "joint.json");
  return v.at("graphs").as_object();
}

/// The FX text of the joint oracle graph `name`: every graph shipped has one (not seed_mlp).
inline fs::path joint_fx_path(const std::string& name) { return dir / "joint" / (name + ".export.fx.txt"); }

/// The joint oracle graph `name` as the joint pass sees it: its torch.export JSON where shipped
/// (it has the metadata the handlers read), else its FX text.
inline Graph joint_graph(const std::string& name) {
  const fs::path json = dir / "joint" / (name + ".export.json");
  if (fs::exists(json)) return io::read_graph_file(json.string());
  return io::read_graph_file(joint_fx_path(name).string());
}

/// Checks ctmatch's counts against Inductor's, rule by rule: Inductor counts every handler call,
/// so a rule's matches + unchanged must equal its entry's count, and no rewrite may fail.
/// Returns the calls counted.
inline std::size_t check_counts(const PassStats& st, std::map<std::string, std::size_t> expected) {
  std::size_t counted = 0;
  for (const RuleStats& r : st.by_name()) {
    CAPTURE(r.name);
    CHECK(r.matches + r.unchanged == expected[std::string(r.name)]);
    CHECK(r.failed == 0);
    counted += r.matches + r.unchanged;
  }
  return counted;
}

/// The graph as lines, nodes numbered by position: equal for two graphs that differ only in
/// node names (placeholders keep theirs: they are the graph's interface).
inline std::vector<std::string> canonical(const Graph& g) {
  std::map<NodeId, std::size_t> index;
  std::vector<std::string> lines;
  std::function<void(std::string&, const Value&)> text = [&](std::string& out, const Value& v) {
    if (v.is_node()) {
      out.append("%").append(std::to_string(index.at(v.node())));
    } else if (v.is_list()) {
      out.append("[");
      for (const Value& i : *v.items()) text(out, i), out.append(",");
      out.append("]");
    } else {
      out.append(to_string(v));
    }
  };
  for (const Node& n : g.nodes()) {
    index[n.id()] = index.size();
    std::string line(kind_name(n.kind()));
    line.append(" ").append(n.kind() == NodeKind::CallFunction ? op_name(n.op()) : std::string_view(n.target()));
    if (n.kind() == NodeKind::Placeholder) line.append(" ").append(n.name());
    for (const Value& a : n.args()) line.append(" "), text(line, a);
    for (const Kwarg& k : n.kwargs()) line.append(" ").append(k.name).append("="), text(line, k.value);
    lines.push_back(std::move(line));
  }
  return lines;
}

/// Puts NAME.before.meta.json (per node: dtype, shape, stride and device as torch prints them)
/// on the graph read from NAME.before.fx.txt, which has none.
inline void put_meta(Graph& g, const fs::path& meta_json) {
  auto ints = [](const boost::json::array& a) {
    std::vector<Value> out;
    for (const auto& d : a) {
      std::string s(d.as_string());
      std::int64_t v = 0;
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      out.push_back(ec == std::errc{} && p == s.data() + s.size() ? Value(v) : Value(SymInt{s}));
    }
    return out;
  };
  const boost::json::value meta = read_json(meta_json);
  for (const auto& [name, rec] : meta.as_object()) {
    NodeId id = g.find(std::string_view(name));
    if (id == no_node) continue;
    const auto& r = rec.as_object();
    TensorMeta& m = g[id].edit_meta();
    m.dtype = parse_scalar_type(std::string_view(r.at("dtype").as_string()));
    m.shape = ints(r.at("shape").as_array());
    m.strides = ints(r.at("stride").as_array());
    m.device = parse_device(std::string_view(r.at("device").as_string()));
  }
}

}  // namespace inductor_oracle
