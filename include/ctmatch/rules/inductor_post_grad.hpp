#pragma once
// `inductor_post_grad`: the graph rewrites of PyTorch Inductor's post-grad pattern passes
// (torch 2.11, torch/_inductor/fx_passes/post_grad.py, `pass_patterns[0..2]`, run one after the
// other) as ctmatch rules, in Inductor's order. docs/inductor_entries.md lists every entry and
// which are ported; tests/rewrite/test_inductor_post_grad.cpp checks the per-entry counts and
// the graphs after against Inductor's on the oracle's post-grad graphs (tests/data/inductor).
// As in inductor_joint.hpp, a handler that looks and changes nothing returns the root
// (RuleStats::unchanged): matches + unchanged is Inductor's count.
//
// pass_patterns[2]:
//   unfuse_bias_add_to_pointwise  addmm(inp, m1, m2, beta=, alpha=), inp on a GPU and every
//                      use of the result pointwise (through views and getitem)  ->
//                      add(inp', mm(m1, m2)'), with mm' = mul(mm, alpha) when alpha != 1 and
//                      inp' = mul(inp, beta) when beta != 1; unchanged for a float16 or bfloat16
//                      inp (Inductor's handler returns there)
//   addmm              add(inp, mm(m1, m2)) and add(mm(m1, m2), inp) (that order), inp a tensor
//                      that broadcasts to the product, of the matrices' dtype, and the unfused
//                      form above not preferred  ->  addmm(inp, m1, m2)
//
// Not yet (see the table): pointless_cumsum_replacement, the randperm index patterns,
// reuse_partial (pass 2's multi-root amax/amin pattern). The lowering patterns (mm_plus_mm,
// cat_slice_cat, the split/cat pairs) emit Inductor IR, not graphs: left out.
#include <vector>

#include "../graph/op_tags.hpp"
#include "../pattern.hpp"
#include "../rewrite/pattern_rule.hpp"
#include "../rewrite/rule_set.hpp"
#include "../schema/registry.hpp"

namespace ctmatch::rules {

namespace inductor_post_grad_detail {
using namespace ctmatch::dsl;

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
  if (!g[inp].meta.on_gpu()) return false;
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
      const std::optional<ScalarType>& dtype = g[get<"inp">(m)].meta.dtype;
      // An extra float16/bfloat16 rounding at the product compounds through deep models.
      if (dtype == ScalarType::Half || dtype == ScalarType::BFloat16) return m.root();
      static const OpId mul_tensor = intern_op("aten.mul.Tensor");
      NodeId product = make(b, aten::mm(use(get<"mat1">(m)), use(get<"mat2">(m))));
      b.meta(product) = g[m.root()].meta;
      if (const Value& alpha = get<"alpha">(m); !is_one(alpha)) product = b.call(mul_tensor, {Value(NodeRef{product}), alpha});
      NodeId inp = get<"inp">(m);
      if (const Value& beta = get<"beta">(m); !is_one(beta)) inp = b.call(mul_tensor, {Value(NodeRef{inp}), beta});
      return make(b, aten::add.Tensor(use(inp), use(product)));
    });

/// Inductor's is_valid_addmm_fusion, for add(...) = `out` of mm(mat1, mat2) and `inp`.
inline bool valid_addmm_fusion(const Graph& g, NodeId inp, NodeId mat1, NodeId mat2, NodeId out) {
  const TensorMeta &i = g[inp].meta, &a = g[mat1].meta, &c = g[mat2].meta;
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
  b.meta(r) = b.graph()[m.root()].meta;
  return r;
};
// Registered by two decorators on one function: the lower one, add(inp, mm), comes first.
inline constexpr auto addmm_inp_mm = rewrite<"addmm">(
    extra_check(aten::add.Tensor("inp"_x, aten::mm("mat1"_x, "mat2"_x).users<1>()), addmm_check), addmm_replace);
inline constexpr auto addmm_mm_inp = rewrite<"addmm">(
    extra_check(aten::add.Tensor(aten::mm("mat1"_x, "mat2"_x).users<1>(), "inp"_x), addmm_check), addmm_replace);
}  // namespace inductor_post_grad_detail

/// The ported entries of Inductor's post-grad pattern passes, in its order (all of them from
/// pass_patterns[2] so far: one sweep runs them as Inductor's third pass does).
inline auto inductor_post_grad() {
  using namespace inductor_post_grad_detail;
  return rule_set(unfuse_bias_add_to_pointwise, addmm_inp_mm, addmm_mm_inp);
}

}  // namespace ctmatch::rules
