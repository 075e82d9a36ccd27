#pragma once
// The eight patterns of the benchmark rule set (bench/RULES.md in the reference material),
// twice: in the DSL, and as hand-written C++ over the graph API that checks the same things
// and captures the same values. bench_match.cpp times both; tests/pattern checks that both
// find exactly the same matches on the real graphs.
//
// Inductor semantics: every pattern node other than the root has exactly one user
// (`.users<1>()`); leaves may have any number.
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include <ctmatch/graph.hpp>
#include <ctmatch/pattern.hpp>

namespace match_bench {

using namespace ctmatch;
using namespace ctmatch::dsl;

inline constexpr auto scale_cast =
    op<"seedlib::scale_cast(Tensor x, *, ScalarType dtype, bool clamp=False, float scale=1.0) -> Tensor">;

inline bool is_float_type(ScalarType t) {
  return t == ScalarType::Half || t == ScalarType::BFloat16 || t == ScalarType::Float ||
         t == ScalarType::Double;
}

// ---- the DSL patterns -------------------------------------------------------------------
inline constexpr auto view_view = aten::view(aten::view("x"_x, _).users<1>(), "s2"_x);

inline constexpr auto permute_identity = extra_check(
    aten::permute(aten::permute("x"_x, slot<"p1", IntList>).users<1>(), slot<"p2", IntList>),
    [](const auto& m) {
      IntList p1 = m.template get<"p1">(), p2 = m.template get<"p2">();
      if (p1.size() != p2.size()) return false;
      for (std::size_t i = 0; i < p2.size(); ++i) {
        std::int64_t j = p2[i];
        if (j < 0 || static_cast<std::size_t>(j) >= p1.size() || p1[static_cast<std::size_t>(j)] != static_cast<std::int64_t>(i))
          return false;
      }
      return true;
    });

inline constexpr auto to_copy_pair = extra_check(
    aten::_to_copy(aten::_to_copy("x"_x, "dtype"_kw = slot<"d1", DType>).exact_kwargs().users<1>(),
                   "dtype"_kw = slot<"d2", DType>)
        .exact_kwargs(),
    [](const auto& m) {
      DType d1 = m.template get<"d1">(), d2 = m.template get<"d2">();
      return is_float_type(d1) && is_float_type(d2) && itemsize(d1) >= itemsize(d2);
    });

// Inductor registers mm_bias twice (add(mm, bias), then add(bias, mm)): commutative() tries
// the two orders in that order. The add must carry no alpha: exact_kwargs().
inline constexpr auto mm_bias =
    aten::add.Tensor(aten::mm("a"_x, "b"_x).users<1>(), "bias"_x).commutative().exact_kwargs();

inline constexpr auto attention = aten::bmm(
    aten::view(
        aten::expand(
            aten::clone(aten::_softmax(
                            aten::add.Tensor(
                                aten::mul.Tensor(aten::view(aten::bmm("q"_x, "k"_x).users<1>(), _).users<1>(),
                                                 slot<"scale", double>)
                                    .users<1>(),
                                "mask"_x)
                                .users<1>(),
                            -1, false)
                            .users<1>())
                .users<1>(),
            _)
            .users<1>(),
        _)
        .users<1>(),
    "v"_x);

inline constexpr auto gelu_tanh = aten::gelu("x"_x, "approximate"_kw = "tanh");

inline constexpr auto layer_norm =
    getitem(aten::native_layer_norm("x"_x, "shape"_x, slot<"w", Value>, slot<"b", Value>, slot<"eps", double>)
                .users<1>(),
            0);

inline constexpr auto mm_scale_cast =
    scale_cast(aten::mm("a"_x, "b"_x).users<1>(), "dtype"_kw = slot<"dtype", DType>,
               "clamp"_kw = slot<"clamp", bool>, "scale"_kw = slot<"scale", double>);

// ---- the eight-pattern scan ---------------------------------------------------------------
/// Per OpId, a bit per pattern whose root is that op (pattern i: bit i, in the order above),
/// built once per graph as a pass would build its dispatch table.
inline std::vector<std::uint8_t> dispatch_table() {
  std::vector<std::pair<OpId, int>> roots;
  auto mark = [&](const auto& p, int bit) {
    for (OpId id : root_ops(p)) roots.emplace_back(id, bit);  // interns the ops first
  };
  mark(view_view, 0); mark(permute_identity, 1); mark(to_copy_pair, 2); mark(mm_bias, 3);
  mark(attention, 4); mark(gelu_tanh, 5); mark(layer_norm, 6); mark(mm_scale_cast, 7);
  std::vector<std::uint8_t> t(OpRegistry::global().size(), 0);
  for (auto [id, bit] : roots) t[id] |= static_cast<std::uint8_t>(1u << bit);
  return t;
}

/// The eight DSL patterns with a reusable Match each: what bench_match times and what the
/// no-allocation test counts.
struct DslScan {
  Match<std::remove_const_t<decltype(view_view)>> m0;
  Match<std::remove_const_t<decltype(permute_identity)>> m1;
  Match<std::remove_const_t<decltype(to_copy_pair)>> m2;
  Match<std::remove_const_t<decltype(mm_bias)>> m3;
  Match<std::remove_const_t<decltype(attention)>> m4;
  Match<std::remove_const_t<decltype(gelu_tanh)>> m5;
  Match<std::remove_const_t<decltype(layer_norm)>> m6;
  Match<std::remove_const_t<decltype(mm_scale_cast)>> m7;
  std::vector<std::uint8_t> table = dispatch_table();

