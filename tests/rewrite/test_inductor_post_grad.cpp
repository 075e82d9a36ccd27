// Parity of the inductor_post_grad rule set (rules/inductor_post_grad.hpp) with Inductor's
// post-grad pattern passes inside torch.compile on cuda (tools/oracle/inductor_oracle.py, torch
// 2.11): on each oracle graph, read as its pass saw it (FX text with its tensor metadata put
// back), Inductor's per-entry counts of pass_patterns[2] equal ctmatch's matches + unchanged,
// and where only ported entries changed the graph it comes out as Inductor's.
#include <doctest/doctest.h>

#include <array>

#include <ctmatch/graph/verify.hpp>
#include <ctmatch/rewrite.hpp>
#include <ctmatch/rules/inductor_post_grad.hpp>
#include <ctmatch/schema/builtin.hpp>

#include "inductor_oracle.hpp"

using namespace ctmatch;
namespace fs = std::filesystem;

namespace {
const fs::path postgrad = inductor_oracle::dir / "postgrad";

const boost::json::object& postgrad_graphs() {
  static const boost::json::value v = inductor_oracle::read_json(inductor_oracle::dir / "postgrad.json");
  return v.at("graphs").as_object();
}

Graph before(const std::string& name) {
  Graph g = io::read_graph_file((postgrad / (name + ".before.fx.txt")).string());
  inductor_oracle::put_meta(g, postgrad / (name + ".before.meta.json"));
  return g;
}

/// ctmatch's counts (matches + unchanged) per entry, pass by pass, on a copy of `g`; `g` itself
/// is left as the passes leave it when `rewrite` is set.
std::array<std::map<std::string, std::size_t>, 3> ours(Graph& g, bool rewrite) {
  Graph copy = g;
  Graph& h = rewrite ? g : copy;
  std::array<std::map<std::string, std::size_t>, 3> out;
  PassOptions o;
  o.verify_after_pass = true;
  for (const RuleStats& r : sweep(h, rules::inductor_post_grad_pass1(), o).by_name()) out[1][std::string(r.name)] += r.matches + r.unchanged;
  for (const RuleStats& r : sweep(h, rules::inductor_post_grad_pass2(), o).by_name()) out[2][std::string(r.name)] += r.matches + r.unchanged;
  return out;
}
}  // namespace

TEST_CASE("inductor_post_grad: per-entry counts and graphs after equal Inductor's on the oracle graphs") {
  schema::ensure_builtin_schemas();
  std::size_t graphs = 0, counted = 0, compared = 0;
  for (const auto& [key, rec] : postgrad_graphs()) {
    std::string name(key);
    if (!fs::exists(postgrad / (name + ".before.meta.json"))) continue;
    CAPTURE(name);
    const auto& passes = rec.at("passes").as_array();
    REQUIRE(passes.size() == 3);
    Graph g = before(name);
    const auto got = ours(g, false);
    // Every pass's entries ported so far (pass 0 is empty at this torch), counted as Inductor
    // counts; and whether each pass's matches all came from entries ported (gpt2's and bert's
    // pass 1 matched entries Inductor registers lazily and does not list: softmax into
    // prims.prepare_softmax_online).
    bool only_ported = true;
    for (std::size_t p = 0; p < 3; ++p) {
      CAPTURE(p);
      const auto& pass = passes[p].as_object();
      std::map<std::string, std::size_t> expected = inductor_oracle::counts(pass);
      std::size_t listed = 0;
      for (const auto& [entry, n] : expected) {
        listed += n;
        only_ported &= got[p].count(entry) > 0;
      }
      only_ported &= listed == static_cast<std::size_t>(pass.at("matched").as_int64());
      for (const auto& kv : got[p]) {
        const std::string& entry = kv.first;
        CAPTURE(entry);
        CHECK(kv.second == expected[entry]);
        counted += kv.second;
      }
    }
    ++graphs;
    if (only_ported && rec.at("changed").as_bool()) {
      ours(g, true);
      Graph after = io::read_graph_file((postgrad / (name + ".after.fx.txt")).string());
      CHECK(inductor_oracle::canonical(g) == inductor_oracle::canonical(after));
      ++compared;
    }
  }
  CHECK(graphs >= 11);
  CHECK(counted >= 128);  // unfuse 48 on gpt2 and 73 on bert, addmm 2, reuse_partial 3, cumsum 2
  CHECK(compared >= 6);   // mm_plus_mm, addmm_bias, partial_amax_max, partial_amin_min, both cumsums
}

TEST_CASE("inductor_post_grad: unfuse_bias_add_to_pointwise's conditions (device, uses, dtype, alpha)") {
  schema::ensure_builtin_schemas();
  struct Case {
    const char* what;
    DeviceType device;
    ScalarType dtype;
    bool pointwise_user;
    double alpha;
    std::size_t matches, unchanged;
  };
  const Case cases[] = {
      {"cuda, a relu after", DeviceType::CUDA, ScalarType::Float, true, 1.0, 1, 0},
      {"on the cpu", DeviceType::CPU, ScalarType::Float, true, 1.0, 0, 0},
      {"returned as it is", DeviceType::CUDA, ScalarType::Float, false, 1.0, 0, 0},
      {"float16 bias", DeviceType::CUDA, ScalarType::Half, true, 1.0, 0, 1},
      {"alpha 2", DeviceType::CUDA, ScalarType::Float, true, 2.0, 1, 0},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    Graph g;
    auto meta = [&](std::vector<std::int64_t> shape) {
      std::vector<Value> s(shape.begin(), shape.end());
      TensorMeta m = TensorMeta::of(c.dtype, s);
      m.device = Device{c.device, c.device == DeviceType::CUDA ? std::int16_t{0} : std::int16_t{-1}};
      return m;
    };
    NodeId b = g.placeholder("b"), x = g.placeholder("x"), w = g.placeholder("w");
    g[b].edit_meta() = meta({16});
    g[x].edit_meta() = meta({4, 8});
    g[w].edit_meta() = meta({8, 16});
    std::vector<Kwarg> kw;
    if (c.alpha != 1.0) kw.push_back({"alpha", Value(c.alpha)});
    NodeId addmm = g.call(intern_op("aten.addmm.default"), {NodeRef{b}, NodeRef{x}, NodeRef{w}}, kw);
    g[addmm].edit_meta() = meta({4, 16});
    NodeId out = c.pointwise_user ? g.call(intern_op("aten.relu.default"), {NodeRef{addmm}}) : addmm;
    g.output({NodeRef{out}});
    const RuleStats r = sweep(g, rules::inductor_post_grad_pass2()).by_name().at(0);
    REQUIRE(r.name == "unfuse_bias_add_to_pointwise");
    CHECK(r.matches == c.matches);
    CHECK(r.unchanged == c.unchanged);
    CHECK(g[addmm].alive() == (c.matches == 0));
    std::size_t muls = 0;
    for (const Node& n : g.nodes()) muls += n.op() == intern_op("aten.mul.Tensor");
    CHECK(muls == (c.matches && c.alpha != 1.0 ? 1u : 0u));
    CHECK_NOTHROW(verify(g));
  }
}
