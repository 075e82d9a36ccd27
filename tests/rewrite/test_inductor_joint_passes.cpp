// Parity of the joint pass's other two pattern passes with Inductor's, on the oracle graphs of
// tests/data/inductor (tools/oracle/inductor_oracle.py, torch 2.11): inductor_joint_early
// (early_patterns, run by Inductor on the graph joint_graph.patterns then sees: joint.json's
// "early" records) and inductor_joint_late (pass_patterns[1], run on the graph it leaves:
// "later"). For every graph, Inductor's count of handler calls per entry equals ctmatch's
// matches + unchanged, and the graph after equals Inductor's (NAME.early.after.fx.txt,
// NAME.later.after.fx.txt where the pass changed it; the graph before where it did not),
// independently of the new nodes' names.
#include <doctest/doctest.h>

#include <optional>

#include <ctmatch/rewrite.hpp>
#include <ctmatch/rules/inductor_joint_early.hpp>
#include <ctmatch/rules/inductor_joint_late.hpp>
#include <ctmatch/schema/builtin.hpp>

#include "inductor_oracle.hpp"

using namespace ctmatch;
using inductor_oracle::canonical;
using inductor_oracle::joint_graphs;
namespace fs = std::filesystem;

namespace {
const fs::path oracle = inductor_oracle::dir;

struct Parity {
  std::size_t graphs = 0, counted = 0, changed = 0;
};

/// Runs `set` on every oracle graph with a `key` record, each graph as `input` gives it, and
/// checks the counts and the graph after against the record.
template <class Set, class Input>
Parity check_parity(const Set& set, const char* key, const char* suffix, Input input) {
  Parity p;
  for (const auto& [k, rec] : joint_graphs()) {
    const std::string name(k);
    const auto* r = rec.as_object().if_contains(key);
    if (!r || !fs::exists(inductor_oracle::joint_fx_path(name))) continue;
    CAPTURE(name);
    const auto& pass = r->as_object();
    REQUIRE(!pass.contains("error"));
    Graph g = input(name);
    const std::vector<std::string> before = canonical(g);
    PassOptions o;
    o.verify_after_pass = true;
    const PassStats st = sweep(g, set, o);
    p.counted += inductor_oracle::check_counts(st, inductor_oracle::counts(pass));
    if (pass.at("changed").as_bool()) {
      const Graph after = io::read_graph_file((oracle / "joint" / (name + suffix)).string());
      CHECK(canonical(g) == canonical(after));
      ++p.changed;
    } else {
      CHECK(canonical(g) == before);
    }
    ++p.graphs;
  }
  return p;
}

}  // namespace

TEST_CASE("inductor_joint_early: per-entry counts and graphs equal Inductor's on every oracle graph") {
  schema::ensure_builtin_schemas();
  const Parity p = check_parity(rules::inductor_joint_early(), "early", ".early.after.fx.txt", inductor_oracle::joint_graph);
  CHECK(p.graphs >= 210);
  // pointless_view on most graphs (every SDPA graph has views of their input's shape that another
  // view then reads), 836 calls on gpt2, bert and llama
  CHECK(p.counted >= 2000);
  // the three modules of the entries, gpt2 (view pairs, permute pairs) and llama
  CHECK(p.changed >= 5);
}

TEST_CASE("inductor_joint_late: per-entry counts and graphs equal Inductor's on every oracle graph") {
  schema::ensure_builtin_schemas();
  // Inductor runs pass_patterns[1] on what joint_graph.patterns leaves. On every oracle graph
  // where this pass fires, that pass changed nothing (joint.json's "changed"), so the graph it
  // leaves is the exported one; where it changed the graph, its FX text after (no metadata) is
  // the input here, and this pass fires on none of those.
  auto input = [](const std::string& name) {
    const auto& rec = joint_graphs().at(name).as_object();
    if (rec.contains("changed") && rec.at("changed").as_bool())
      return io::read_graph_file((oracle / "joint" / (name + ".after.fx.txt")).string());
    return inductor_oracle::joint_graph(name);
  };
  const Parity p = check_parity(rules::inductor_joint_late(), "later", ".later.after.fx.txt", input);
  CHECK(p.graphs >= 210);
  // mul_softmax, div_softmax, the two with the tensor scale first (the reversed entries), and the
  // SDPA modules whose scale no SDPA entry takes (a tensor, or a module whose pattern no entry
  // matches): numbers and tensors, with and without the cast; every entry fires on one
  CHECK(p.changed >= 25);
  CHECK(p.counted == p.changed);
}