  /// Tries the patterns of `mask` at node n; returns how many matched.
  std::size_t at(const Graph& g, NodeId n, std::uint8_t mask) {
    std::size_t found = 0;
    if (mask & 1) found += match_into(view_view, g, n, m0);
    if (mask & 2) found += match_into(permute_identity, g, n, m1);
    if (mask & 4) found += match_into(to_copy_pair, g, n, m2);
    if (mask & 8) found += match_into(mm_bias, g, n, m3);
    if (mask & 16) found += match_into(attention, g, n, m4);
    if (mask & 32) found += match_into(gelu_tanh, g, n, m5);
    if (mask & 64) found += match_into(layer_norm, g, n, m6);
    if (mask & 128) found += match_into(mm_scale_cast, g, n, m7);
    return found;
  }
  /// Every node, each pattern whose root op fits (through the table).
  std::size_t scan(const Graph& g) {
    std::size_t found = 0;
    for (NodeId n = g.first(); n != no_node; n = g.next(n)) {
      const OpId op = g[n].op();
      if (op < table.size() && table[op]) found += at(g, n, table[op]);
    }
    return found;
  }
  /// Every node, every pattern (no table): failures at the root op as well.
  std::size_t scan_all(const Graph& g) {
    std::size_t found = 0;
    for (NodeId n = g.first(); n != no_node; n = g.next(n)) found += at(g, n, 0xff);
    return found;
  }
};

// ---- hand-written matchers ----------------------------------------------------------------
// Plain C++ over the graph API: the op ids are looked up once; each matcher checks ops, user
// counts and arguments through Node::arg(i) and fills a small struct of captures.
struct Ops {
  OpId view, permute, to_copy, add, mm, bmm, expand, clone, softmax, mul, gelu, layer_norm,
      getitem, scale_cast;
  Ops()
      : view(std::remove_const_t<decltype(aten::view)>::id()),
        permute(std::remove_const_t<decltype(aten::permute)>::id()),
        to_copy(std::remove_const_t<decltype(aten::_to_copy)>::id()),
        add(std::remove_const_t<decltype(aten::add.Tensor)>::id()),
        mm(std::remove_const_t<decltype(aten::mm)>::id()),
        bmm(std::remove_const_t<decltype(aten::bmm)>::id()),
        expand(std::remove_const_t<decltype(aten::expand)>::id()),
        clone(std::remove_const_t<decltype(aten::clone)>::id()),
        softmax(std::remove_const_t<decltype(aten::_softmax)>::id()),
        mul(std::remove_const_t<decltype(aten::mul.Tensor)>::id()),
        gelu(std::remove_const_t<decltype(aten::gelu)>::id()),
        layer_norm(std::remove_const_t<decltype(aten::native_layer_norm)>::id()),
        getitem(std::remove_const_t<decltype(::ctmatch::dsl::getitem)>::id()),
        scale_cast(std::remove_const_t<decltype(match_bench::scale_cast)>::id()) {}
};

namespace hand {

/// The node an argument refers to, when it is `op` with exactly one user; else no_node.
inline NodeId single_user_input(const Graph& g, const Value* v, OpId op) {
  if (!v) return no_node;
  NodeId id = v->node();
  if (id == no_node) return no_node;
  const Node& n = g[id];
  return n.op() == op && n.num_users() == 1 ? id : no_node;
}

struct ViewView { NodeId x; const Value* s2; };
inline bool view_view(const Ops& o, const Graph& g, NodeId root, ViewView& c) {
  const Node& n = g[root];
  if (n.op() != o.view) return false;
  NodeId in = single_user_input(g, n.arg(0), o.view);
  if (in == no_node) return false;
  c.x = g[in].arg(0)->node();
  if (c.x == no_node) return false;
  c.s2 = n.arg(1);
  return true;
}

struct PermuteIdentity { NodeId x; };
inline bool permute_identity(const Ops& o, const Graph& g, NodeId root, PermuteIdentity& c) {
  const Node& n = g[root];
  if (n.op() != o.permute) return false;
  NodeId in = single_user_input(g, n.arg(0), o.permute);
  if (in == no_node) return false;
  c.x = g[in].arg(0)->node();
  if (c.x == no_node) return false;
  const std::vector<Value>* p1 = g[in].arg(1)->items();
  const std::vector<Value>* p2 = n.arg(1)->items();
  if (!p1 || !p2 || p1->size() != p2->size()) return false;
  for (const Value& v : *p1)
    if (!v.is<std::int64_t>()) return false;
  for (std::size_t i = 0; i < p2->size(); ++i) {
    const std::int64_t* j = (*p2)[i].get_if<std::int64_t>();
    if (!j || *j < 0 || static_cast<std::size_t>(*j) >= p1->size() ||
        *(*p1)[static_cast<std::size_t>(*j)].get_if<std::int64_t>() != static_cast<std::int64_t>(i))
      return false;
  }
  return true;
}

/// The node writes no argument other than self and dtype.
inline bool only_dtype(const Node& n) {
  for (std::size_t i = 2; i < 7; ++i)
    if (n.arg_written(i)) return false;
  return true;
}
struct ToCopyPair { NodeId x; ScalarType d1, d2; };
inline bool to_copy_pair(const Ops& o, const Graph& g, NodeId root, ToCopyPair& c) {
  const Node& n = g[root];
  if (n.op() != o.to_copy || !only_dtype(n)) return false;
  NodeId in = single_user_input(g, n.arg(0), o.to_copy);
  if (in == no_node || !only_dtype(g[in])) return false;
  c.x = g[in].arg(0)->node();
  if (c.x == no_node) return false;
  const ScalarType* d1 = g[in].arg(1)->get_if<ScalarType>();
  const ScalarType* d2 = n.arg(1)->get_if<ScalarType>();
  if (!d1 || !d2) return false;
  c.d1 = *d1;
  c.d2 = *d2;
  return is_float_type(c.d1) && is_float_type(c.d2) && itemsize(c.d1) >= itemsize(c.d2);
}

struct MmBias { NodeId a, b, bias; };
inline bool mm_bias(const Ops& o, const Graph& g, NodeId root, MmBias& c) {
  const Node& n = g[root];
  if (n.op() != o.add || n.arg_written(2)) return false;
  for (int k = 0; k < 2; ++k) {
    NodeId m = single_user_input(g, n.arg(k), o.mm);
    if (m == no_node) continue;
    c.bias = n.arg(1 - k)->node();
    c.a = g[m].arg(0)->node();
    c.b = g[m].arg(1)->node();
    if (c.bias != no_node && c.a != no_node && c.b != no_node) return true;
  }
  return false;
}

struct Attention { NodeId q, k, v, mask; double scale; };
inline bool attention(const Ops& o, const Graph& g, NodeId root, Attention& c) {
  const Node& n = g[root];
  if (n.op() != o.bmm) return false;
  NodeId view2 = single_user_input(g, n.arg(0), o.view);
  if (view2 == no_node) return false;
  NodeId expand = single_user_input(g, g[view2].arg(0), o.expand);
  if (expand == no_node) return false;
  NodeId clone = single_user_input(g, g[expand].arg(0), o.clone);
  if (clone == no_node) return false;
  NodeId softmax = single_user_input(g, g[clone].arg(0), o.softmax);
  if (softmax == no_node) return false;
  const Node& sm = g[softmax];
  const std::int64_t* dim = sm.arg(1)->get_if<std::int64_t>();
  const bool* half = sm.arg(2)->get_if<bool>();
  if (!dim || *dim != -1 || !half || *half) return false;
  NodeId add = single_user_input(g, sm.arg(0), o.add);
  if (add == no_node) return false;
  NodeId mul = single_user_input(g, g[add].arg(0), o.mul);
  if (mul == no_node) return false;
  c.mask = g[add].arg(1)->node();
  if (c.mask == no_node) return false;
  const double* scale = g[mul].arg(1)->get_if<double>();
  if (!scale) return false;
  c.scale = *scale;
  NodeId view1 = single_user_input(g, g[mul].arg(0), o.view);
  if (view1 == no_node) return false;
  NodeId bmm = single_user_input(g, g[view1].arg(0), o.bmm);
  if (bmm == no_node) return false;
  c.q = g[bmm].arg(0)->node();
  c.k = g[bmm].arg(1)->node();
  c.v = n.arg(1)->node();
  return c.q != no_node && c.k != no_node && c.v != no_node;
}

struct GeluTanh { NodeId x; };
inline bool gelu_tanh(const Ops& o, const Graph& g, NodeId root, GeluTanh& c) {
  const Node& n = g[root];
  if (n.op() != o.gelu) return false;
  c.x = n.arg(0)->node();
  if (c.x == no_node) return false;
  const std::string* a = n.arg(1)->get_if<std::string>();
  return a && *a == "tanh";
}

struct LayerNorm { NodeId x; const Value *shape, *w, *b; double eps; };
inline bool layer_norm(const Ops& o, const Graph& g, NodeId root, LayerNorm& c) {
  const Node& n = g[root];
  if (n.op() != o.getitem || n.args().size() != 2) return false;
  const std::int64_t* idx = n.args()[1].get_if<std::int64_t>();
  if (!idx || *idx != 0) return false;
  NodeId ln = single_user_input(g, &n.args()[0], o.layer_norm);
  if (ln == no_node) return false;
  const Node& l = g[ln];
  c.x = l.arg(0)->node();
  if (c.x == no_node) return false;
  c.shape = l.arg(1);
  c.w = l.arg(2);
  c.b = l.arg(3);
  const double* eps = l.arg(4)->get_if<double>();
  if (!eps) return false;
  c.eps = *eps;
  return true;
}

struct MmScaleCast { NodeId a, b; ScalarType dtype; bool clamp; double scale; };
inline bool mm_scale_cast(const Ops& o, const Graph& g, NodeId root, MmScaleCast& c) {
  const Node& n = g[root];
  if (n.op() != o.scale_cast) return false;
  NodeId m = single_user_input(g, n.arg(0), o.mm);
  if (m == no_node) return false;
  c.a = g[m].arg(0)->node();
  c.b = g[m].arg(1)->node();
  if (c.a == no_node || c.b == no_node) return false;
  const ScalarType* d = n.arg(1)->get_if<ScalarType>();
  const bool* cl = n.arg(2)->get_if<bool>();
  const double* s = n.arg(3)->get_if<double>();
  if (!d || !cl || !s) return false;
  c.dtype = *d;
  c.clamp = *cl;
  c.scale = *s;
  return true;
}

}  // namespace hand
}  // namespace match_bench
