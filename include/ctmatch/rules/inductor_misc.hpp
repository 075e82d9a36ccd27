#pragma once
// The randperm index pattern of Inductor's misc_patterns.py (torch 2.11), which Inductor
// registers in both its joint-graph pass and its post-grad pass 1: both ports
// (inductor_joint.hpp, inductor_post_grad.hpp) take it from here.
//
//   randperm_index_add_pattern   index_put(x, [slice(randperm(n, device=d, pin_memory=False),
//                      0, 0, k)], y, True), the slice returned too (Inductor's
//                      MultiOutputPattern), n = x.shape[0], k = y.shape[0], d = x's device
//                      ->  index_put(x, [s], _unsafe_index(x, [s]) + y) with s a new
//                      slice(randperm(n, ...), 0, 0, k), which also takes the old slice's uses:
//                      the permutation's indices are unique, so no accumulation is needed.
//
// Inductor's entry is a register_replacement: its pattern tree ignores every int and device
// (`*`), and its check retraces the search function at the match's shapes, which pins them as
// above. New nodes go before the slice: a `y` defined after it fails the rewrite (the graph is
// left as it was), where Inductor would insert further down.
//
// Its sibling randperm_index_pattern (index(x, [randperm(...)]) and the permutation) is not
// ported: at torch 2.11 its pattern lost the `slice_shape` argument its check asks for, so every
// match raises "Not all inputs to pattern found in match.kwargs" and fails torch.compile (the
// oracle graph randperm_index_pair shows it). There is no result of Inductor's to reproduce.
#include <optional>

#include "../pattern.hpp"
#include "../rewrite/pattern_rule.hpp"
#include "inductor_ops.hpp"

namespace ctmatch::rules {

namespace inductor_misc_detail {
using namespace ctmatch::dsl;
namespace ops = inductor_ops;

/// dims[i] of a tensor's metadata, where it is a known integer.
inline std::optional<std::int64_t> known_dim(const TensorMeta& t, std::size_t i) {
  if (!t.shape || t.shape->size() <= i) return std::nullopt;
  const auto* d = (*t.shape)[i].get_if<std::int64_t>();
  return d ? std::optional<std::int64_t>(*d) : std::nullopt;
}

/// What the retrace at the match's shapes pins: randperm(x.shape[0], device=x.device), its
/// slice [0:y.shape[0]] along dimension 0.
inline bool randperm_index_add_check(const Graph& g, NodeId perm, NodeId slice, NodeId x, NodeId y) {
  const TensorMeta &xm = g[x].meta(), &ym = g[y].meta();
  const std::optional<std::int64_t> rows = known_dim(xm, 0), taken = known_dim(ym, 0);
  if (!rows || !taken || !xm.device) return false;
  const Node &p = g[perm], &s = g[slice];
  const Value* device = p.kwarg("device");
  return p.args()[0] == Value(*rows) && device && *device == Value(*xm.device) && s.args()[1] == Value(0) &&
         s.args()[2] == Value(0) && s.args()[3] == Value(*taken);
}

// Inductor's trees fail a node whose positional arity differs from theirs (ops::positional_args),
// and compare the constant pin_memory=False with the node's (None where it is not written).
inline constexpr auto unpinned = [](const Node& n) {
  const Value* pin = n.kwarg("pin_memory");
  return n.args().size() == 1 && pin && *pin == Value(false);
};

inline constexpr auto randperm_index_add_pattern = rewrite<"randperm_index_add_pattern">(
    extra_check(
        multi(aten::slice.Tensor(ops::randperm(_).named<"perm">().users<1>().where(unpinned), _, _, _)
                  .named<"index">()
                  .where(ops::positional_args<4>),
              ops::index_put("x"_x, list("index"_x), "y"_x, slot<"accumulate", bool>)
                  .named<"put">()
                  .where(ops::positional_args<4>)),
        [](const auto& m, const Graph& g) {
          return get<"accumulate">(m) &&
                 randperm_index_add_check(g, get<"perm">(m), get<"index">(m), get<"x">(m), get<"y">(m));
        }),
    [](const auto& m, RewriteBuilder& b) -> std::array<NodeId, 2> {
      const Graph& g = b.graph();
      const NodeId old_perm = get<"perm">(m), old_slice = get<"index">(m), x = get<"x">(m), y = get<"y">(m);
      static const OpId perm_op = decltype(ops::randperm)::id(), slice_op = decltype(aten::slice.Tensor)::id(),
                        unsafe_index = decltype(ops::unsafe_index)::id(), add = decltype(aten::add.Tensor)::id(),
                        index_put = decltype(ops::index_put)::id();
      // Copied before the first node is made: making nodes may move the node array.
      const Value n = g[old_perm].args()[0], device = *g[old_perm].kwarg("device");
      const Value dim = g[old_slice].args()[1], start = g[old_slice].args()[2], end = g[old_slice].args()[3];
      const TensorMeta perm_meta = g[old_perm].meta(), slice_meta = g[old_slice].meta(), put_meta = g[get<"put">(m)].meta();
      // The k rows taken from x, and those plus y (y broadcasts to them: index_put's rule).
      TensorMeta rows = g[x].meta();
      rows.shape->front() = end;
      rows.strides.reset();

      NodeId perm = b.call(perm_op, {n}, {{"device", device}, {"pin_memory", Value(false)}});
      b.meta(perm) = perm_meta;
      NodeId slice = b.call(slice_op, {NodeRef{perm}, dim, start, end});
      b.meta(slice) = slice_meta;
      const Value indices = Value::list({Value(NodeRef{slice})});
      NodeId taken = b.call(unsafe_index, {NodeRef{x}, indices});
      b.meta(taken) = rows;
      NodeId sum = b.call(add, {NodeRef{taken}, NodeRef{y}});
      b.meta(sum) = std::move(rows);
      NodeId put = b.call(index_put, {NodeRef{x}, indices, NodeRef{sum}});
      b.meta(put) = put_meta;
      return {slice, put};
    });
}  // namespace inductor_misc_detail

}  // namespace ctmatch::rules