TEST_CASE("inductor_joint_early: the size's -1, symbolic sizes, permutations that do not undo") {
  schema::ensure_builtin_schemas();
  const OpId view = intern_op("aten.view.default"), permute = intern_op("aten.permute.default");
  auto one_view = [&](Value size, std::vector<Value> shape) {
    Graph g;
    NodeId x = g.placeholder("x");
    g[x].edit_meta() = TensorMeta::of(ScalarType::Float, std::move(shape));
    NodeId v = g.call(view, {NodeRef{x}, std::move(size)});
    g.output({NodeRef{v}});
    const RuleStats r = sweep(g, rules::inductor_joint_early()).by_name().at(0);
    REQUIRE(r.name == "pointless_view");
    return r.matches;
  };
  auto ints = [](std::initializer_list<std::int64_t> l) {
    std::vector<Value> v;
    for (std::int64_t i : l) v.emplace_back(i);
    return v;
  };
  CHECK(one_view(Value::list(ints({8, 16})), ints({8, 16})) == 1);
  CHECK(one_view(Value::list(ints({8, -1})), ints({8, 16})) == 1);
  CHECK(one_view(Value::list(ints({-1, -1})), ints({8, 16})) == 0);  // one -1 at most
  CHECK(one_view(Value::list(ints({16, 8})), ints({8, 16})) == 0);
  CHECK(one_view(Value::list(ints({8, 16, 1})), ints({8, 16})) == 0);
  CHECK(one_view(Value::list({Value(SymInt{"s0"}), Value(16)}), {Value(SymInt{"s0"}), Value(16)}) == 1);
  CHECK(one_view(Value::list({Value(SymInt{"s1"}), Value(16)}), {Value(SymInt{"s0"}), Value(16)}) == 0);
  // permute(permute(x, p1), p2) folds where p2 undoes p1, negative indices read from the end
  auto pair = [&](std::vector<Value> p1, std::vector<Value> p2) {
    Graph g;
    NodeId x = g.placeholder("x");
    NodeId a = g.call(permute, {NodeRef{x}, Value::list(std::move(p1))});
    NodeId b = g.call(permute, {NodeRef{a}, Value::list(std::move(p2))});
    g.output({NodeRef{b}});
    const RuleStats r = sweep(g, rules::inductor_joint_early()).by_name().at(2);
    REQUIRE(r.name == "pointless_permute_pair");
    CHECK(r.matches + r.unchanged == 1);
    return r.matches == 1 && g[g.last()].args()[0].items()->at(0).node() == x;
  };
  CHECK(pair(ints({0, 2, 1}), ints({0, 2, 1})));
  CHECK(pair(ints({1, 2, 0}), ints({2, 0, 1})));
  CHECK(pair(ints({1, 2, 0}), ints({-1, 0, 1})));
  CHECK_FALSE(pair(ints({1, 2, 0}), ints({1, 2, 0})));
  CHECK_FALSE(pair(ints({1, 0}), ints({1, 0, 2})));  // ranks differ: Inductor asserts, nothing changes
}

TEST_CASE("inductor_joint_late: the check on a tensor scale and the signs of numbers") {
  schema::ensure_builtin_schemas();
  const OpId mul = intern_op("aten.mul.Tensor"), amax = intern_op("aten.amax.default"),
             sub = intern_op("aten.sub.Tensor");
  const Device cpu{DeviceType::CPU, -1};
  auto meta = [&](std::vector<std::int64_t> shape) {
    TensorMeta m = TensorMeta::of(ScalarType::Float, std::vector<Value>(shape.begin(), shape.end()));
    m.device = cpu;
    return m;
  };
  // sub(x * other, amax(x * other, dims, True)), x of shape [2, 4, 8]; `other` the number given,
  // else a tensor input of shape `other_shape`
  auto run = [&](std::optional<Value> number, std::vector<std::int64_t> other_shape, Value dims) {
    Graph g;
    NodeId x = g.placeholder("x");
    g[x].edit_meta() = meta({2, 4, 8});
    Value other = number ? *number : Value();
    if (!number) {
      NodeId o = g.placeholder("other");
      g[o].edit_meta() = meta(other_shape);
      other = NodeRef{o};
    }
    NodeId s = g.call(mul, {NodeRef{x}, other});
    NodeId m = g.call(amax, {NodeRef{s}, dims, Value(true)});
    NodeId d = g.call(sub, {NodeRef{s}, NodeRef{m}});
    g.output({NodeRef{d}});
    const PassStats st = sweep(g, rules::inductor_joint_late());
    CHECK_NOTHROW(verify(g));
    return std::pair{st.total_matches(), std::move(g)};
  };
  const Value last = Value::list({Value(-1)});
  // A tensor scale of size 1 along the reduced dimension passes the check, one of size 8 does not.
  CHECK(run(std::nullopt, {4, 1}, last).first == 1);
  CHECK(run(std::nullopt, {2, 4, 1}, last).first == 1);
  CHECK(run(std::nullopt, {8}, last).first == 0);
  CHECK(run(std::nullopt, {8}, Value::list({Value(0)})).first == 1);  // padded to [1, 1, 8]
  CHECK(run(std::nullopt, {1, 2, 4, 1}, last).first == 0);            // more dims than the input
  // A negative number flips the input before the max: x * -1, then (x' - max) * 2.5.
  auto [n, g] = run(Value(-2.5), {}, last);
  REQUIRE(n == 1);
  const Node& out = g[g[g.last()].args()[0].items()->at(0).node()];
  CHECK(op_name(out.op()) == "aten.mul.Tensor");
  CHECK(out.args()[1] == Value(2.5));
  const Node& shifted = g[out.args()[0].node()];
  const Node& flipped = g[shifted.args()[0].node()];
  CHECK(flipped.args()[1] == Value(std::int64_t{-1}));
  // An int scale stays an int: sign * other.
  auto [k, h] = run(Value(std::int64_t{-3}), {}, last);
  REQUIRE(k == 1);
  CHECK(h[h[h.last()].args()[0].items()->at(0).node()].args()[1] == Value(std::int64_t{3}));
}
