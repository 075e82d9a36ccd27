#pragma once
// `inductor_joint`: PyTorch Inductor's joint-graph pattern pass (torch 2.11,
// torch/_inductor/fx_passes/joint_graph.py, the `patterns` pass after lazy_init()) as ctmatch
// rules, in Inductor's order. docs/inductor_entries.md lists all 138 entries and which are
// ported; tests/rewrite/test_inductor_joint.cpp checks the per-entry counts against Inductor's
// on the oracle graphs (tests/data/inductor).
//
// Inductor's handlers look at a match and may leave the graph alone; Inductor counts every
// handler call. A port returns the root for "changed nothing" (RuleStats::unchanged), so
// matches + unchanged is Inductor's count for the entry.
//
//   fix_iota_device    prims.iota(n, start=, step=, dtype=, device=d, requires_grad=) whose users
//                      are all index.Tensor / index_put with one known device u, and u.type !=
//                      d.type  ->  the same iota on u
//   pointless_convert  convert_element_type(convert_element_type(x, d1) [one user], d2), d1 and
//                      d2 among f16/bf16/f32/f64  ->  convert_element_type(x, d2) (as torch 2.11
//                      has it: also where d1 is the narrower, which rounds through it)
//   bmm_to_mm          bmm(a, b), a and b on cuda with batch 1  ->  unsqueeze(mm(squeeze(a, 0),
//                      squeeze(b, 0)), 0) (Inductor traces this with replace_by_example)
//   scatter_upon_const_tensor  scatter(full(shape, bg, dtype=), dim, selector, val), the selector
//                      of size 1 along dim and no smaller than the full elsewhere  ->
//                      where(expand(selector, shape) == view(iota(shape[dim])), val, bg), the two
//                      scalars as scalar_tensors of torch.where's dtype for them
//   _sfdp_pattern_1, _sfdp_pattern_2  softmax(q @ k^T / s) @ v, softmax(q @ k^T * s) @ v, s a
//                      number, float32 and float16 inference forms  ->  the CPU flash kernel with
//                      scale 1 / s, s
//   _sfdp_pattern_5    softmax(q @ k^T / c + mask) @ v as decomposed, float32 and float16
//                      inference forms, _sfdp_params_check  ->  getitem(
//                      _scaled_dot_product_flash_attention_for_cpu(q, k, v, attn_mask=mask), 0)
//                      on CPU; left unchanged on other devices (Inductor's traced kernel choice
//                      there is not covered by the oracle)
//   _sfdp_pattern_7    softmax(permuted q @ permuted k^T / c) @ permuted v, the weights cast,
//                      float32 and float16 inference forms, _sfdp_params_check  ->  getitem(
//                      _scaled_dot_product_flash_attention_for_cpu(q', k', v'), 0) of the
//                      permuted inputs, on CPU (as pattern 5)
//   _sfdp_pattern_9    pattern 7 with the permuted query divided by c before the product
//   _sfdp_pattern_11   pattern 7 without the weights' cast, the scores divided by a number s,
//                      float32 and float16 inference forms  ->  as pattern 7, scale 1 / s
//   _sfdp_pattern_14   pattern 11 plus an additive mask, float32 and float16 inference forms  ->
//                      as pattern 11, with the mask (cast to the query's dtype where it differs)
//   _sfdp_pattern_16   pattern 14 with the weights cast: the forms of float16 inputs and a
//                      float32 mask, with and without the clones; refused on cuda  ->  as 14
//   _sfdp_pattern_15   pattern 11 with masked_fill(s, mask == 0 viewed (bs, 1, 1, k_len), -inf),
//                      float32 and float16 inference forms  ->  the permuted inputs and
//                      where(mask == 1, 0, -inf) into the CPU flash kernel, scale 1 / s
//   _sfdp_pattern_13   softmax(bmm(q, permute(k))) @ v on 3-d inputs, float32 and float16
//                      inference forms  ->  the inputs unsqueezed into the CPU flash kernel
//                      (scale 1.0), its result squeezed
//   _sfdp_pattern_18   pattern 11's attention with where(causal_mask, s / full(sqrt(d)),
//                      full(lowest)), the permuted key and value also roots (the program returns
//                      them), float32 and float16 inference forms, with and without the contiguous
//                      clones (batch 1)  ->  new permutes of k and v, where(causal_mask, 0, -inf),
//                      the CPU flash kernel with scale 1 / sqrt(d)
//   _sfdp_pattern_19   softmax(where(causal_mask, q @ k^T / full(sqrt(d)), full(lowest)) + mask)
//                      @ v, float32 and float16 inference forms  ->  where(causal_mask, mask, -inf)
//                      into the CPU flash kernel with scale 1 / sqrt(d)
//   _sfdp_pattern_20   pattern 15 with the permuted query divided by s before the product, float32
//                      and float16 inference forms  ->  as pattern 15
//   _sfdp_pattern_24   softmax(view(view(q @ k^T) + mask)) @ v, float32 and float16 inference
//                      forms, no check (as registered)  ->  the same replacement with scale=1.0
//   _sfdp_pattern_21 to _sfdp_pattern_23, _sfdp_pattern_25 to _sfdp_pattern_27 (T5)
//                      softmax(q' @ k'^T [+ mask]) @ v', no scale, 22/23/26/27 also returning k'
//                      and v'; float32 (21-23) and float16 forms, with and without the clones;
//                      25-27 refused on cuda  ->  the permuted inputs into the CPU flash kernel
//                      with scale 1
//   _sfdp_pattern_1, 2, 5, 8, 10, 11, 14 (float32, float16), 21, 22, 23 (float32), training
//                      forms: the attention and the gradients of query, key and value in the
//                      joint graph (a multi-root pattern)  ->  the CPU flash kernel and its
//                      backward (given the mask where the pattern adds one)
//   randperm_index_add_pattern  see inductor_misc.hpp (registered in this pass and post-grad's)
//
// The inference forms of patterns 3 and 12 have the tree and check of 1 and 11, which come
// first: they never fire and need no port. Nor do 16's two batch-1 inference forms: 5's trees
// match every graph theirs do (5's query, key and value may be the permutes 16 spells out, its
// divisor any value), and 16's check is 5's _sfdp_params_check and more, on inputs of the same
// dtype and device, so 5, registered first, takes their graphs (tools/oracle/entry_table.py
// finds both cases from the trees). Where Inductor's tree takes any value that its
// replacement assumes (the fulls of 18 and 19; the mask's 0 and -inf of 15 and 20), the port
// requires that value: Inductor would rewrite other values wrongly. Not so the divisor c of 5, 7
// and 9, whose replacement uses SDPA's default scale 1 / sqrt(d): Inductor does rewrite other
// divisors with it (the oracle shows 7 taking pattern 11's float16 module, q k^T / 2 with d = 16,
// and 5 taking 16's batch-1 module), and the port keeps those results. Not yet (see the table):
// the other training forms (those with dropout, which Inductor replaces by its traced math
// decomposition, 24's, and those no oracle graph fires). Left out: pad_mm's patterns (they decide by
// timing kernels), randperm_index_pattern (see inductor_misc.hpp).
// Inductor's trees also fail a node whose positional arity differs from the tree's (an `expand`
// written with implicit=False); `_` here accepts that. Inductor's node flag for FlexGEMM bodies
// (bmm_to_mm's first check) is not in the graph formats ctmatch reads.
#include <array>
#include <cmath>
#include <limits>

#include "../pattern.hpp"
#include "inductor_misc.hpp"
#include "inductor_ops.hpp"
#include "../rewrite/pattern_rule.hpp"
#include "../rewrite/rule_set.hpp"

