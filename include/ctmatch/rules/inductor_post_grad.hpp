#pragma once
// `inductor_post_grad`: the graph rewrites of PyTorch Inductor's post-grad pattern passes
// (torch 2.11, torch/_inductor/fx_passes/post_grad.py, `pass_patterns[0..2]`, run one after the
// other) as ctmatch rules, in Inductor's order. docs/inductor_entries.md lists every entry and
// which are ported; tests/rewrite/test_inductor_post_grad.cpp checks the per-entry counts and
// the graphs after against Inductor's on the oracle's post-grad graphs (tests/data/inductor).
// As in inductor_joint.hpp, a handler that looks and changes nothing returns the root
// (RuleStats::unchanged): matches + unchanged is Inductor's count.
//
// pass_patterns[1]:
//   pointless_cumsum_replacement  cumsum(full(shape, v, dtype=D, layout=, device=,
//                      pin_memory=False), dim)  ->  expand(view(v * arange(1, n + 1)))
//   randperm_index_add_pattern  see inductor_misc.hpp (Inductor's joint pass, which runs first
//                      inside torch.compile, has the same entry and takes its matches)
// pass_patterns[2]:
//   unfuse_bias_add_to_pointwise  addmm(inp, m1, m2, beta=, alpha=), inp on a GPU and every
//                      use of the result pointwise (through views and getitem)  ->
//                      add(inp', mm(m1, m2)'), with mm' = mul(mm, alpha) when alpha != 1 and
//                      inp' = mul(inp, beta) when beta != 1; unchanged for a float16 or bfloat16
//                      inp (Inductor's handler returns there)
//   addmm              add(inp, mm(m1, m2)) and add(mm(m1, m2), inp) (that order), inp a tensor
//                      that broadcasts to the product, of the matrices' dtype, and the unfused
//                      form above not preferred  ->  addmm(inp, m1, m2)
//   reuse_partial      amax(x, dims, keepdim) and amax(x) or max(x) (amin, min the same), x of
//                      at least 4096 elements  ->  the partial one, and the full one of it
//
// Left out: randperm_index_pattern (see inductor_misc.hpp), and the lowering patterns
// (mm_plus_mm, cat_slice_cat, the split/cat pairs), which emit Inductor IR, not graphs.
#include <vector>

#include "../graph/op_tags.hpp"
#include "../pattern.hpp"
#include "../rewrite/pattern_rule.hpp"
#include "../rewrite/rule_set.hpp"
#include "../schema/registry.hpp"
#include "inductor_misc.hpp"
#include "inductor_ops.hpp"

