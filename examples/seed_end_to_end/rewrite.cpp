// The graph half of seed_end_to_end: read (or build) the seed MLP, run the `bench` rules in
// sweep mode, and lower the graph before and after to the Program the GPU interpreter runs.
// Compiled by the host compiler: the pattern DSL is host code.
#include "program.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>

#include <ctmatch/graph.hpp>
#include <ctmatch/io/read.hpp>
#include <ctmatch/lower/from_node.hpp>
#include <ctmatch/rewrite.hpp>
#include <ctmatch/rules/bench.hpp>
#include <ctmatch/schema/builtin.hpp>

namespace seed_e2e {

using namespace ctmatch;

const char* dtype_name(Dtype d) {
  switch (d) {
    case Dtype::f32: return "float32";
    case Dtype::f16: return "float16";
    case Dtype::bf16: return "bfloat16";
  }
  return "?";
}

std::vector<int> Program::of_kind(StepKind k) const {
  std::vector<int> out;
  for (std::size_t i = 0; i < steps.size(); ++i)
    if (steps[i].kind == k) out.push_back(static_cast<int>(i));
  return out;
}

namespace {

/// The ops involved, interned once: schemas first, so that nodes built or read resolve
/// their keyword arguments and defaults.
struct Ops {
  OpId mm, scale_cast, mm_scale_cast, gelu, bench_gelu_tanh, sum_dim;
  static const Ops& get() {
    static const Ops ops = [] {
      schema::ensure_builtin_schemas();
      return Ops{intern_op("aten.mm.default"),
                 rules::bench_ops::scale_cast.id(),
                 rules::bench_ops::mm_scale_cast.id(),
                 intern_op("aten.gelu.default"),
                 rules::bench_ops::gelu_tanh.id(),
                 intern_op("aten.sum.dim_IntList")};
    }();
    return ops;
  }
};

[[noreturn]] void unsupported(const Node& n, const std::string& why) {
  throw std::runtime_error("seed_end_to_end: node '" + std::string(n.name()) + "' (" + std::string(op_name(n.op())) +
                           "): " + why);
}

Dtype dtype_of(const Node& n, ScalarType t) {
  switch (t) {
    case ScalarType::Float: return Dtype::f32;
    case ScalarType::Half: return Dtype::f16;
    case ScalarType::BFloat16: return Dtype::bf16;
    default: unsupported(n, "output dtype " + std::string(torch_name(t)) + " is not float32, float16 or bfloat16");
  }
}

bool bool_or(const Value* v, bool otherwise) {
  if (!v || v->is_none()) return otherwise;
  if (const bool* b = v->get_if<bool>()) return *b;
  throw std::runtime_error("seed_end_to_end: expected a bool argument");
}

/// One Step per live node, in graph order; anything the interpreter cannot run is an error.
Program to_program(const Graph& g) {
  const Ops& ops = Ops::get();
  Program p;
  std::vector<int> step_of(g.id_bound(), -1);
  auto operand = [&](const Node& n, std::size_t i) {
    const Value* v = n.signature() ? n.arg(i) : (i < n.args().size() ? &n.args()[i] : nullptr);
    if (!v || !v->is_node() || step_of[v->node()] < 0) unsupported(n, "operand " + std::to_string(i) + " is not a tensor");
    return step_of[v->node()];
  };
  for (const Node& n : g.nodes()) {
    Step s;
    s.name = n.name();
    if (n.kind() == NodeKind::Placeholder) {
      s.kind = StepKind::input;
    } else if (n.kind() == NodeKind::Output) {
      n.args()[0].for_each_node([&](NodeId id) {
        if (p.output < 0) p.output = step_of[id];
      });
      continue;
    } else if (n.kind() != NodeKind::CallFunction) {
      throw std::runtime_error("seed_end_to_end: node '" + std::string(n.name()) + "' is not a call_function");
    } else if (n.op() == ops.mm) {
      s.kind = StepKind::mm;
      s.in = {operand(n, 0), operand(n, 1)};
    } else if (n.op() == ops.scale_cast || n.op() == ops.mm_scale_cast) {
      const bool fused = n.op() == ops.mm_scale_cast;
      s.kind = fused ? StepKind::mm_scale_cast : StepKind::scale_cast;
      s.in = fused ? std::vector<int>{operand(n, 0), operand(n, 1)} : std::vector<int>{operand(n, 0)};
      // the typed kwargs, read by the lowering layer the GEMM problem is built with
      const lower::ScaleCast e = lower::scale_cast_of(n);
      s.dtype = dtype_of(n, e.dtype);
      s.clamp = e.clamp;
      s.scale = e.scale;
    } else if (n.op() == ops.gelu || n.op() == ops.bench_gelu_tanh) {
      if (n.op() == ops.gelu) {
        const Value* a = n.arg("approximate");
        const std::string* text = a ? a->get_if<std::string>() : nullptr;
        if (!text || *text != "tanh") unsupported(n, "only approximate='tanh' is implemented");
      }
      s.kind = StepKind::gelu_tanh;
      s.in = {operand(n, 0)};
    } else if (n.op() == ops.sum_dim) {
      s.kind = StepKind::row_sum;
      s.in = {operand(n, 0)};
      const Value* dim = n.arg("dim");
      const auto* items = dim ? dim->items() : nullptr;
      const std::int64_t* d0 = items && items->size() == 1 ? (*items)[0].get_if<std::int64_t>() : nullptr;
      if (!d0 || (*d0 != 1 && *d0 != -1)) unsupported(n, "only a sum over dim [1] of a matrix is implemented");
      s.keepdim = bool_or(n.arg("keepdim"), false);
      const Value* dt = n.arg("dtype");
      if (dt && !dt->is_none()) unsupported(n, "sum with a dtype is not implemented");
    } else {
      unsupported(n, "op not implemented by the interpreter");
    }
    step_of[n.id()] = static_cast<int>(p.steps.size());
    p.steps.push_back(std::move(s));
  }
  if (p.output < 0) throw std::runtime_error("seed_end_to_end: the graph returns no tensor");
  return p;
}

RewrittenGraph rewrite(Graph g) {
  RewrittenGraph r;
  r.unfused = to_program(g);
  PassOptions o;
  o.verify_after_pass = true;
  const PassStats st = sweep(g, rules::bench_rules(), o);
  r.fused = to_program(g);
  char line[160];
  for (const RuleStats& rs : st.by_name()) {
    if (rs.matches == 0) continue;
    std::snprintf(line, sizeof line, "  rule %-14.*s %zu match(es), %zu node(s) added, %zu removed\n", static_cast<int>(rs.name.size()), rs.name.data(),
                  rs.matches, rs.nodes_added, rs.nodes_removed);
    r.pass_report += line;
    if (rs.name == "mm_scale_cast") r.mm_scale_cast_matches += rs.matches;
  }
  std::snprintf(line, sizeof line, "  sweep: %zu -> %zu nodes in %.1f us\n", st.nodes_before, st.nodes_after,
                st.seconds * 1e6);
  r.pass_report += line;
  return r;
}

}  // namespace

RewrittenGraph rewrite_graph_file(const std::string& path) {
  Ops::get();
  return rewrite(io::read_graph_file(path));
}

RewrittenGraph rewrite_built_mlp(int layers, Dtype cast_dtype) {
  const Ops& ops = Ops::get();
  const ScalarType st = cast_dtype == Dtype::f32   ? ScalarType::Float
                        : cast_dtype == Dtype::f16 ? ScalarType::Half
                                                   : ScalarType::BFloat16;
  Graph g;
  std::vector<NodeId> ws;
  for (int i = 0; i < layers; ++i) ws.push_back(g.placeholder("p_ws_" + std::to_string(i)));
  NodeId h = g.placeholder("x");
  for (int i = 0; i < layers; ++i) {
    const NodeId mm = g.call(ops.mm, {NodeRef{h}, NodeRef{ws[static_cast<std::size_t>(i)]}});
    std::vector<Kwarg> kw{{"dtype", st}};
    if (i % 2 == 0) kw.push_back({"clamp", true});  // as the seed model: clamp on even layers
    kw.push_back({"scale", 0.5});
    const NodeId sc = g.call(ops.scale_cast, {NodeRef{mm}}, std::move(kw));
    h = g.call(ops.gelu, {NodeRef{sc}}, {{"approximate", "tanh"}});
  }
  const NodeId sum = g.call(ops.sum_dim, {NodeRef{h}, Value::list({Value(1)}), Value(true)});
  g.output({NodeRef{sum}});
  verify(g);
  return rewrite(std::move(g));
}

}  // namespace seed_e2e