namespace ctmatch::rules {

namespace inductor_joint_detail {
using namespace ctmatch::dsl;
namespace ops = inductor_ops;

inline bool amp_float(ScalarType d) {
  return d == ScalarType::Half || d == ScalarType::BFloat16 || d == ScalarType::Float || d == ScalarType::Double;
}

inline constexpr auto fix_iota_device = rewrite<"fix_iota_device">(
    ops::iota(slot<"length", Value>, "start"_kw = slot<"start", Value>, "step"_kw = slot<"step", Value>,
              "dtype"_kw = slot<"dtype", DType>, "device"_kw = slot<"device", Device>,
              "requires_grad"_kw = slot<"requires_grad", bool>),
    [](const auto& m, RewriteBuilder& b) -> NodeId {
      const Graph& g = b.graph();
      const NodeId node = m.root();
      static const OpId index = intern_op("aten.index.Tensor"), index_put = intern_op("aten.index_put.default");
      std::optional<Device> user_device;
      for (NodeId u : g[node].users()) {
        const Node& user = g[u];
        if (user.kind() != NodeKind::CallFunction || (user.op() != index && user.op() != index_put) ||
            !user.meta().device)
          return node;  // bail out
        if (user_device && *user_device != *user.meta().device) return node;  // two devices
        user_device = user.meta().device;
      }
      if (!user_device || !g[node].meta().dtype) return node;
      if (get<"device">(m).type == user_device->type) return node;
      NodeId repl = make(b, ops::iota(get<"length">(m), "start"_kw = get<"start">(m), "step"_kw = get<"step">(m),
                                      "dtype"_kw = get<"dtype">(m), "device"_kw = *user_device,
                                      "requires_grad"_kw = get<"requires_grad">(m)));
      b.meta(repl) = g[node].meta();
      b.meta(repl).device = *user_device;
      return repl;
    });

inline constexpr auto pointless_convert = rewrite<"pointless_convert">(
    ops::convert_element_type(ops::convert_element_type("arg"_x, slot<"dtype1", DType>).users<1>(),
                              slot<"dtype2", DType>),
    [](const auto& m, RewriteBuilder& b) -> NodeId {
      const ScalarType d1 = get<"dtype1">(m), d2 = get<"dtype2">(m);
      if (!amp_float(d1) || !amp_float(d2)) return m.root();
      return make(b, ops::convert_element_type(use(get<"arg">(m)), d2));
    });

inline constexpr auto bmm_to_mm = rewrite<"bmm_to_mm">(
    aten::bmm("mat1"_x, "mat2"_x), [](const auto& m, RewriteBuilder& b) -> NodeId {
      const Graph& g = b.graph();
      const TensorMeta &a = g[get<"mat1">(m)].meta(), &c = g[get<"mat2">(m)].meta();
      auto batch_one = [](const TensorMeta& t) { return t.shape && !t.shape->empty() && (*t.shape)[0] == Value(1); };
      // Inductor's check_device(a, b, "cuda"): both on one device type, and that type cuda.
      bool cuda = a.device && c.device && a.device->type == c.device->type && c.device->type == DeviceType::CUDA;
      if (!cuda || !batch_one(a) || !batch_one(c)) return m.root();
      NodeId s1 = make(b, ops::squeeze_dim(use(get<"mat1">(m)), 0));
      NodeId s2 = make(b, ops::squeeze_dim(use(get<"mat2">(m)), 0));
      NodeId mm = make(b, aten::mm(use(s1), use(s2)));
      return make(b, ops::unsqueeze(use(mm), 0));
    });

// scatter_upon_const_tensor: a scalar scattered into a `full` along `dim` by a selector of size 1
// there and as large as the full elsewhere is a one-hot: where(selector == position, val, bg).
/// Inductor's scatter_upon_const_tensor_extra_check (its sizes compared where both are known
/// integers; metadata missing fails it, where Inductor would raise).
inline bool scatter_selects_one(const Graph& g, const Value& shape, std::int64_t dim, NodeId selector) {
  const std::optional<std::vector<Value>>& sel = g[selector].meta().shape;
  if (!shape.is_list() || !sel || sel->size() != shape.items()->size() || !g[selector].meta().device) return false;
  const auto rank = static_cast<std::int64_t>(sel->size());
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank) return false;
  for (std::int64_t i = 0; i < rank; ++i) {
    const auto* s = (*sel)[static_cast<std::size_t>(i)].get_if<std::int64_t>();
    const auto* f = (*shape.items())[static_cast<std::size_t>(i)].get_if<std::int64_t>();
    if (!s || !f) return false;
    if (i != dim && *s < *f) return false;
    if (i == dim && *s != 1) return false;
  }
  return true;
}

/// The dtype torch gives torch.where of two Python scalars: float32 (the default dtype) when
/// either is a float, else int64 when either is an int, else bool.
inline std::optional<ScalarType> where_of_scalars(const Value& a, const Value& b) {
  auto rank = [](const Value& v) { return v.get_if<double>() ? 2 : v.get_if<std::int64_t>() ? 1 : v.get_if<bool>() ? 0 : -1; };
  const int ra = rank(a), rb = rank(b);
  if (ra < 0 || rb < 0) return std::nullopt;
  const int r = std::max(ra, rb);
  return r == 2 ? ScalarType::Float : r == 1 ? ScalarType::Long : ScalarType::Bool;
}

inline constexpr auto scatter_upon_const_tensor = rewrite<"scatter_upon_const_tensor">(
    extra_check(ops::scatter_value(aten::full(slot<"shape", Value>, slot<"background_val", Value>)
                                       .users<1>()
                                       .where([](const Node& n) { return n.kwarg("dtype") != nullptr; }),
                                   slot<"dim", std::int64_t>, "selector"_x, slot<"val", Value>),
                [](const auto& m, const Graph& g) {
                  return where_of_scalars(get<"val">(m), get<"background_val">(m)) &&
                         scatter_selects_one(g, get<"shape">(m), get<"dim">(m), get<"selector">(m));
                }),
    // What Inductor's replace_by_example traces (its repl_fn, the full's dtype unused as there):
    // iota(n) viewed as [1, .., n, .., 1], compared with the selector expanded to the shape,
    // picking between the two scalars made tensors on the selector's device.
    [](const auto& m, RewriteBuilder& b) -> NodeId {
      const Graph& g = b.graph();
      const Value shape = get<"shape">(m), background = get<"background_val">(m), val = get<"val">(m);
      const NodeId selector = get<"selector">(m);
      const Device device = *g[selector].meta().device;
      const std::size_t rank = shape.items()->size();
      std::int64_t dim = get<"dim">(m);
      if (dim < 0) dim += static_cast<std::int64_t>(rank);
      const Value length = (*shape.items())[static_cast<std::size_t>(dim)];
      const ScalarType picked = *where_of_scalars(val, background);
      const TensorMeta result_meta = [&] {
        TensorMeta t = g[m.root()].meta();
        t.dtype = picked;
        return t;
      }();
      NodeId positions = make(b, ops::iota(length, "start"_kw = 0, "step"_kw = 1, "dtype"_kw = ScalarType::Long,
                                           "device"_kw = device, "requires_grad"_kw = false));
      std::vector<Value> view_shape(rank, Value(1));
      view_shape[static_cast<std::size_t>(dim)] = length;
      NodeId viewed = make(b, aten::view(use(positions), Value::list(std::move(view_shape))));
      NodeId expanded = make(b, aten::expand(use(selector), shape));
      NodeId mask = make(b, aten::eq.Tensor(use(expanded), use(viewed)));
      auto scalar = [&](const Value& v) {
        return make(b, aten::scalar_tensor(v, "dtype"_kw = picked, "layout"_kw = Layout::Strided, "device"_kw = device));
      };
      NodeId on_background = scalar(background);
      NodeId on_selected = scalar(val);
      NodeId picked_node = make(b, aten::where.self(use(mask), use(on_selected), use(on_background)));
      b.meta(picked_node) = result_meta;
      return picked_node;
    });

// ---- SDPA (fuse_attention.py): the inference forms of its serialized ATen trees ----
// Inductor's pattern trees require exactly one user of every interior node unless the tree says
// `_users=N` (single_use), ignore the arguments marked Ignored() (`_`), and bind KeywordArgs.

/// keepdim=True of amax and sum, as predicate slots (see bench.hpp: a bool constant this deep
/// in a pattern is miscompiled by g++ 12).
inline constexpr auto sfdp_keep_amax = slot<"sfdp_keep_amax", bool>.where([](bool k) { return k; });
inline constexpr auto sfdp_keep_sum = slot<"sfdp_keep_sum", bool>.where([](bool k) { return k; });

/// softmax over the last dimension as decomposed: div(exp(sub(s, amax(s))), sum(exp(...))), where
/// the scores s and the exp are each read twice.
template <class Scores>
constexpr auto sfdp_softmax(Scores scores) {
  return aten::div.Tensor(
      aten::exp(aten::sub.Tensor(scores.template named<"sfdp_scores">().template users<2>(),
                                 ops::amax("sfdp_scores"_x, _, sfdp_keep_amax)))
          .template named<"sfdp_exp">()
          .template users<2>(),
      aten::sum.dim_IntList("sfdp_exp"_x, _, sfdp_keep_sum));
}

/// The same in a float16 form: the scores cast to float32 first, the weights cast back after.
template <class Scores>
constexpr auto sfdp_softmax_via_float32(Scores scores) {
  return ops::convert_element_type(sfdp_softmax(ops::convert_element_type(scores, _)), _);
}

/// q @ k^T as decomposed: view(bmm(view(expand(q)), view(expand(permute(k)))))
inline constexpr auto sfdp_qk = aten::view(
    aten::bmm(aten::view(aten::expand("query"_x, _), _), aten::view(aten::expand(aten::permute("key"_x, _), _), _)), _);

/// weights @ v as decomposed: view(bmm(view(expand(w)), view(expand(v))))
template <class Weights>
constexpr auto sfdp_times_value(Weights w) {
  return aten::view(aten::bmm(aten::view(aten::expand(w, _), _), aten::view(aten::expand("value"_x, _), _)), _);
}

/// Inductor's _sfdp_params_check: query, key and value of one dtype and one device, not float32
/// on cuda (the fused kernels use tf32, which torch's default float32 matmul precision does not
/// allow); an attention mask, where the pattern adds one, a tensor (not a number) of the query's
/// dtype, bool or float32, on its device, and not 0-d. Metadata missing fails the check.
/// With NotCuda (_sfdp_extra_check's disable_cuda), a query on cuda fails it too.
template <bool Mask, bool NotCuda = false>
struct sfdp_params_check {
  template <class M>
  bool operator()(const M& m, const Graph& g) const {
    const TensorMeta &q = g[get<"query">(m)].meta(), &k = g[get<"key">(m)].meta(), &v = g[get<"value">(m)].meta();
    if (!q.dtype || q.dtype != k.dtype || q.dtype != v.dtype) return false;
    if (!q.device || q.device != k.device || q.device != v.device) return false;
    if (q.device->type == DeviceType::CUDA && (NotCuda || q.dtype == ScalarType::Float)) return false;
    if constexpr (Mask) {
      const Value& mask = get<"attn_mask">(m);
      if (!mask.is_node()) return false;
      const TensorMeta& a = g[mask.node()].meta();
      if (!a.dtype || !a.shape || a.shape->empty() || a.device != q.device) return false;
      if (a.dtype != q.dtype && a.dtype != ScalarType::Bool && a.dtype != ScalarType::Float) return false;
    }
    return true;
  }
};

/// Whether the query lies on the CPU: Inductor's traced replacement, the CPU flash kernel, is
/// known there only (its kernel choice elsewhere is not covered by the oracle).
inline bool sfdp_on_cpu(const Graph& g, NodeId query) {
  const std::optional<Device>& d = g[query].meta().device;
  return d && d->type == DeviceType::CPU;
}
/// getitem(_scaled_dot_product_flash_attention_for_cpu(q, k, v[, attn_mask=][, scale=]), 0).
inline NodeId sfdp_flash_cpu(RewriteBuilder& b, NodeId q, NodeId k, NodeId v, std::optional<double> scale,
                             std::optional<NodeId> mask = std::nullopt) {
  NodeId attn;
  if (mask && scale) attn = make(b, ops::sdpa_flash_cpu(use(q), use(k), use(v), "attn_mask"_kw = use(*mask), "scale"_kw = *scale));
  else if (mask) attn = make(b, ops::sdpa_flash_cpu(use(q), use(k), use(v), "attn_mask"_kw = use(*mask)));
  else if (scale) attn = make(b, ops::sdpa_flash_cpu(use(q), use(k), use(v), "scale"_kw = *scale));
  else attn = make(b, ops::sdpa_flash_cpu(use(q), use(k), use(v)));
  return make(b, getitem(use(attn), 0));
}

/// The replacement Inductor traces from _scaled_dot_product_attention on a CPU graph: the
/// flash kernel for CPU and its first result; the mask cast to the query's dtype first where it
/// differs (`attn_mask.to(dtype=query.dtype)`). On other devices Inductor's trace picks a kernel
/// by device capability, which the oracle does not cover: the match is left unchanged there.
template <class M>
NodeId sfdp_replace_cpu(const M& m, RewriteBuilder& b, std::optional<double> scale) {
  const Graph& g = b.graph();
  const NodeId q = get<"query">(m);
  if (!sfdp_on_cpu(g, q) || !g[q].meta().dtype) return m.root();
  NodeId mask = get<"attn_mask">(m).node();
  if (g[mask].meta().dtype != g[q].meta().dtype) mask = make(b, ops::convert_element_type(use(mask), *g[q].meta().dtype));
  return sfdp_flash_cpu(b, q, get<"key">(m), get<"value">(m), scale, mask);
}

// _sfdp_pattern_1 and _sfdp_pattern_2: softmax(q @ k^T / s) @ v and softmax(q @ k^T * s) @ v, s a
// number (_sfdp_extra_check refuses a tensor there), then _sfdp_params_check; replaced on CPU by
// the flash kernel with scale 1 / s and s.
/// The scale the replacement is given: 1 / s for a division, s for a product; none for a
/// tensor, or for a division by zero (Inductor's replacement raises there).
template <bool Divides>
std::optional<double> sfdp_scale(const Value& s) {
  std::optional<double> v;
  if (const auto* i = s.get_if<std::int64_t>()) v = static_cast<double>(*i);
  if (const auto* d = s.get_if<double>()) v = *d;
  if (!v || (Divides && *v == 0)) return std::nullopt;
  return Divides ? 1.0 / *v : *v;
}
template <bool Divides, bool Mask = false, bool NotCuda = false>
struct sfdp_scaled_check {
  template <class M>
  bool operator()(const M& m, const Graph& g) const {
    return sfdp_scale<Divides>(get<"scale_factor">(m)) && sfdp_params_check<Mask, NotCuda>{}(m, g);
  }
};
/// The last dimension of `x`, where known: the head dimension d of a query, key or value.
inline std::optional<std::int64_t> sfdp_head_dim(const Graph& g, NodeId x) {
  const std::optional<std::vector<Value>>& shape = g[x].meta().shape;
  if (!shape || shape->empty()) return std::nullopt;
  const std::int64_t* d = shape->back().get_if<std::int64_t>();
  if (!d || *d <= 0) return std::nullopt;
  return *d;
}
/// Whether `v` is the number sqrt(d) (to rounding).
inline bool sfdp_is_sqrt_of(const Value& v, std::optional<std::int64_t> d) {
  const std::optional<double> x = sfdp_scale<false>(v);
  if (!x || !d) return false;
  const double root = std::sqrt(static_cast<double>(*d));
  return std::abs(*x - root) <= 1e-12 * root;
}

template <bool Divides>
NodeId sfdp_replace_scaled_cpu(const auto& m, RewriteBuilder& b) {
  if (!sfdp_on_cpu(b.graph(), get<"query">(m))) return m.root();
  return sfdp_flash_cpu(b, get<"query">(m), get<"key">(m), get<"value">(m), sfdp_scale<Divides>(get<"scale_factor">(m)));
}
inline constexpr auto sfdp_scores_1 = aten::div.Tensor(sfdp_qk, slot<"scale_factor", Value>);
inline constexpr auto sfdp_scores_2 = aten::mul.Tensor(sfdp_qk, slot<"scale_factor", Value>);
inline constexpr auto sfdp_1 = rewrite<"_sfdp_pattern_1[fn]">(
    extra_check(single_use(sfdp_times_value(sfdp_softmax(sfdp_scores_1))), sfdp_scaled_check<true>{}),
    [](const auto& m, RewriteBuilder& b) { return sfdp_replace_scaled_cpu<true>(m, b); });
inline constexpr auto sfdp_2 = rewrite<"_sfdp_pattern_2[fn]">(
    extra_check(single_use(sfdp_times_value(sfdp_softmax(sfdp_scores_2))), sfdp_scaled_check<false>{}),
    [](const auto& m, RewriteBuilder& b) { return sfdp_replace_scaled_cpu<false>(m, b); });
inline constexpr auto sfdp_1_half = rewrite<"_sfdp_pattern_1[fn]">(
    extra_check(single_use(sfdp_times_value(sfdp_softmax_via_float32(sfdp_scores_1))), sfdp_scaled_check<true>{}),
    [](const auto& m, RewriteBuilder& b) { return sfdp_replace_scaled_cpu<true>(m, b); });
inline constexpr auto sfdp_2_half = rewrite<"_sfdp_pattern_2[fn]">(
    extra_check(single_use(sfdp_times_value(sfdp_softmax_via_float32(sfdp_scores_2))), sfdp_scaled_check<false>{}),
    [](const auto& m, RewriteBuilder& b) { return sfdp_replace_scaled_cpu<false>(m, b); });

// _sfdp_pattern_5: softmax(q @ k^T / c + mask) @ v, c ignored (the replacement uses the
// default scale 1 / sqrt(d): see the file's comment); in half precision the scores go through
// float32.
inline constexpr auto sfdp_scores_5 = aten::add.Tensor(aten::div.Tensor(sfdp_qk, _), slot<"attn_mask", Value>);
inline constexpr auto sfdp_5 = rewrite<"_sfdp_pattern_5[_sfdp_params_check]">(
    extra_check(single_use(sfdp_times_value(sfdp_softmax(sfdp_scores_5))), sfdp_params_check<true>{}),
    [](const auto& m, RewriteBuilder& b) { return sfdp_replace_cpu(m, b, std::nullopt); });
inline constexpr auto sfdp_5_half = rewrite<"_sfdp_pattern_5[_sfdp_params_check]">(
    extra_check(single_use(sfdp_times_value(sfdp_softmax_via_float32(sfdp_scores_5))), sfdp_params_check<true>{}),
    [](const auto& m, RewriteBuilder& b) { return sfdp_replace_cpu(m, b, std::nullopt); });

// _sfdp_pattern_13: softmax(bmm(q, permute(k))) @ v on 3-d inputs, as bmm's (the inference form:
// its dropout is a no-op), _sfdp_params_check  ->  on CPU the inputs given a batch of 1 for the
// flash kernel with scale 1.0, and its result squeezed back.
inline constexpr auto sfdp_scores_13 = aten::bmm("query"_x, aten::permute("key"_x, _));
inline constexpr auto sfdp_13_replace = [](const auto& m, RewriteBuilder& b) -> NodeId {
  if (!sfdp_on_cpu(b.graph(), get<"query">(m))) return m.root();
  auto batched = [&](NodeId x) { return make(b, ops::unsqueeze(use(x), 0)); };
  NodeId q = batched(get<"query">(m)), k = batched(get<"key">(m)), v = batched(get<"value">(m));
  return make(b, ops::squeeze_dim(use(sfdp_flash_cpu(b, q, k, v, 1.0)), 0));
};
inline constexpr auto sfdp_13 = rewrite<"_sfdp_pattern_13[_sfdp_params_check]">(
    extra_check(single_use(aten::bmm(sfdp_softmax(sfdp_scores_13), "value"_x)), sfdp_params_check<false>{}),
    sfdp_13_replace);
inline constexpr auto sfdp_13_half = rewrite<"_sfdp_pattern_13[_sfdp_params_check]">(
    extra_check(single_use(aten::bmm(sfdp_softmax_via_float32(sfdp_scores_13), "value"_x)), sfdp_params_check<false>{}),
    sfdp_13_replace);

// ---- The permuted attentions (patterns 7, 9, 11, 14-16, 18, 20-23, 25-27) ----
// The search functions take (bs, len, heads, d) inputs and permute them (0, 2, 1, 3); each
// product's operands go through expand, a contiguous clone and view as traced, except in the
// batch-1 forms (Contiguous = false), where the clone is gone. The forms that also return the
// permuted key and value (KV = true: patterns 18, 22, 23, 26, 27) have them as further roots:
// Inductor's MultiOutputPattern lists them as outputs, each read by the attention and by the
// program.
inline constexpr auto sfdp_contiguous = [](const Node& n) {
  const Value* f = n.kwarg("memory_format");
  return f && *f == Value(MemoryFormat::Contiguous);
};
/// A matmul operand as traced: view(clone(expand(x), memory_format=torch.contiguous_format)),
/// or view(expand(x)) without the clone.
template <bool Contiguous, class X>
constexpr auto sfdp_operand(X x) {
  if constexpr (Contiguous) return aten::view(aten::clone(aten::expand(x, _)).where(sfdp_contiguous), _);
  else return aten::view(aten::expand(x, _), _);
}
/// permute(key) and permute(value), named roots where the program also returns them.
template <bool KV>
constexpr auto sfdp_key_t() {
  if constexpr (KV) return aten::permute("key"_x, _).named<"sfdp_key_t">().users<2>();
  else return aten::permute("key"_x, _);
}
template <bool KV>
constexpr auto sfdp_value_t() {
  if constexpr (KV) return aten::permute("value"_x, _).named<"sfdp_value_t">().users<2>();
  else return aten::permute("value"_x, _);
}
/// q' @ k'^T, `q` the query side (permute(query), or it divided by a scale first).
template <bool Contiguous = true, bool KV = false, class Q>
constexpr auto sfdp_permuted_qk(Q q) {
  return aten::view(aten::bmm(sfdp_operand<Contiguous>(q), sfdp_operand<Contiguous>(aten::permute(sfdp_key_t<KV>(), _))), _);
}
/// weights @ v', the whole tree used once; with KV, the permuted key and value further roots.
template <bool Contiguous = true, bool KV = false, class Weights>
constexpr auto sfdp_permuted_attention(Weights w) {
  auto out = aten::view(aten::bmm(aten::view(aten::expand(w, _), _), sfdp_operand<Contiguous>(sfdp_value_t<KV>())), _);
  if constexpr (KV) return single_use(multi(out, "sfdp_key_t"_x, "sfdp_value_t"_x));
  else return single_use(out);
}
inline constexpr auto sfdp_qk_7 = sfdp_permuted_qk(aten::permute("query"_x, _));
/// The permuted query divided by s before the product: any value (pattern 9), the number s
/// (pattern 20).
template <class S>
constexpr auto sfdp_qk_scaled_first(S s) {
  return sfdp_permuted_qk(aten::div.Tensor(aten::permute("query"_x, _), s));
}
inline constexpr auto sfdp_qk_9 = sfdp_qk_scaled_first(_);
inline constexpr auto sfdp_qk_20 = sfdp_qk_scaled_first(slot<"scale_factor", Value>);

/// x permuted (0, 2, 1, 3): (bs, len, heads, dim) <-> (bs, heads, len, dim), as the search
/// functions of the permuted patterns write it.
inline NodeId sfdp_permuted(RewriteBuilder& b, NodeId x) {
  static const OpId permute = decltype(aten::permute)::id();
  return b.call(permute, {NodeRef{x}, Value::list({Value(0), Value(2), Value(1), Value(3)})});
}
/// How a permuted replacement passes the pattern's attn_mask to the kernel: none, cast to the
/// query's dtype where it differs (`attn_mask.to(dtype=query.dtype)`), or as it is (patterns 25
/// and 26).
enum class SdpaMask { none, cast, as_is };
/// The permuted patterns' replacement on a CPU graph: the inputs permuted (0, 2, 1, 3) as the
/// search function does, then the CPU flash kernel's first result (with `scale` where given and
/// the mask as `Mask` says); with KV also the new permuted key and value, which take the old
/// ones' uses. Unchanged on other devices.
template <SdpaMask Mask = SdpaMask::none, bool KV = false, class M>
auto sfdp_replace_permuted_cpu(const M& m, RewriteBuilder& b, std::optional<double> scale = std::nullopt)
    -> std::conditional_t<KV, std::array<NodeId, 3>, NodeId> {
  const Graph& g = b.graph();
  const NodeId q = get<"query">(m);
  if (!sfdp_on_cpu(g, q)) {
    if constexpr (KV) return m.root_nodes();
    else return m.root();
  }
  NodeId pq = sfdp_permuted(b, q), pk = sfdp_permuted(b, get<"key">(m)), pv = sfdp_permuted(b, get<"value">(m));
  std::optional<NodeId> mask;
  if constexpr (Mask != SdpaMask::none) {
    mask = get<"attn_mask">(m).node();
    if (Mask == SdpaMask::cast && g[*mask].meta().dtype != g[q].meta().dtype)
      mask = make(b, ops::convert_element_type(use(*mask), *g[q].meta().dtype));
  }
  const NodeId out = sfdp_flash_cpu(b, pq, pk, pv, scale, mask);
  if constexpr (KV) return std::array{out, pk, pv};
  else return out;
}

// _sfdp_pattern_7: softmax(q' @ k'^T / c) @ v', c ignored (as 5's), the weights cast
// (`attn_weight.to(torch.float16)`), and in the float16 form the scores cast to float32 first.
// Inference forms: no dropout. _sfdp_pattern_9: the same with q' divided by c before the product.
inline constexpr auto sfdp_replace_permuted = [](const auto& m, RewriteBuilder& b) { return sfdp_replace_permuted_cpu(m, b); };
inline constexpr auto sfdp_7 = rewrite<"_sfdp_pattern_7[_sfdp_params_check]">(
    extra_check(sfdp_permuted_attention(ops::convert_element_type(
                    sfdp_softmax(aten::div.Tensor(sfdp_qk_7, _)), _)),
                sfdp_params_check<false>{}),
    sfdp_replace_permuted);
inline constexpr auto sfdp_7_half = rewrite<"_sfdp_pattern_7[_sfdp_params_check]">(
    extra_check(sfdp_permuted_attention(
                    sfdp_softmax_via_float32(aten::div.Tensor(sfdp_qk_7, _))),
                sfdp_params_check<false>{}),
    sfdp_replace_permuted);
inline constexpr auto sfdp_9 = rewrite<"_sfdp_pattern_9[_sfdp_params_check]">(
    extra_check(sfdp_permuted_attention(ops::convert_element_type(sfdp_softmax(sfdp_qk_9), _)),
                sfdp_params_check<false>{}),
    sfdp_replace_permuted);
inline constexpr auto sfdp_9_half = rewrite<"_sfdp_pattern_9[_sfdp_params_check]">(
    extra_check(sfdp_permuted_attention(sfdp_softmax_via_float32(sfdp_qk_9)), sfdp_params_check<false>{}),
    sfdp_replace_permuted);

// _sfdp_pattern_11: pattern 7's permuted attention without the weights' cast, the scores divided
// by a number s (_sfdp_extra_check)  ->  the permuted inputs into the CPU flash kernel with scale
// 1 / s. In float16 Inductor's order gives pattern 7 its matches first.
inline constexpr auto sfdp_scores_11 = aten::div.Tensor(sfdp_qk_7, slot<"scale_factor", Value>);
inline constexpr auto sfdp_11_replace = [](const auto& m, RewriteBuilder& b) {
  return sfdp_replace_permuted_cpu(m, b, sfdp_scale<true>(get<"scale_factor">(m)));
};
inline constexpr auto sfdp_11 = rewrite<"_sfdp_pattern_11[fn]">(
    extra_check(sfdp_permuted_attention(sfdp_softmax(sfdp_scores_11)), sfdp_scaled_check<true>{}), sfdp_11_replace);
inline constexpr auto sfdp_11_half = rewrite<"_sfdp_pattern_11[fn]">(
    extra_check(sfdp_permuted_attention(sfdp_softmax_via_float32(sfdp_scores_11)), sfdp_scaled_check<true>{}),
    sfdp_11_replace);

// _sfdp_pattern_14 (BertLarge): pattern 11 with an additive mask, softmax(q' @ k'^T / s + mask)
// @ v', s a number  ->  the permuted inputs and the mask (cast to the query's dtype) into the CPU
// flash kernel with scale 1 / s. _sfdp_pattern_16 (BertLarge with dropout): the same tree with
// the weights cast (the forms of a float32 mask with float16 inputs, with and without the
// clones), on cuda refused (disable_cuda); the same replacement.
template <bool Contiguous = true>
inline constexpr auto sfdp_scores_14 = aten::add.Tensor(
    aten::div.Tensor(sfdp_permuted_qk<Contiguous>(aten::permute("query"_x, _)), slot<"scale_factor", Value>),
    slot<"attn_mask", Value>);
inline constexpr auto sfdp_14_replace = [](const auto& m, RewriteBuilder& b) {
  return sfdp_replace_permuted_cpu<SdpaMask::cast>(m, b, sfdp_scale<true>(get<"scale_factor">(m)));
};
inline constexpr auto sfdp_14 = rewrite<"_sfdp_pattern_14[fn]">(
    extra_check(sfdp_permuted_attention(sfdp_softmax(sfdp_scores_14<>)), sfdp_scaled_check<true, true>{}),
    sfdp_14_replace);
inline constexpr auto sfdp_14_half = rewrite<"_sfdp_pattern_14[fn]">(
    extra_check(sfdp_permuted_attention(sfdp_softmax_via_float32(sfdp_scores_14<>)), sfdp_scaled_check<true, true>{}),
    sfdp_14_replace);
template <bool Contiguous>
inline constexpr auto sfdp_16_mask_fp32_form = rewrite<"_sfdp_pattern_16[fn]">(
    extra_check(sfdp_permuted_attention<Contiguous>(
                    ops::convert_element_type(sfdp_softmax(sfdp_scores_14<Contiguous>), _)),
                sfdp_scaled_check<true, true, true>{}),
    sfdp_14_replace);
inline constexpr auto sfdp_16_mask_fp32 = sfdp_16_mask_fp32_form<true>;
inline constexpr auto sfdp_16_mask_fp32_bs1 = sfdp_16_mask_fp32_form<false>;

// _sfdp_pattern_15 (DistilBert): pattern 11's scores masked, masked_fill(s, mask_view == 0, -inf)
// as decomposed: where(expand(view(mask == 0, (bs, 1, 1, k_len))), full((), -inf), s). Inductor's
// serialized tree takes any number for the 0 and the -inf; here they are part of the pattern,
// and the view's shape must be (bs, 1, 1, k_len) of the query and key, since the replacement
// rebuilds it from them. Replacement: the mask compared with 1, viewed and expanded to
// (bs, n_head, q_len, k_len), then as the CPU flash kernel takes a bool mask: where(m, 0, -inf)
// in the query's dtype, and the permuted inputs with scale 1 / s. Shapes must be known numbers.
inline constexpr auto sfdp_mask_zero = slot<"sfdp_mask_zero", Value>.where([](const Value& v) { return v == Value(0); });
inline constexpr auto sfdp_minus_inf = slot<"sfdp_minus_inf", Value>.where([](const Value& v) {
  const double* d = v.get_if<double>();
  return d && std::isinf(*d) && *d < 0;
});
/// masked_fill(scores, mask_view == 0, -inf) as decomposed.
template <class Scores>
constexpr auto sfdp_masked_minus_inf(Scores scores) {
  return aten::where.self(
      aten::expand(aten::view(ops::eq_scalar("attn_mask"_x, sfdp_mask_zero), slot<"sfdp_mask_view", Value>), _),
      aten::full(_, sfdp_minus_inf), scores);
}
inline constexpr auto sfdp_scores_15 = sfdp_masked_minus_inf(sfdp_scores_11);
/// bs, n_head, q_len, k_len from the (unpermuted) query and key, where known.
inline std::optional<std::array<std::int64_t, 4>> sfdp_15_sizes(const auto& m, const Graph& g) {
  const std::optional<std::vector<Value>>& q = g[get<"query">(m)].meta().shape;
  const std::optional<std::vector<Value>>& k = g[get<"key">(m)].meta().shape;
  if (!q || !k || q->size() != 4 || k->size() != 4) return std::nullopt;
  const std::int64_t *bs = (*q)[0].get_if<std::int64_t>(), *q_len = (*q)[1].get_if<std::int64_t>(),
                     *n_head = (*q)[2].get_if<std::int64_t>(), *k_len = (*k)[1].get_if<std::int64_t>();
  if (!bs || !q_len || !n_head || !k_len) return std::nullopt;
  return std::array{*bs, *n_head, *q_len, *k_len};
}
struct sfdp_15_check {
  template <class M>
  bool operator()(const M& m, const Graph& g) const {
    if (!sfdp_scaled_check<true>{}(m, g)) return false;
    const auto sizes = sfdp_15_sizes(m, g);
    if (!sizes) return false;
    const auto [bs, n_head, q_len, k_len] = *sizes;
    return get<"sfdp_mask_view">(m) == Value::list({Value(bs), Value(1), Value(1), Value(k_len)});
  }
};
/// A bool mask (true: attend) as the additive mask the CPU flash kernel takes, as the SDPA
/// replacement traces it: where(keep, 0, -inf) in `dtype` on `device`.
inline NodeId sfdp_additive_mask(RewriteBuilder& b, NodeId keep, ScalarType dtype, Device device) {
  const double inf = std::numeric_limits<double>::infinity();
  NodeId minus_inf = make(b, aten::scalar_tensor(-inf, "dtype"_kw = dtype, "device"_kw = device));
  NodeId zero = make(b, aten::scalar_tensor(0.0, "dtype"_kw = dtype, "layout"_kw = Layout::Strided, "device"_kw = device));
  return make(b, aten::where.self(use(keep), use(zero), use(minus_inf)));
}
inline constexpr auto sfdp_15_replace = [](const auto& m, RewriteBuilder& b) -> NodeId {
  const Graph& g = b.graph();
  const NodeId q = get<"query">(m);
  if (!sfdp_on_cpu(g, q)) return m.root();
  const auto [bs, n_head, q_len, k_len] = *sfdp_15_sizes(m, g);
  const ScalarType dtype = *g[q].meta().dtype;
  const Device device = *g[q].meta().device;
  static const OpId view = decltype(aten::view)::id(), expand = decltype(aten::expand)::id();
  NodeId keep = make(b, ops::eq_scalar(use(get<"attn_mask">(m)), 1));
  keep = b.call(view, {NodeRef{keep}, Value::list({Value(bs), Value(1), Value(1), Value(k_len)})});
  keep = b.call(expand, {NodeRef{keep}, Value::list({Value(bs), Value(n_head), Value(q_len), Value(k_len)})});
  NodeId pq = sfdp_permuted(b, q), pk = sfdp_permuted(b, get<"key">(m)), pv = sfdp_permuted(b, get<"value">(m));
  NodeId mask = sfdp_additive_mask(b, keep, dtype, device);
  return sfdp_flash_cpu(b, pq, pk, pv, sfdp_scale<true>(get<"scale_factor">(m)), mask);
};
inline constexpr auto sfdp_15 = rewrite<"_sfdp_pattern_15[fn]">(
    extra_check(sfdp_permuted_attention(sfdp_softmax(sfdp_scores_15)), sfdp_15_check{}), sfdp_15_replace);
inline constexpr auto sfdp_15_half = rewrite<"_sfdp_pattern_15[fn]">(
    extra_check(sfdp_permuted_attention(sfdp_softmax_via_float32(sfdp_scores_15)), sfdp_15_check{}), sfdp_15_replace);

// _sfdp_pattern_18 (HF GPT-2, which also returns the permuted key and value for its cache) and
// _sfdp_pattern_19 (GPT-2 token classification / generation): causal attention,
// where(causal_mask, scores / full(inv_scale), full(fill)), 19 then adding attn_mask. 18 is
// permuted and returns k' and v' (with and without the clones); 19 takes (bs, heads, len, d)
// inputs as they are, and its float16 form casts the weights. The inference forms: the dropout is
// a no-op. _sfdp_params_check. Inductor's tree takes any value for the two fulls; here they must
// be what the search function writes, the square root of the value's last dimension and the
// lowest finite value of the query's dtype, and the causal mask bool, since the replacement
// computes its scale from the value's shape and masks with -inf.
template <class Scores>
constexpr auto sfdp_causal(Scores scores) {
  return aten::where.self("causal_mask"_x, aten::div.Tensor(scores, aten::full(_, slot<"sfdp_inv_scale", Value>)),
                          aten::full(_, slot<"sfdp_mask_fill", Value>));
}
/// The lowest finite value of a floating dtype (torch.finfo(dtype).min).
inline std::optional<double> lowest_finite(ScalarType t) {
  switch (t) {
    case ScalarType::Half: return -65504.0;
    case ScalarType::BFloat16: return -3.3895313892515355e+38;
    case ScalarType::Float: return static_cast<double>(std::numeric_limits<float>::lowest());
    case ScalarType::Double: return std::numeric_limits<double>::lowest();
    default: return std::nullopt;
  }
}
template <bool Mask>
struct sfdp_causal_check {
  template <class M>
  bool operator()(const M& m, const Graph& g) const {
    if (!sfdp_params_check<Mask>{}(m, g)) return false;
    const TensorMeta &q = g[get<"query">(m)].meta(), &mask = g[get<"causal_mask">(m)].meta();
    if (mask.dtype != ScalarType::Bool || !q.dtype) return false;
    const std::optional<double> fill = lowest_finite(*q.dtype);
    if (!fill || sfdp_scale<false>(get<"sfdp_mask_fill">(m)) != fill) return false;
    return sfdp_is_sqrt_of(get<"sfdp_inv_scale">(m), sfdp_head_dim(g, get<"value">(m)));
  }
};
/// 1 / sqrt(d) of the value's head dimension d.
inline double sfdp_value_scale(const Graph& g, NodeId value) {
  return 1.0 / std::sqrt(static_cast<double>(*sfdp_head_dim(g, value)));
}
// 18's replacement on CPU: the permuted key and value (which take the old ones' uses), the
// permuted query, where(causal_mask, 0, -inf) in the query's dtype, and the flash kernel.
inline constexpr auto sfdp_18_replace = [](const auto& m, RewriteBuilder& b) -> std::array<NodeId, 3> {
  const Graph& g = b.graph();
  const NodeId q = get<"query">(m);
  if (!sfdp_on_cpu(g, q)) return m.root_nodes();
  NodeId pk = sfdp_permuted(b, get<"key">(m)), pv = sfdp_permuted(b, get<"value">(m)), pq = sfdp_permuted(b, q);
  NodeId mask = sfdp_additive_mask(b, get<"causal_mask">(m), *g[q].meta().dtype, *g[q].meta().device);
  return {sfdp_flash_cpu(b, pq, pk, pv, sfdp_value_scale(g, get<"value">(m)), mask), pk, pv};
};
template <bool Contiguous>
inline constexpr auto sfdp_scores_18 = sfdp_causal(sfdp_permuted_qk<Contiguous, true>(aten::permute("query"_x, _)));
inline constexpr auto sfdp_18 = rewrite<"_sfdp_pattern_18[_sfdp_params_check]">(
    extra_check(sfdp_permuted_attention<true, true>(sfdp_softmax(sfdp_scores_18<true>)), sfdp_causal_check<false>{}),
    sfdp_18_replace);
inline constexpr auto sfdp_18_bs1 = rewrite<"_sfdp_pattern_18[_sfdp_params_check]">(
    extra_check(sfdp_permuted_attention<false, true>(sfdp_softmax(sfdp_scores_18<false>)), sfdp_causal_check<false>{}),
    sfdp_18_replace);
inline constexpr auto sfdp_18_half = rewrite<"_sfdp_pattern_18[_sfdp_params_check]">(
    extra_check(sfdp_permuted_attention<true, true>(sfdp_softmax_via_float32(sfdp_scores_18<true>)),
                sfdp_causal_check<false>{}),
    sfdp_18_replace);
inline constexpr auto sfdp_18_half_bs1 = rewrite<"_sfdp_pattern_18[_sfdp_params_check]">(
    extra_check(sfdp_permuted_attention<false, true>(sfdp_softmax_via_float32(sfdp_scores_18<false>)),
                sfdp_causal_check<false>{}),
    sfdp_18_replace);
// 19's replacement on CPU: where(causal_mask, attn_mask, full((), -inf)) as the mask (not cast:
// torch.where promotes it) and the flash kernel on the inputs.
inline constexpr auto sfdp_19_replace = [](const auto& m, RewriteBuilder& b) -> NodeId {
  const Graph& g = b.graph();
  const NodeId q = get<"query">(m), attn_mask = get<"attn_mask">(m).node();
  if (!sfdp_on_cpu(g, q)) return m.root();
  static const OpId full = decltype(aten::full)::id();
  NodeId fill = b.call(full, {Value::list({}), Value(-std::numeric_limits<double>::infinity())},
                       {Kwarg{"dtype", Value(*g[q].meta().dtype)}, Kwarg{"device", Value(*g[q].meta().device)},
                        Kwarg{"pin_memory", Value(false)}});
  NodeId mask = make(b, aten::where.self(use(get<"causal_mask">(m)), use(attn_mask), use(fill)));
  return sfdp_flash_cpu(b, q, get<"key">(m), get<"value">(m), sfdp_value_scale(g, get<"value">(m)), mask);
};
inline constexpr auto sfdp_scores_19 = aten::add.Tensor(sfdp_causal(sfdp_qk), slot<"attn_mask", Value>);
inline constexpr auto sfdp_19 = rewrite<"_sfdp_pattern_19[_sfdp_params_check]">(
    extra_check(single_use(sfdp_times_value(sfdp_softmax(sfdp_scores_19))), sfdp_causal_check<true>{}), sfdp_19_replace);
inline constexpr auto sfdp_19_half = rewrite<"_sfdp_pattern_19[_sfdp_params_check]">(
    extra_check(single_use(sfdp_times_value(ops::convert_element_type(sfdp_softmax(sfdp_scores_19), _))),
                sfdp_causal_check<true>{}),
    sfdp_19_replace);

// _sfdp_pattern_20 (DistilBert, scaled first): pattern 15 with the permuted query divided by the
// number s before the product instead of the scores after it (the inference form: its dropout
// is a no-op). Pattern 15's check and replacement.
inline constexpr auto sfdp_scores_20 = sfdp_masked_minus_inf(sfdp_qk_20);
inline constexpr auto sfdp_20 = rewrite<"_sfdp_pattern_20[fn]">(
    extra_check(sfdp_permuted_attention(sfdp_softmax(sfdp_scores_20)), sfdp_15_check{}), sfdp_15_replace);
inline constexpr auto sfdp_20_half = rewrite<"_sfdp_pattern_20[fn]">(
    extra_check(sfdp_permuted_attention(sfdp_softmax_via_float32(sfdp_scores_20)), sfdp_15_check{}), sfdp_15_replace);

// _sfdp_pattern_21 to 23 (T5) and 25 to 27 (T5 with dropout): softmax(q' @ k'^T [+ mask]) @ v',
// no scale, each with and without the clones; 22, 23, 26 and 27 also return k' and v'. The
// float16 forms compute the softmax in float32; 21 and 22 cast the masked scores to the query's
// dtype first, 23 casts the scores to float32 and back first. _sfdp_params_check; 25 to 27 are
// refused on cuda (disable_cuda). (Inductor lists no float32 inference form of 25 to 27: without
// the dropout it would be 21 to 23's.) Replacement: the permuted inputs into the CPU flash kernel
// with scale 1; 21 and 22 cast the mask to the query's dtype, 25 and 26 pass it as it is.
template <bool Contiguous, bool KV>
inline constexpr auto sfdp_qk_t5 = sfdp_permuted_qk<Contiguous, KV>(aten::permute("query"_x, _));
template <bool Contiguous, bool KV>
inline constexpr auto sfdp_scores_t5 = aten::add.Tensor(sfdp_qk_t5<Contiguous, KV>, slot<"attn_mask", Value>);
template <SdpaMask Mask, bool KV>
inline constexpr auto sfdp_t5_replace = [](const auto& m, RewriteBuilder& b) {
  return sfdp_replace_permuted_cpu<Mask, KV>(m, b, 1.0);
};
template <bool Contiguous, bool KV, bool Half>
constexpr auto sfdp_21_tree() {
  if constexpr (Half)
    return sfdp_permuted_attention<Contiguous, KV>(
        sfdp_softmax_via_float32(ops::convert_element_type(sfdp_scores_t5<Contiguous, KV>, _)));
  else return sfdp_permuted_attention<Contiguous, KV>(sfdp_softmax(sfdp_scores_t5<Contiguous, KV>));
}
template <bool Contiguous, bool Half>
inline constexpr auto sfdp_21_form = rewrite<"_sfdp_pattern_21[_sfdp_params_check]">(
    extra_check(sfdp_21_tree<Contiguous, false, Half>(), sfdp_params_check<true>{}), sfdp_t5_replace<SdpaMask::cast, false>);
template <bool Contiguous, bool Half>
inline constexpr auto sfdp_22_form = rewrite<"_sfdp_pattern_22[_sfdp_params_check]">(
    extra_check(sfdp_21_tree<Contiguous, true, Half>(), sfdp_params_check<true>{}), sfdp_t5_replace<SdpaMask::cast, true>);
template <bool Contiguous, bool Half>
constexpr auto sfdp_23_tree() {
  if constexpr (Half)
    return sfdp_permuted_attention<Contiguous, true>(sfdp_softmax_via_float32(
        ops::convert_element_type(ops::convert_element_type(sfdp_qk_t5<Contiguous, true>, _), _)));
  else return sfdp_permuted_attention<Contiguous, true>(sfdp_softmax(sfdp_qk_t5<Contiguous, true>));
}
template <bool Contiguous, bool Half>
inline constexpr auto sfdp_23_form = rewrite<"_sfdp_pattern_23[_sfdp_params_check]">(
    extra_check(sfdp_23_tree<Contiguous, Half>(), sfdp_params_check<false>{}), sfdp_t5_replace<SdpaMask::none, true>);
template <bool Contiguous>
inline constexpr auto sfdp_25_half_form = rewrite<"_sfdp_pattern_25[fn]">(
    extra_check(sfdp_permuted_attention<Contiguous>(sfdp_softmax_via_float32(sfdp_scores_t5<Contiguous, false>)),
                sfdp_params_check<true, true>{}),
    sfdp_t5_replace<SdpaMask::as_is, false>);
template <bool Contiguous>
inline constexpr auto sfdp_26_half_form = rewrite<"_sfdp_pattern_26[fn]">(
    extra_check(sfdp_permuted_attention<Contiguous, true>(sfdp_softmax_via_float32(sfdp_scores_t5<Contiguous, true>)),
                sfdp_params_check<true, true>{}),
    sfdp_t5_replace<SdpaMask::as_is, true>);
template <bool Contiguous>
inline constexpr auto sfdp_27_half_form = rewrite<"_sfdp_pattern_27[fn]">(
    extra_check(sfdp_permuted_attention<Contiguous, true>(sfdp_softmax_via_float32(sfdp_qk_t5<Contiguous, true>)),
                sfdp_params_check<false, true>{}),
    sfdp_t5_replace<SdpaMask::none, true>);

// _sfdp_pattern_24 (MBart/PLBart): softmax(view(view(q @ k^T) + mask)) @ v, with views in place
// of expands, and no scale. Inductor registers it with `_sfdp_extra_check` itself rather than a
// check it makes (the factory's result, a function, is always true): no check, as there. The
// replacement: scale=1.
inline constexpr auto sfdp_scores_24 = aten::view(
    aten::add.Tensor(
        aten::view(aten::bmm(aten::view("query"_x, _), aten::permute(aten::view("key"_x, _), _)), _),
        slot<"attn_mask", Value>),
    _);
inline constexpr auto sfdp_24_replace = [](const auto& m, RewriteBuilder& b) -> NodeId {
  if (!get<"attn_mask">(m).is_node()) return m.root();
  return sfdp_replace_cpu(m, b, 1.0);
};
inline constexpr auto sfdp_24 = rewrite<"_sfdp_pattern_24[_sfdp_extra_check]">(
    single_use(aten::view(aten::bmm(sfdp_softmax(sfdp_scores_24), aten::view("value"_x, _)), _)), sfdp_24_replace);
inline constexpr auto sfdp_24_half = rewrite<"_sfdp_pattern_24[_sfdp_extra_check]">(
    single_use(aten::view(
        aten::bmm(ops::convert_element_type(sfdp_softmax(sfdp_scores_24), _), aten::view("value"_x, _)), _)),
    sfdp_24_replace);
// ---- The training forms: attention and its gradients in the joint graph ----
// fuse_attention registers each pattern's training form before its inference form: a
// MultiOutputPattern over the joint forward+backward graph AOT autograd builds, its roots the
// attention and the gradients of query, key and value (the scale has none), the softmax's
// backward as torch 2.11 decomposes it, fma(-w, sum(g * w), g * w) for weights w and their
// gradient g. Replaced on CPU by the flash kernel and its backward, whose results take the
// roots' uses: what Inductor traces from the joint of _scaled_dot_product_attention there
// (tests/data/inductor/training, the oracle's joint graphs inside torch.compile). One template
// spells the forms whose replacement is the flash kernel, an SdpaTrainingForm telling them
// apart. Ported: patterns 1, 2, 5, 8, 10, 11 and 14 in float32 and float16, 21, 22 and 23 in
// float32 (23's float16 modules are taken by pointless_convert first; 21's and 22's reach the
// pass in no oracle graph). The forms with dropout (3, 4, 7, 9,
// 12, 13, 27) are replaced by Inductor's math decomposition instead, and are not ported yet.

/// Where a training form scales: nowhere (23), the scores and again their gradient (1, 2, 8,
/// 11), or the permuted query before the product and again its gradient (10).
enum class SdpaScaleAt { none, scores, query };
/// What sets one training form's tree apart from another's.
struct SdpaTrainingForm {
  bool permuted = false;    // (bs, len, heads, d) inputs permuted (0, 2, 1, 3), gradients permuted back
  bool contiguous = false;  // each product's operand cloned contiguous
  bool half = false;        // float16: the softmax in float32 between casts, forward and backward
  bool weights_cast = false;  // the weights cast before the product (`attn_weight.to(...)`: 8, 10)
  bool kv = false;            // the permuted key and value returned too, as further roots (22, 23)
  bool mask = false;          // an additive attn_mask after the scaling (5, 14, 21, 22), no gradient of its own
  SdpaScaleAt scale_at = SdpaScaleAt::none;
};

/// f(x) where Apply, else x.
template <bool Apply, class F, class X>
constexpr auto sfdp_apply_if(F f, X x) {
  if constexpr (Apply) return f(x);
  else return x;
}
/// x permuted once more where the form permutes its inputs, else x.
template <bool Permuted, class X>
constexpr auto sfdp_permuted_if(X x) {
  return sfdp_apply_if<Permuted>([](auto y) { return aten::permute(y, _); }, x);
}
/// x + attn_mask where Mask, else x.
template <bool Mask, class X>
constexpr auto sfdp_masked_if(X x) {
  return sfdp_apply_if<Mask>([](auto y) { return aten::add.Tensor(y, slot<"attn_mask", Value>); }, x);
}
/// x cast by convert_element_type where Cast, else x.
template <bool Cast, class X>
constexpr auto sfdp_cast_if(X x) {
  return sfdp_apply_if<Cast>([](auto y) { return ops::convert_element_type(y, _); }, x);
}

/// The value side of the product: permute(value) as a further root (F.kv), else value, permuted
/// where the form permutes.
template <SdpaTrainingForm F>
constexpr auto sfdp_training_value() {
  if constexpr (F.kv) return sfdp_value_t<true>();
  else return sfdp_permuted_if<F.permuted>("value"_x);
}
/// The weights w as the backward reads them, twice: cast to float32 (CastBack: the cast node at
/// its First reading, then the name), else w itself.
template <bool CastBack, bool First>
constexpr auto sfdp_weights_f32() {
  if constexpr (CastBack && First) return ops::convert_element_type("sfdp_w"_x, _).named<"sfdp_w32">().users<2>();
  else if constexpr (CastBack) return "sfdp_w32"_x;
  else return "sfdp_w"_x;
}

/// softmax(q @ k^T) @ v with its gradients, in the form F; `scale(x)` the scaling the form
/// applies where F.scale_at says, in the forward and again in the backward.
template <SdpaTrainingForm F, class Scale>
constexpr auto sfdp_training(Scale scale) {
  constexpr bool P = F.permuted, C = F.contiguous, H = F.half;
  constexpr bool at_scores = F.scale_at == SdpaScaleAt::scores, at_query = F.scale_at == SdpaScaleAt::query;
  // each product's operands, also read by the backward
  auto q_view = sfdp_operand<C>(sfdp_apply_if<at_query>(scale, sfdp_permuted_if<P>("query"_x)))
                    .template named<"sfdp_q_view">()
                    .template users<2>();
  auto k_view =
      sfdp_operand<C>(sfdp_permuted_if<P>(sfdp_key_t<F.kv>())).template named<"sfdp_k_view">().template users<2>();
  auto v_view = sfdp_operand<C>(sfdp_training_value<F>()).template named<"sfdp_v_view">().template users<2>();
  // the forward; the mask added after the scaling; in float16 the scores cast to float32 for the softmax
  auto softmax = sfdp_softmax(sfdp_cast_if<H>(
      sfdp_masked_if<F.mask>(sfdp_apply_if<at_scores>(scale, aten::view(aten::bmm(q_view, k_view), _)))));
  // w: what the backward reads. The float16 forms of 1, 2 and 11 cast the weights back to
  // float16 (the product and a cast to float32 for the backward read them); the forms with the
  // weights' own cast read the softmax itself three times (that cast, and the backward twice).
  constexpr bool cast_back = H && !F.weights_cast;
  auto w = sfdp_cast_if<cast_back>(softmax).template named<"sfdp_w">().template users<cast_back ? 2 : 3>();
  auto w_view = aten::view(aten::expand(sfdp_cast_if<F.weights_cast>(w), _), _)
                    .template named<"sfdp_w_view">()
                    .template users<2>();
  auto out = aten::view(aten::bmm(w_view, v_view), _);
  // the backward: g = grad_out @ v^T (in float32), the scores' gradient, then the three products
  auto w32 = sfdp_weights_f32<cast_back, true>();
  auto w32_again = sfdp_weights_f32<cast_back, false>();
  auto grad_view = aten::view("tangents_1"_x, _).named<"sfdp_grad_view">().users<2>();
  auto g = sfdp_cast_if<H || F.weights_cast>(
      aten::view(sfdp_cast_if<F.weights_cast && !H>(aten::bmm(grad_view, aten::permute("sfdp_v_view"_x, _))), _));
  auto g_w = aten::mul.Tensor(g, w32_again).template named<"sfdp_g_w">().template users<2>();
  auto grad_scores = sfdp_apply_if<at_scores>(
      scale, sfdp_cast_if<H>(ops::fma(aten::neg(w32), aten::sum.dim_IntList(g_w, _, sfdp_keep_sum), "sfdp_g_w"_x)));
  auto gs_view = aten::view(grad_scores, _).template named<"sfdp_gs_view">().template users<2>();
  auto grad_q = sfdp_permuted_if<P>(
      sfdp_apply_if<at_query>(scale, aten::view(aten::bmm(gs_view, aten::permute("sfdp_k_view"_x, _)), _)));
  auto grad_k = sfdp_permuted_if<P>(
      aten::permute(aten::view(aten::bmm(aten::permute("sfdp_q_view"_x, _), "sfdp_gs_view"_x), _), _));
  auto grad_v = sfdp_permuted_if<P>(aten::view(aten::bmm(aten::permute("sfdp_w_view"_x, _), "sfdp_grad_view"_x), _));
  if constexpr (F.kv) return single_use(multi(out, "sfdp_key_t"_x, "sfdp_value_t"_x, grad_q, grad_k, grad_v));
  else return single_use(multi(out, grad_q, grad_k, grad_v));
}

/// The kernels of a training form's replacement on CPU: the flash kernel and its backward on
/// the output's gradient `grad`, each given `mask` and `scale` where there are. `results` holds
/// the roots' nodes on entry and the nodes that take their uses on return: the attention, with
/// `kv` the new permuted key and value, then the three gradients. With `permuted` the kernels
/// read the inputs permuted (0, 2, 1, 3) and the gradients are permuted back, value's first (as
/// autograd traces them). One function for every form: the forms differ only in these values.
inline void sfdp_training_kernels_cpu(RewriteBuilder& b, bool permuted, bool kv, NodeId q, NodeId k, NodeId v,
                                      NodeId grad, std::optional<NodeId> mask, std::optional<double> scale,
                                      std::span<NodeId> results) {
  static const OpId flash = decltype(ops::sdpa_flash_cpu)::id(), backward = decltype(ops::sdpa_flash_cpu_backward)::id(),
                    item = decltype(getitem)::id();
  const Graph& g = b.graph();
  const std::size_t first_grad = kv ? 3 : 1;
  std::vector<TensorMeta> metas;
  for (NodeId r : results) metas.push_back(g[r].meta());
  if (permuted) q = sfdp_permuted(b, q), k = sfdp_permuted(b, k), v = sfdp_permuted(b, v);
  std::vector<Kwarg> kwargs;
  if (mask) kwargs.push_back({"attn_mask", Value(NodeRef{*mask})});
  if (scale) kwargs.push_back({"scale", Value(*scale)});
  const NodeId attention = b.call(flash, {NodeRef{q}, NodeRef{k}, NodeRef{v}}, kwargs);
  const NodeId out = b.call(item, {NodeRef{attention}, Value(std::int64_t{0})});
  const NodeId logsumexp = b.call(item, {NodeRef{attention}, Value(std::int64_t{1})});
  const NodeId grads = b.call(backward,
                              {NodeRef{grad}, NodeRef{q}, NodeRef{k}, NodeRef{v}, NodeRef{out}, NodeRef{logsumexp},
                               Value(0.0), Value(false)},
                              std::move(kwargs));
  results[0] = out;
  if (kv) results[1] = k, results[2] = v;
  for (std::size_t i = 0; i < 3; ++i)
    results[first_grad + i] = b.call(item, {NodeRef{grads}, Value(static_cast<std::int64_t>(i))});
  if (permuted)
    for (std::size_t i = results.size() - 1; i >= first_grad; --i) results[i] = sfdp_permuted(b, results[i]);
  for (std::size_t i = 0; i < results.size(); ++i) b.meta(results[i]) = metas[i];
}
/// A training form's replacement: on CPU the kernels above, the mask (F.mask) cast to the
/// query's dtype where it differs (`attn_mask.to(dtype=query.dtype)`); elsewhere unchanged.
template <SdpaTrainingForm F, class M>
auto sfdp_training_replace_cpu(const M& m, RewriteBuilder& b, std::optional<double> scale) {
  const Graph& g = b.graph();
  const NodeId q = get<"query">(m);
  auto results = m.root_nodes();
  if (!sfdp_on_cpu(g, q)) return results;
  std::optional<NodeId> mask;
  if constexpr (F.mask) {
    mask = get<"attn_mask">(m).node();
    if (g[*mask].meta().dtype != g[q].meta().dtype)
      mask = make(b, ops::convert_element_type(use(*mask), *g[q].meta().dtype));
  }
  sfdp_training_kernels_cpu(b, F.permuted, F.kv, q, get<"key">(m), get<"value">(m), get<"tangents_1">(m), mask, scale,
                            results);
  return results;
}

/// A training form with a number for its scale (patterns 1, 2, 11, 14): `scale_factor`,
/// divided by or multiplied with, checked by _sfdp_extra_check and given to the kernels.
template <SdpaTrainingForm F, bool Divides>
constexpr auto sfdp_training_scaled() {
  constexpr auto scale = [](auto x) {
    if constexpr (Divides) return aten::div.Tensor(x, slot<"scale_factor", Value>);
    else return aten::mul.Tensor(x, slot<"scale_factor", Value>);
  };
  return extra_check(sfdp_training<F>(scale), sfdp_scaled_check<Divides, F.mask>{});
}
template <SdpaTrainingForm F, bool Divides>
inline constexpr auto sfdp_training_scaled_replace = [](const auto& m, RewriteBuilder& b) {
  return sfdp_training_replace_cpu<F>(m, b, sfdp_scale<Divides>(get<"scale_factor">(m)));
};
/// A training form under _sfdp_params_check (patterns 5, 8, 10, 21-23): a divisor, where there
/// is one, of any value, which the replacement ignores as 5's, 7's and 9's do (the kernels'
/// default scale 1 / sqrt(d)); 21-23's kernels are given scale 1 (ScaleOne), as their inference
/// forms are.
template <SdpaTrainingForm F>
constexpr auto sfdp_training_checked() {
  constexpr auto scale = [](auto x) { return aten::div.Tensor(x, _); };
  return extra_check(sfdp_training<F>(scale), sfdp_params_check<F.mask>{});
}
template <SdpaTrainingForm F, bool ScaleOne>
inline constexpr auto sfdp_training_replace = [](const auto& m, RewriteBuilder& b) {
  return sfdp_training_replace_cpu<F>(m, b, ScaleOne ? std::optional<double>(1.0) : std::nullopt);
};

template <bool Half>
inline constexpr SdpaTrainingForm sfdp_form_1{.half = Half, .scale_at = SdpaScaleAt::scores};
template <bool Half>
inline constexpr SdpaTrainingForm sfdp_form_11{
    .permuted = true, .contiguous = true, .half = Half, .scale_at = SdpaScaleAt::scores};
template <bool Half, SdpaScaleAt At>
inline constexpr SdpaTrainingForm sfdp_form_8{
    .permuted = true, .contiguous = true, .half = Half, .weights_cast = true, .scale_at = At};
template <bool Contiguous>
inline constexpr SdpaTrainingForm sfdp_form_23{.permuted = true, .contiguous = Contiguous, .kv = true};
template <bool Half>
inline constexpr SdpaTrainingForm sfdp_form_5{.half = Half, .mask = true, .scale_at = SdpaScaleAt::scores};
template <bool Half>
inline constexpr SdpaTrainingForm sfdp_form_14{
    .permuted = true, .contiguous = true, .half = Half, .mask = true, .scale_at = SdpaScaleAt::scores};
template <bool Contiguous, bool KV>
inline constexpr SdpaTrainingForm sfdp_form_21{.permuted = true, .contiguous = Contiguous, .kv = KV, .mask = true};

template <bool Half>
inline constexpr auto sfdp_1_training = rewrite<"_sfdp_pattern_1[fn]">(
    sfdp_training_scaled<sfdp_form_1<Half>, true>(), sfdp_training_scaled_replace<sfdp_form_1<Half>, true>);
template <bool Half>
inline constexpr auto sfdp_2_training = rewrite<"_sfdp_pattern_2[fn]">(
    sfdp_training_scaled<sfdp_form_1<Half>, false>(), sfdp_training_scaled_replace<sfdp_form_1<Half>, false>);
template <bool Half>
inline constexpr auto sfdp_11_training = rewrite<"_sfdp_pattern_11[fn]">(
    sfdp_training_scaled<sfdp_form_11<Half>, true>(), sfdp_training_scaled_replace<sfdp_form_11<Half>, true>);
// 8 and 10: 7 and 9 without the dropout (whose inference forms, the dropout gone, 7 and 9 cover)
template <bool Half>
inline constexpr auto sfdp_8_training = rewrite<"_sfdp_pattern_8[_sfdp_params_check]">(
    sfdp_training_checked<sfdp_form_8<Half, SdpaScaleAt::scores>>(),
    sfdp_training_replace<sfdp_form_8<Half, SdpaScaleAt::scores>, false>);
template <bool Half>
inline constexpr auto sfdp_10_training = rewrite<"_sfdp_pattern_10[_sfdp_params_check]">(
    sfdp_training_checked<sfdp_form_8<Half, SdpaScaleAt::query>>(),
    sfdp_training_replace<sfdp_form_8<Half, SdpaScaleAt::query>, false>);
template <bool Contiguous>
inline constexpr auto sfdp_23_training = rewrite<"_sfdp_pattern_23[_sfdp_params_check]">(
    sfdp_training_checked<sfdp_form_23<Contiguous>>(), sfdp_training_replace<sfdp_form_23<Contiguous>, true>);
// The masked forms: 5 (the mask added to q @ k^T / c), 14 (to q' @ k'^T / s, s a number), 21
// and 22 (to q' @ k'^T, 22 also returning k' and v'; their float16 forms fire on no oracle graph).
template <bool Half>
inline constexpr auto sfdp_5_training = rewrite<"_sfdp_pattern_5[_sfdp_params_check]">(
    sfdp_training_checked<sfdp_form_5<Half>>(), sfdp_training_replace<sfdp_form_5<Half>, false>);
template <bool Half>
inline constexpr auto sfdp_14_training = rewrite<"_sfdp_pattern_14[fn]">(
    sfdp_training_scaled<sfdp_form_14<Half>, true>(), sfdp_training_scaled_replace<sfdp_form_14<Half>, true>);
template <bool Contiguous>
inline constexpr auto sfdp_21_training = rewrite<"_sfdp_pattern_21[_sfdp_params_check]">(
    sfdp_training_checked<sfdp_form_21<Contiguous, false>>(),
    sfdp_training_replace<sfdp_form_21<Contiguous, false>, true>);
template <bool Contiguous>
inline constexpr auto sfdp_22_training = rewrite<"_sfdp_pattern_22[_sfdp_params_check]">(
    sfdp_training_checked<sfdp_form_21<Contiguous, true>>(), sfdp_training_replace<sfdp_form_21<Contiguous, true>, true>);
}  // namespace inductor_joint_detail

