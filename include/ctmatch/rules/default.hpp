#pragma once
// The `default` rule set: clean-ups a graph compiler wants before lowering, each safe on its
// own. README.md ("Built-in rule sets") shows each with a before/after graph. Rules that depend on
// shapes or dtypes read the metadata a graph carries (the torch.export JSON format has it, FX
// text does not) and refuse — no match — when it is absent.
//
//   view_noop        view(x, size) -> x                   x's shape is `size`
//   view_view        view(view(x, s1), s2) -> view(x, s2) (the inner view stays if others use it)
//   permute_noop     permute(x, [0, 1, ..., n-1]) -> x
//   permute_permute  permute(permute(x, p1), p2) -> permute(x, p1[p2[i]]), or x if that is the
//                    identity (the inner permute stays if others use it)
//   expand_noop      expand(x, size) -> x                 x's shape is `size` (-1 keeps a dim)
//   clone_noop       clone(x) -> x                        no memory_format; the clone is not a
//                    graph output and nothing writes x or the clone
//   to_copy_noop     _to_copy(x, dtype=d) -> x            x's dtype is d; only dtype written;
//                    not a graph output, nothing writes x
//   to_copy_chain    _to_copy(_to_copy(x, dtype=d1), dtype=d2) -> _to_copy(x, dtype=d2)
//                    converting x's dtype to d1 is exact (widening), only dtype written
//   mm_bias_addmm    add(mm(a, b), bias) or add(bias, mm(a, b)) -> addmm(bias, a, b)
//                    no alpha; mm has one user; bias has mm's dtype and rank <= 2
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "../pattern.hpp"
#include "../rewrite/pattern_rule.hpp"
#include "../rewrite/rule_set.hpp"
#include "../rewrite/safety.hpp"

