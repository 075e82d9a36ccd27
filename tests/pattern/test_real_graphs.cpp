// The DSL on the real graphs (tests/data): the seed MLP's typed kwargs, and the eight
// benchmark patterns, whose matches must be exactly those of the hand-written matchers and,
// where matching alone decides, those Inductor found (bench/expected_dev.json).
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <ctmatch/io/read.hpp>
#include <ctmatch/pattern.hpp>
#include <ctmatch/schema/builtin.hpp>

#include "../../benchmarks/match_patterns.hpp"

using namespace ctmatch;
using namespace ctmatch::dsl;
using namespace match_bench;

namespace {
Graph load(const std::string& file) {
  schema::ensure_builtin_schemas();
  return io::read_graph_file(std::string(CTMATCH_TEST_DATA) + "/" + file);
}

template <class P>
std::vector<std::string> dsl_roots(const P& p, const Graph& g) {
  std::vector<std::string> out;
  Match<P> m;
  for (const Node& n : g.nodes())
    if (match_into(p, g, n.id(), m)) out.emplace_back(n.name());
  std::sort(out.begin(), out.end());
  return out;
}
template <class C, class F>
std::vector<std::string> hand_roots(F f, const Graph& g) {
  static const Ops ops;
  std::vector<std::string> out;
  C c{};
  for (const Node& n : g.nodes())
    if (f(ops, g, n.id(), c)) out.emplace_back(n.name());
  std::sort(out.begin(), out.end());
  return out;
}

struct Found {
  std::vector<std::string> roots[8];
};
Found dsl_all(const Graph& g) {
  return {{dsl_roots(view_view, g), dsl_roots(permute_identity, g), dsl_roots(to_copy_pair, g),
           dsl_roots(mm_bias, g), dsl_roots(attention, g), dsl_roots(gelu_tanh, g),
           dsl_roots(layer_norm, g), dsl_roots(mm_scale_cast, g)}};
}
Found hand_all(const Graph& g) {
  using namespace hand;
  return {{hand_roots<ViewView>(hand::view_view, g), hand_roots<PermuteIdentity>(hand::permute_identity, g),
           hand_roots<ToCopyPair>(hand::to_copy_pair, g), hand_roots<MmBias>(hand::mm_bias, g),
           hand_roots<Attention>(hand::attention, g), hand_roots<GeluTanh>(hand::gelu_tanh, g),
           hand_roots<LayerNorm>(hand::layer_norm, g), hand_roots<MmScaleCast>(hand::mm_scale_cast, g)}};
}
const char* const rule_names[8] = {"view_view", "permute_identity", "to_copy_pair", "mm_bias",
                                   "attention", "gelu_tanh", "layer_norm", "mm_scale_cast"};
}  // namespace

TEST_CASE("seed_mlp: mm -> scale_cast with typed dtype, clamp and scale") {
  for (const char* file : {"seed_mlp.export.fx.txt", "seed_mlp.export.json"}) {
    CAPTURE(file);
    Graph g = load(file);
    std::vector<std::string> roots;
    std::vector<bool> clamps;
    for (const Node& n : g.nodes()) {
      auto m = match(mm_scale_cast, g, n.id());
      if (!m) continue;
      roots.emplace_back(n.name());
      CHECK(m->get<"dtype">() == ScalarType::Float);
      CHECK(m->get<"scale">() == 0.5);
      clamps.push_back(m->get<"clamp">());
      CHECK(g[m->node_ids()[1]].name().substr(0, 2) == "mm");
      CHECK(g[m->get<"a">()].kind() != NodeKind::Output);
    }
    CHECK(roots == std::vector<std::string>{"scale_cast", "scale_cast_1", "scale_cast_2", "scale_cast_3"});
    // clamp is written True on the 1st and 3rd, absent (default False) on the others.
    CHECK(clamps == std::vector<bool>{true, false, true, false});
    CHECK(dsl_roots(gelu_tanh, g) == std::vector<std::string>{"gelu", "gelu_1", "gelu_2", "gelu_3"});
  }
}

TEST_CASE("the eight patterns: the DSL finds exactly what the hand-written matchers find") {
  for (const char* file : {"seed_mlp.export.fx.txt", "seed_mlp.export.json", "resnet18.export.fx.txt",
                           "resnet18.export.json", "gpt2.export.fx.txt", "gpt2.export.json",
                           "bert.export.fx.txt"}) {
    CAPTURE(file);
    Graph g = load(file);
    Found d = dsl_all(g), h = hand_all(g);
    for (int r = 0; r < 8; ++r) {
      CAPTURE(rule_names[r]);
      CHECK(d.roots[r] == h.roots[r]);
    }
  }
}