/// The ported entries of Inductor's joint-graph pattern pass, in its order.
inline auto inductor_joint() {
  using namespace inductor_joint_detail;
  return rule_set(fix_iota_device, pointless_convert, bmm_to_mm, scatter_upon_const_tensor, sfdp_13, sfdp_13_half,
                  // float32 forms (a pattern's training form first, as fuse_attention registers them)
                  sfdp_1_training<false>, sfdp_1, sfdp_2_training<false>, sfdp_2, sfdp_5_training<false>, sfdp_5,
                  sfdp_7, sfdp_8_training<false>, sfdp_9, sfdp_10_training<false>, sfdp_11_training<false>, sfdp_11,
                  sfdp_14_training<false>, sfdp_14, sfdp_15, sfdp_18, sfdp_18_bs1, sfdp_19, sfdp_20,
                  sfdp_21_training<true>, sfdp_21_form<true, false>, sfdp_21_training<false>, sfdp_21_form<false, false>,
                  sfdp_22_training<true>, sfdp_22_form<true, false>, sfdp_22_training<false>, sfdp_22_form<false, false>,
                  sfdp_23_training<true>, sfdp_23_form<true, false>, sfdp_23_training<false>,
                  sfdp_23_form<false, false>, sfdp_24,
                  // float16 forms
                  sfdp_1_training<true>, sfdp_1_half, sfdp_2_training<true>, sfdp_2_half, sfdp_5_training<true>,
                  sfdp_5_half, sfdp_7_half, sfdp_8_training<true>, sfdp_9_half, sfdp_10_training<true>,
                  sfdp_11_training<true>, sfdp_11_half, sfdp_14_training<true>, sfdp_14_half,
                  sfdp_15_half, sfdp_18_half, sfdp_18_half_bs1, sfdp_19_half, sfdp_20_half, sfdp_21_form<true, true>,
                  sfdp_21_form<false, true>, sfdp_22_form<true, true>, sfdp_22_form<false, true>,
                  sfdp_23_form<true, true>, sfdp_23_form<false, true>, sfdp_24_half, sfdp_25_half_form<true>,
                  sfdp_25_half_form<false>, sfdp_26_half_form<true>, sfdp_26_half_form<false>,
                  sfdp_27_half_form<true>, sfdp_27_half_form<false>,
                  // float16 inputs with a float32 mask
                  sfdp_16_mask_fp32, sfdp_16_mask_fp32_bs1, inductor_misc_detail::randperm_index_add_pattern);
}

}  // namespace ctmatch::rules
