// Parity of inductor_joint with Inductor's joint pattern pass on training graphs: the oracle's
// joint forward+backward graphs of fuse_attention's training forms, captured inside
// torch.compile on cpu (tests/data/inductor/training: NAME.before.fx.txt with its metadata in
// NAME.before.meta.json, NAME.after.fx.txt; training.json). On every graph where only ported
// entries fire, the per-entry counts equal Inductor's and the graph after equals Inductor's,
// independently of the new nodes' names.
#include <doctest/doctest.h>

#include <set>

#include <ctmatch/rewrite.hpp>
#include <ctmatch/rules/inductor_joint.hpp>
#include <ctmatch/schema/builtin.hpp>

#include "inductor_oracle.hpp"

using namespace ctmatch;
using inductor_oracle::canonical;
namespace fs = std::filesystem;

namespace {
const fs::path oracle = inductor_oracle::dir;

/// The training forms ported so far: patterns 1, 2, 5, 8, 10, 11 and 14 in float32 and float16,
/// 21, 22 and 23 in float32 (the float16 modules of 23 are pointless_convert's first; those of
/// 21 and 22 fire on no graph).
bool ported_training_form(const boost::json::object& entry) {
  const std::string name(entry.at("name").as_string());
  for (const char* p : {"_sfdp_pattern_1[", "_sfdp_pattern_2[", "_sfdp_pattern_5[", "_sfdp_pattern_8[",
                        "_sfdp_pattern_10[", "_sfdp_pattern_11[", "_sfdp_pattern_14["})
    if (name.starts_with(p)) return true;
  const bool float32 =
      std::string_view(entry.at("pattern").as_string()).find("convert_element_type") == std::string_view::npos;
  for (const char* p : {"_sfdp_pattern_21[", "_sfdp_pattern_22[", "_sfdp_pattern_23["})
    if (name.starts_with(p)) return float32;
  return false;
}

/// Whether the entry called `key` (entries.json's name) is ported: a training form (an SDPA
/// entry whose tree has several outputs and the gradient's input `tangents_1`) by
/// ported_training_form, any other entry by its name among the set's rules.
template <class Set>
bool ported(const Set& set, const std::string& key) {
  static const boost::json::value entries = inductor_oracle::read_json(oracle / "entries.json");
  for (const auto& e : entries.at("joint").as_array()) {
    const auto& entry = e.as_object();
    if (entry.at("name").as_string() != key) continue;
    if (std::string_view(entry.at("pattern").as_string()).find("tangents_1") != std::string_view::npos)
      return ported_training_form(entry);
    const std::string name = key.substr(0, key.find(':'));
    for (std::size_t i = 0; i < Set::size; ++i)
      if (set.name(i) == name) return true;
    return false;
  }
  FAIL("entry ", key, " is not in entries.json");
  return false;
}
}  // namespace

TEST_CASE("inductor_joint on training graphs: counts and graphs equal Inductor's where only ported entries fire") {
  schema::ensure_builtin_schemas();
  const auto set = rules::inductor_joint();
  const boost::json::value training = inductor_oracle::read_json(oracle / "training.json");
  std::size_t compared = 0, changed = 0, uncovered = 0;
  std::set<std::string> fired_training;
  for (const auto& [key, value] : training.at("graphs").as_object()) {
    const std::string name(key);
    const auto& rec = value.as_object();
    if (rec.contains("error")) continue;
    CAPTURE(name);
    bool covered = true;
    for (const auto& [entry, count] : rec.at("per_entry").as_object())
      if (count.as_int64() > 0 && !ported(set, std::string(entry))) covered = false;
    if (!covered) {
      ++uncovered;
      continue;
    }
    const fs::path base = oracle / "training" / name;
    Graph g = io::read_graph_file(base.string() + ".before.fx.txt");
    inductor_oracle::put_meta(g, base.string() + ".before.meta.json");
    const std::vector<std::string> before = canonical(g);
    PassOptions o;
    o.verify_after_pass = true;
    const PassStats st = sweep(g, set, o);
    inductor_oracle::check_counts(st, inductor_oracle::counts(rec));
    for (const RuleStats& r : st.by_name())
      if (r.matches > 0 && r.name.starts_with("_sfdp")) fired_training.insert(std::string(r.name));
    if (rec.at("changed").as_bool()) {
      CHECK(canonical(g) == canonical(io::read_graph_file(base.string() + ".after.fx.txt")));
      ++changed;
    } else {
      CHECK(canonical(g) == before);
    }
    ++compared;
  }
  // 144 modules. Compared: those where only ported entries fire (86), the tensor-scale modules
  // that no entry rewrites among them. Changed: the ported forms' modules (32: 1, 2, 11 and 14
  // with a number for the scale in both dtypes; 5, 8 and 10 with either scale in both; 21, 22,
  // 23 and their batch-1 forms in float32 with either), and 12 float16 modules that
  // pointless_convert changes. Left out (uncovered, 58): the modules where an unported training
  // form fires (those with dropout, and 24's).
  CHECK(compared + uncovered == 144);
  CHECK(changed == 44);
  CHECK(fired_training == std::set<std::string>{"_sfdp_pattern_1[fn]", "_sfdp_pattern_2[fn]",
                                                "_sfdp_pattern_5[_sfdp_params_check]",
                                                "_sfdp_pattern_8[_sfdp_params_check]",
                                                "_sfdp_pattern_10[_sfdp_params_check]", "_sfdp_pattern_11[fn]",
                                                "_sfdp_pattern_14[fn]", "_sfdp_pattern_21[_sfdp_params_check]",
                                                "_sfdp_pattern_22[_sfdp_params_check]",
                                                "_sfdp_pattern_23[_sfdp_params_check]"});
  CHECK(compared == 86);
  CHECK(uncovered == 58);
}