TEST_CASE("gpt2: layer_norm and view_view roots are Inductor's") {
  for (const char* file : {"gpt2.export.fx.txt", "gpt2.export.json"}) {
    CAPTURE(file);
    Graph g = load(file);
    std::vector<std::string> ln = dsl_roots(layer_norm, g);
    std::vector<std::string> expected_ln = {
        "getitem",    "getitem_105", "getitem_108", "getitem_15", "getitem_18", "getitem_24", "getitem_27",
        "getitem_33", "getitem_36",  "getitem_42",  "getitem_45", "getitem_51", "getitem_54", "getitem_6",
        "getitem_60", "getitem_63",  "getitem_69",  "getitem_72", "getitem_78", "getitem_81", "getitem_87",
        "getitem_9",  "getitem_90",  "getitem_96",  "getitem_99"};
    CHECK(ln == expected_ln);
    std::vector<std::string> vv = dsl_roots(view_view, g);
    std::vector<std::string> expected_vv = {"view_103", "view_121", "view_13",  "view_139",
                                            "view_157", "view_175", "view_193", "view_211",
                                            "view_31",  "view_49",  "view_67",  "view_85"};
    CHECK(vv == expected_vv);
    CHECK(dsl_roots(mm_bias, g).empty());
    CHECK(dsl_roots(attention, g).empty());
    CHECK(dsl_roots(gelu_tanh, g).empty());
    CHECK(dsl_roots(mm_scale_cast, g).empty());
  }
}

TEST_CASE("bert: attention, layer_norm and view_view roots are Inductor's") {
  Graph g = load("bert.export.fx.txt");
  CHECK(dsl_roots(attention, g) == std::vector<std::string>{"bmm_1", "bmm_11", "bmm_13", "bmm_15",
                                                             "bmm_17", "bmm_19", "bmm_21", "bmm_23",
                                                             "bmm_3", "bmm_5", "bmm_7", "bmm_9"});
  CHECK(dsl_roots(layer_norm, g) ==
        std::vector<std::string>{"getitem",    "getitem_12", "getitem_15", "getitem_18", "getitem_21",
                                 "getitem_24", "getitem_27", "getitem_3",  "getitem_30", "getitem_33",
                                 "getitem_36", "getitem_39", "getitem_42", "getitem_45", "getitem_48",
                                 "getitem_51", "getitem_54", "getitem_57", "getitem_6",  "getitem_60",
                                 "getitem_63", "getitem_66", "getitem_69", "getitem_72", "getitem_9"});
  CHECK(dsl_roots(view_view, g) ==
        std::vector<std::string>{
            "view_104", "view_112", "view_115", "view_118", "view_126", "view_134", "view_137", "view_140",
            "view_148", "view_156", "view_159", "view_16",  "view_162", "view_170", "view_178", "view_181",
            "view_184", "view_192", "view_2",   "view_200", "view_203", "view_206", "view_214", "view_222",
            "view_225", "view_228", "view_236", "view_24",  "view_244", "view_247", "view_250", "view_258",
            "view_27",  "view_30",  "view_38",  "view_46",  "view_49",  "view_5",   "view_52",  "view_60",
            "view_68",  "view_71",  "view_74",  "view_8",   "view_82",  "view_90",  "view_93",  "view_96"});
  // The attention match captures the scale constant and the four inputs.
  auto m = match(attention, g, g.find("bmm_1"));
  REQUIRE(m);
  CHECK(m->get<"scale">() > 0.0);
  CHECK(g[m->get<"q">()].kind() != NodeKind::Output);
  static_assert(Match<std::remove_const_t<decltype(attention)>>::node_count == 9);
  for (std::size_t i = 1; i < 9; ++i) CHECK(m->node(i).num_users() == 1);
  CHECK(m->node(4).name().substr(0, 8) == "_softmax");
}

TEST_CASE("gpt2: a match exposes full typed args of every matched node") {
  Graph g = load("gpt2.export.json");
  auto m = match(layer_norm, g, g.find("getitem"));
  REQUIRE(m);
  const Node& norm = m->node(1);
  CHECK(op_name(norm.op()) == "aten.native_layer_norm.default");
  CHECK(m->get<"eps">() == doctest::Approx(1e-05));
  CHECK(m->get<"w">().is_node());
  CHECK(m->get<"shape">() == *norm.arg(1));
  // What a rewrite forwards: the norm's weight and bias nodes.
  CHECK(g[m->get<"w">().node()].name().find("ln_1_weight") != std::string::npos);
}

TEST_CASE("resnet18: none of the eight patterns matches") {
  Graph g = load("resnet18.export.json");
  Found d = dsl_all(g);
  for (int r = 0; r < 8; ++r) {
    CAPTURE(rule_names[r]);
    CHECK(d.roots[r].empty());
  }
}