namespace ctmatch::rules {

namespace inductor_post_grad_detail {
using namespace ctmatch::dsl;
namespace ops = inductor_ops;

/// Inductor's is_view: an overload with an alias annotation on an argument (`Tensor(a)`).
inline bool is_view(OpId op) {
  const schema::FunctionSchema* s = schema::find_schema(op);
  if (!s) return false;
  for (std::size_t i = 0; i < s->num_args; ++i)
    if (!s->args[i].alias.empty()) return true;
  return false;
}

/// Inductor's is_pointwise_use: a call of an op tagged pointwise, or of a view or getitem whose
/// own uses all are.
inline bool is_pointwise_use(const Graph& g, NodeId use) {
  static const OpId getitem_op = intern_op("operator.getitem");
  const Node& n = g[use];
  if (n.kind() != NodeKind::CallFunction) return false;
  if (n.op() == getitem_op || is_view(n.op())) {
    for (NodeId u : n.users())
      if (!is_pointwise_use(g, u)) return false;
    return true;
  }
  return OpRegistry::global().tags(n.op()).has(OpTag::pointwise);
}

/// Inductor's should_prefer_unfused_addmm: `inp` on a GPU, and every use of `out` pointwise.
inline bool prefer_unfused_addmm(const Graph& g, NodeId inp, NodeId out) {
  if (!g[inp].meta().on_gpu()) return false;
  for (NodeId u : g[out].users())
    if (!is_pointwise_use(g, u)) return false;
  return true;
}

/// A Scalar argument equal to 1 (written as an int or a float).
inline bool is_one(const Value& v) {
  if (const auto* i = v.get_if<std::int64_t>()) return *i == 1;
  if (const auto* d = v.get_if<double>()) return *d == 1.0;
  return false;
}

inline constexpr auto unfuse_bias_add_to_pointwise = rewrite<"unfuse_bias_add_to_pointwise">(
    extra_check(aten::addmm("inp"_x, "mat1"_x, "mat2"_x, "beta"_kw = slot<"beta", Value>,
                            "alpha"_kw = slot<"alpha", Value>),
                [](const auto& m, const Graph& g) { return prefer_unfused_addmm(g, get<"inp">(m), m.root()); }),
    [](const auto& m, RewriteBuilder& b) -> NodeId {
      const Graph& g = b.graph();
      const std::optional<ScalarType>& dtype = g[get<"inp">(m)].meta().dtype;
      // An extra float16/bfloat16 rounding at the product compounds through deep models.
      if (dtype == ScalarType::Half || dtype == ScalarType::BFloat16) return m.root();
      static const OpId mul_tensor = intern_op("aten.mul.Tensor");
      NodeId product = make(b, aten::mm(use(get<"mat1">(m)), use(get<"mat2">(m))));
      b.meta(product) = g[m.root()].meta();
      if (const Value& alpha = get<"alpha">(m); !is_one(alpha)) product = b.call(mul_tensor, {Value(NodeRef{product}), alpha});
      NodeId inp = get<"inp">(m);
      if (const Value& beta = get<"beta">(m); !is_one(beta)) inp = b.call(mul_tensor, {Value(NodeRef{inp}), beta});
      return make(b, aten::add.Tensor(use(inp), use(product)));
    });

/// Inductor's is_valid_addmm_fusion, for add(...) = `out` of mm(mat1, mat2) and `inp`.
inline bool valid_addmm_fusion(const Graph& g, NodeId inp, NodeId mat1, NodeId mat2, NodeId out) {
  const TensorMeta &i = g[inp].meta(), &a = g[mat1].meta(), &c = g[mat2].meta();
  if (!i.dtype || !i.shape || !a.shape || !c.shape || a.shape->empty() || c.shape->size() < 2) return false;
  // is_expandable_to(inp's shape, (mat1.shape[0], mat2.shape[1]))
  const std::vector<Value> product{a.shape->front(), (*c.shape)[1]};
  const std::vector<Value>& s = *i.shape;
  if (s.size() > product.size()) return false;
  for (std::size_t k = 1; k <= s.size(); ++k)
    if (s[s.size() - k] != product[product.size() - k] && s[s.size() - k] != Value(1)) return false;
  if (i.dtype != a.dtype || i.dtype != c.dtype) return false;
  return !prefer_unfused_addmm(g, inp, out);
}

inline constexpr auto addmm_check = [](const auto& m, const Graph& g) {
  return valid_addmm_fusion(g, get<"inp">(m), get<"mat1">(m), get<"mat2">(m), m.root());
};
inline constexpr auto addmm_replace = [](const auto& m, RewriteBuilder& b) -> NodeId {
  NodeId r = make(b, aten::addmm(use(get<"inp">(m)), use(get<"mat1">(m)), use(get<"mat2">(m))));
  b.meta(r) = b.graph()[m.root()].meta();
  return r;
};
// Registered by two decorators on one function: the lower one, add(inp, mm), comes first.
inline constexpr auto addmm_inp_mm = rewrite<"addmm">(
    extra_check(aten::add.Tensor("inp"_x, aten::mm("mat1"_x, "mat2"_x).users<1>()), addmm_check), addmm_replace);
inline constexpr auto addmm_mm_inp = rewrite<"addmm">(
    extra_check(aten::add.Tensor(aten::mm("mat1"_x, "mat2"_x).users<1>(), "inp"_x), addmm_check), addmm_replace);

// ---- pass_patterns[1] ----

/// The `full` that pointless_cumsum_replacement reads: aten.full(shape, fill_value) written
/// with dtype=, layout=, device= and pin_memory=False, as Inductor's tree has it.
inline const Node* full_of_cumsum(const Graph& g, const Value& v) {
  static const OpId full = intern_op("aten.full.default");
  if (!v.is_node()) return nullptr;
  const Node& f = g[v.node()];
  if (f.kind() != NodeKind::CallFunction || f.op() != full || f.args().size() != 2) return nullptr;
  const Value* pin = f.kwarg("pin_memory");
  if (!f.kwarg("dtype") || !f.kwarg("layout") || !f.kwarg("device") || !pin || *pin != Value(false)) return nullptr;
  return &f;
}

// pointless_cumsum_replacement: cumsum(full(shape, v, dtype=D, ...), dim) is v * (1, 2, ..., n)
// along dim, broadcast to shape. The full is not part of the match (Inductor replaces the
// cumsum alone and leaves the full for dead-code elimination): the check reads it instead.
// The replacement is what Inductor's trace of arange(1, n + 1) * v makes: for an integral or
// bool D (cumsum gives int64) iota(n, start=1); for a floating D iota(n, start=0) * 1 + 1 cast
// to D; then times v, viewed as [1, .., n, .., 1] and expanded to shape.
inline constexpr auto pointless_cumsum_replacement = rewrite<"pointless_cumsum_replacement">(
    aten::cumsum("full"_x, slot<"dim", std::int64_t>).where([](const Node& n, const Graph& g) {
      return n.args().size() == 2 && full_of_cumsum(g, n.args()[0]) != nullptr;
    }),
    [](const auto& m, RewriteBuilder& b) -> NodeId {
      const Graph& g = b.graph();
      const Node& full = *full_of_cumsum(g, Value(NodeRef{get<"full">(m)}));
      const Value& shape = full.args()[0];
      const Value& fill = full.args()[1];
      const Value& dtype = *full.kwarg("dtype");
      const Value& device = *full.kwarg("device");
      if (!shape.is_list() || !dtype.get_if<ScalarType>()) return m.root();
      const std::vector<Value>& dims = *shape.items();
      auto rank = static_cast<std::int64_t>(dims.size());
      std::int64_t dim = get<"dim">(m);
      if (dim < 0) dim += rank;
      if (dim < 0 || dim >= rank) return m.root();
      const Value n = dims[static_cast<std::size_t>(dim)];
      ScalarType d = *dtype.get_if<ScalarType>();
      const bool integral = !is_floating_point(d) && !is_complex(d);  // bool included
      static const OpId iota = decltype(ops::iota)::id(), mul = intern_op("aten.mul.Tensor"),
                        add = intern_op("aten.add.Tensor"), convert = decltype(ops::convert_element_type)::id(),
                        view = decltype(aten::view)::id(), expand = decltype(aten::expand)::id();
      auto arange = [&](std::int64_t start) {
        return b.call(iota, {n},
                      {{"start", Value(start)}, {"step", Value(1)}, {"dtype", Value(ScalarType::Long)},
                       {"device", device}, {"requires_grad", Value(false)}});
      };
      NodeId idx;
      if (integral) {
        idx = arange(1);
      } else {
        NodeId steps = b.call(mul, {NodeRef{arange(0)}, Value(1)});
        idx = b.call(convert, {NodeRef{b.call(add, {NodeRef{steps}, Value(1)})}, Value(d)});
      }
      NodeId scaled = b.call(mul, {NodeRef{idx}, fill});
      std::vector<Value> inter(dims.size(), Value(1));
      inter[static_cast<std::size_t>(dim)] = n;
      NodeId viewed = b.call(view, {NodeRef{scaled}, Value::list(std::move(inter))});
      return b.call(expand, {NodeRef{viewed}, shape});
    });

// ---- pass_patterns[2] ----

// reuse_partial: a partial amax (amin) of an input and a full amax or max (amin or min) of the
// same input  ->  the partial reduction, and the full one taken of it. Inductor's handler
// leaves inputs of fewer than 4096 elements (or of a size not known) alone. Its tree offers
// both full reductions at once, taking the first user of the input that is either; here they
// are two rules, the same-op one first.
inline bool at_least_4096(const Graph& g, NodeId input) {
  const std::optional<std::vector<Value>>& shape = g[input].meta().shape;
  if (!shape) return false;
  std::int64_t numel = 1;
  for (const Value& d : *shape) {
    const auto* k = d.get_if<std::int64_t>();
    if (!k) return false;
    numel *= *k;
    if (numel >= 4096) return true;
  }
  return numel >= 4096;
}
inline constexpr auto reuse_partial_replace = [](const auto& m, RewriteBuilder& b) -> std::array<NodeId, 2> {
  const Graph& g = b.graph();
  const NodeId partial = get<"partial">(m), full = get<"full">(m), input = get<"input">(m);
  if (!at_least_4096(g, input)) return {partial, full};
  const OpId partial_op = g[partial].op(), full_op = g[full].op();
  NodeId p = b.call(partial_op, {NodeRef{input}, get<"reduced_dims">(m), get<"keepdim">(m)});
  b.meta(p) = g[partial].meta();
  NodeId c = b.call(full_op, {NodeRef{p}});
  b.meta(c) = g[full].meta();
  return {p, c};
};
template <class PartialOp, class FullOp>
constexpr auto reuse_partial_pattern(PartialOp partial_op, FullOp full_op) {
  return multi(partial_op("input"_x, slot<"reduced_dims", Value>, slot<"keepdim", Value>)
                   .template named<"partial">()
                   .where(ops::positional_args<3>),
               full_op("input"_x).template named<"full">().where(ops::positional_args<1>));
}
inline constexpr auto reuse_partial_amax =
    rewrite<"reuse_partial">(reuse_partial_pattern(ops::amax, ops::amax), reuse_partial_replace);
inline constexpr auto reuse_partial_amax_max =
    rewrite<"reuse_partial">(reuse_partial_pattern(ops::amax, ops::max), reuse_partial_replace);
inline constexpr auto reuse_partial_amin =
    rewrite<"reuse_partial">(reuse_partial_pattern(ops::amin, ops::amin), reuse_partial_replace);
inline constexpr auto reuse_partial_amin_min =
    rewrite<"reuse_partial">(reuse_partial_pattern(ops::amin, ops::min), reuse_partial_replace);
}  // namespace inductor_post_grad_detail

/// The ported entries of pass_patterns[1] and [2], each in Inductor's order: run one sweep of
/// each, in turn, as Inductor runs its passes.
inline auto inductor_post_grad_pass1() {
  using namespace inductor_post_grad_detail;
  return rule_set(pointless_cumsum_replacement, inductor_misc_detail::randperm_index_add_pattern);
}
inline auto inductor_post_grad_pass2() {
  using namespace inductor_post_grad_detail;
  return rule_set(unfuse_bias_add_to_pointwise, addmm_inp_mm, addmm_mm_inp, reuse_partial_amax, reuse_partial_amax_max,
                  reuse_partial_amin, reuse_partial_amin_min);
}
/// Both passes' entries in one set, for a single sweep (`--rules inductor_post_grad`): the
/// same as the two sweeps wherever no pass-2 rule matches what a pass-1 rule made.
inline auto inductor_post_grad() { return concat(inductor_post_grad_pass1(), inductor_post_grad_pass2()); }

}  // namespace ctmatch::rules
