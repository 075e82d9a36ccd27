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
//   pointless_convert  convert_element_type(convert_element_type(x, d1) [one user], d2), x's
//                      dtype, d1, d2 among f16/bf16/f32/f64 and itemsize(d1) >= itemsize(d2)
//                      ->  convert_element_type(x, d2)
//   bmm_to_mm          bmm(a, b), a and b on cuda with batch 1  ->  unsqueeze(mm(squeeze(a, 0),
//                      squeeze(b, 0)), 0) (Inductor traces this with replace_by_example)
//
// Left out (see the table for why): the SDPA patterns, pad_mm's patterns (which decide by
// timing kernels), scatter_upon_const_tensor, the randperm index patterns. Inductor's node
// flag for FlexGEMM bodies (bmm_to_mm's first check) is not in the graph formats ctmatch reads.
#include "../pattern.hpp"
#include "../rewrite/pattern_rule.hpp"
#include "../rewrite/rule_set.hpp"

namespace ctmatch::rules {

namespace inductor_ops {
using pattern::op;
inline constexpr auto iota = op<
    "prims::iota(SymInt length, *, SymInt start, SymInt step, ScalarType dtype, Device device, bool requires_grad) -> Tensor">;
inline constexpr auto convert_element_type = op<"prims::convert_element_type(Tensor a, ScalarType dtype) -> Tensor">;
inline constexpr auto squeeze_dim = op<"aten::squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)">;
inline constexpr auto unsqueeze = op<"aten::unsqueeze(Tensor(a) self, int dim) -> Tensor(a)">;
}  // namespace inductor_ops

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
            !user.meta.device)
          return node;  // bail out
        if (user_device && *user_device != *user.meta.device) return node;  // two devices
        user_device = user.meta.device;
      }
      if (!user_device || !g[node].meta.dtype) return node;
      if (get<"device">(m).type == user_device->type) return node;
      NodeId repl = make(b, ops::iota(get<"length">(m), "start"_kw = get<"start">(m), "step"_kw = get<"step">(m),
                                      "dtype"_kw = get<"dtype">(m), "device"_kw = *user_device,
                                      "requires_grad"_kw = get<"requires_grad">(m)));
      b.meta(repl) = g[node].meta;
      b.meta(repl).device = *user_device;
      return repl;
    });

inline constexpr auto pointless_convert = rewrite<"pointless_convert">(
    ops::convert_element_type(ops::convert_element_type("arg"_x, slot<"dtype1", DType>).users<1>(),
                              slot<"dtype2", DType>),
    [](const auto& m, RewriteBuilder& b) -> NodeId {
      const std::optional<ScalarType>& arg = b.graph()[get<"arg">(m)].meta.dtype;
      ScalarType d1 = get<"dtype1">(m), d2 = get<"dtype2">(m);
      if (!arg || !amp_float(*arg) || !amp_float(d1) || !amp_float(d2)) return m.root();
      if (itemsize(d1) < itemsize(d2)) return m.root();  // a narrower intermediate is kept
      return make(b, ops::convert_element_type(use(get<"arg">(m)), d2));
    });

inline constexpr auto bmm_to_mm = rewrite<"bmm_to_mm">(
    aten::bmm("mat1"_x, "mat2"_x), [](const auto& m, RewriteBuilder& b) -> NodeId {
      const Graph& g = b.graph();
      const TensorMeta &a = g[get<"mat1">(m)].meta, &c = g[get<"mat2">(m)].meta;
      auto batch_one = [](const TensorMeta& t) { return t.shape && !t.shape->empty() && (*t.shape)[0] == Value(1); };
      // Inductor's check_device(a, b, "cuda"): both on one device type, and that type cuda.
      bool cuda = a.device && c.device && a.device->type == c.device->type && c.device->type == DeviceType::CUDA;
      if (!cuda || !batch_one(a) || !batch_one(c)) return m.root();
      NodeId s1 = make(b, ops::squeeze_dim(use(get<"mat1">(m)), 0));
      NodeId s2 = make(b, ops::squeeze_dim(use(get<"mat2">(m)), 0));
      NodeId mm = make(b, aten::mm(use(s1), use(s2)));
      return make(b, ops::unsqueeze(use(mm), 0));
    });
}  // namespace inductor_joint_detail

/// The ported entries of Inductor's joint-graph pattern pass, in its order.
inline auto inductor_joint() {
  using namespace inductor_joint_detail;
  return rule_set(fix_iota_device, pointless_convert, bmm_to_mm);
}

}  // namespace ctmatch::rules