namespace ctmatch::rules {

/// Whether every value of dtype `from` converts to `to` exactly (and back).
constexpr bool converts_exactly(ScalarType from, ScalarType to) {
  using S = ScalarType;
  if (from == to || from == S::Bool) return true;
  switch (from) {
    case S::Half:
    case S::BFloat16: return to == S::Float || to == S::Double;
    case S::Float: return to == S::Double;
    case S::Byte:
    case S::Char:
      return to == S::Short || to == S::Int || to == S::Long || to == S::Half || to == S::BFloat16 ||
             to == S::Float || to == S::Double;
    case S::Short: return to == S::Int || to == S::Long || to == S::Float || to == S::Double;
    case S::Int: return to == S::Long || to == S::Double;
    default: return false;
  }
}

namespace default_detail {
using namespace ctmatch::dsl;

/// The concrete shape of node `n` from its metadata, or nullopt (absent, or symbolic).
inline std::optional<std::vector<std::int64_t>> known_shape(const Graph& g, NodeId n) {
  const auto& s = g[n].meta().shape;
  if (!s) return std::nullopt;
  std::vector<std::int64_t> out;
  for (const Value& v : *s) {
    const std::int64_t* i = v.get_if<std::int64_t>();
    if (!i) return std::nullopt;
    out.push_back(*i);
  }
  return out;
}

/// Removing a copy makes its users share x: refused when the copy is a graph output (the
/// output would alias an input or another output) or when x or the copy is written.
inline bool copy_removable(const Graph& g, NodeId copy, NodeId x) {
  for (NodeId u : g[copy].users())
    if (g[u].kind() == NodeKind::Output || is_mutating(g[u])) return false;
  for (NodeId u : g[x].users())
    if (is_mutating(g[u])) return false;
  return true;
}

struct shape_is_size {
  bool allow_minus_one;
  template <class M>
  bool operator()(const M& m, const Graph& g) const {
    auto shape = known_shape(g, get<"x">(m));
    auto size = get<"size">(m);
    if (!shape || shape->size() != size.size()) return false;
    for (std::size_t i = 0; i < size.size(); ++i)
      if (size[i] != (*shape)[i] && !(allow_minus_one && size[i] == -1)) return false;
    return true;
  }
};

struct is_identity_permutation {
  template <class M>
  constexpr bool operator()(const M& m) const {
    auto dims = get<"dims">(m);
    for (std::size_t i = 0; i < dims.size(); ++i)
      if (dims[i] != static_cast<std::int64_t>(i)) return false;
    return true;
  }
};

/// permute(permute(x, p1), p2): the composed permutation q[i] = p1[p2[i]] (dims normalized).
struct compose_permutations {
  template <class M>
  NodeId operator()(const M& m, RewriteBuilder& b) const {
    auto p1 = get<"p1">(m);
    auto p2 = get<"p2">(m);
    auto n = static_cast<std::int64_t>(p1.size());
    if (p2.size() != p1.size()) return no_node;
    auto norm = [n](std::int64_t d) { return d < 0 ? d + n : d; };
    std::vector<Value> q;
    bool identity = true;
    for (std::int64_t i = 0; i < n; ++i) {
      std::int64_t j = norm(p2[static_cast<std::size_t>(i)]);
      if (j < 0 || j >= n) return no_node;
      std::int64_t d = norm(p1[static_cast<std::size_t>(j)]);
      if (d < 0 || d >= n) return no_node;
      identity &= d == i;
      q.emplace_back(d);
    }
    NodeId x = get<"x">(m);
    if (identity) return x;
    return b.call(aten::permute.id(), {NodeRef{x}, Value::list(std::move(q))});
  }
};

inline constexpr auto view_noop =
    rewrite<"view_noop">(extra_check(aten::view("x"_x, slot<"size", IntList>), shape_is_size{false}), "x"_x);

inline constexpr auto view_view =
    rewrite<"view_view">(aten::view(aten::view("x"_x, _), "size"_x), aten::view("x"_x, "size"_x))
        .allow_shared_interior();

inline constexpr auto permute_noop =
    rewrite<"permute_noop">(extra_check(aten::permute("x"_x, slot<"dims", IntList>), is_identity_permutation{}), "x"_x);

inline constexpr auto permute_permute =
    rewrite<"permute_permute">(aten::permute(aten::permute("x"_x, slot<"p1", IntList>), slot<"p2", IntList>),
                               compose_permutations{})
        .allow_shared_interior();

inline constexpr auto expand_noop =
    rewrite<"expand_noop">(extra_check(aten::expand("x"_x, slot<"size", IntList>), shape_is_size{true}), "x"_x);

inline constexpr auto clone_noop = rewrite<"clone_noop">(
    extra_check(aten::clone("x"_x).exact_kwargs().named<"copy">(),
                [](const auto& m, const Graph& g) { return copy_removable(g, get<"copy">(m), get<"x">(m)); }),
    "x"_x);

inline constexpr auto to_copy_noop = rewrite<"to_copy_noop">(
    extra_check(aten::_to_copy("x"_x, "dtype"_kw = slot<"d", DType>).exact_kwargs().named<"copy">(),
                [](const auto& m, const Graph& g) {
                  NodeId x = get<"x">(m);
                  return g[x].meta().dtype == get<"d">(m) && copy_removable(g, get<"copy">(m), x);
                }),
    "x"_x);

inline constexpr auto to_copy_chain = rewrite<"to_copy_chain">(
    extra_check(aten::_to_copy(aten::_to_copy("x"_x, "dtype"_kw = slot<"d1", DType>).users<1>().exact_kwargs(),
                               "dtype"_kw = slot<"d2", DType>)
                    .exact_kwargs(),
                [](const auto& m, const Graph& g) {
                  auto from = g[get<"x">(m)].meta().dtype;
                  return from && converts_exactly(*from, get<"d1">(m));
                }),
    aten::_to_copy("x"_x, "dtype"_kw = slot<"d2", DType>));

/// The bias has the dtype of the mm, and a rank of at most 2 (so that addmm's broadcast of its
/// first argument gives what add's broadcast gave): two named parts, so that explain() says
/// which one failed.
struct bias_has_mm_dtype {
  template <class M>
  bool operator()(const M& m, const Graph& g) const {
    const TensorMeta &mt = g[get<"mm">(m)].meta(), &bt = g[get<"bias">(m)].meta();
    return mt.dtype && bt.dtype && *mt.dtype == *bt.dtype;
  }
};
struct bias_at_most_2d {
  template <class M>
  bool operator()(const M& m, const Graph& g) const {
    const TensorMeta& bt = g[get<"bias">(m)].meta();
    return bt.shape && bt.shape->size() <= 2;
  }
};
inline constexpr auto bias_dtype = check<"the bias has the mm's dtype">(bias_has_mm_dtype{});
inline constexpr auto bias_rank = check<"the bias is at most 2-d">(bias_at_most_2d{});
inline constexpr auto mm_bias_addmm = rewrite<"mm_bias_addmm">(
    extra_check(aten::add.Tensor(aten::mm("a"_x, "b"_x).users<1>().named<"mm">(), "bias"_x).exact_kwargs(),
                bias_dtype, bias_rank),
    aten::addmm("bias"_x, "a"_x, "b"_x));
inline constexpr auto mm_bias_addmm_swapped = rewrite<"mm_bias_addmm">(
    extra_check(aten::add.Tensor("bias"_x, aten::mm("a"_x, "b"_x).users<1>().named<"mm">()).exact_kwargs(),
                bias_dtype, bias_rank),
    aten::addmm("bias"_x, "a"_x, "b"_x));
}  // namespace default_detail

/// The default clean-ups, in the order they are tried at a node.
inline auto default_rules() {
  using namespace default_detail;
  return rule_set(view_noop, view_view, permute_noop, permute_permute, expand_noop, clone_noop, to_copy_noop,
                  to_copy_chain, mm_bias_addmm, mm_bias_addmm_swapped);
}

}  // namespace ctmatch::rules
