#pragma once
// A graph node of a GEMM-like op (aten.mm, aten.addmm, seedlib.mm_scale_cast), with its
// inputs' tensor metadata and its typed kwargs, as the GemmProblem the tuner and the kernels
// take. The graph records dtype and shape but no strides, so a node's inputs are taken as
// contiguous (row-major). Anything else is refused with the node's name and the reason: this
// layer never guesses.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../graph/graph.hpp"
#include "gemm_problem.hpp"

namespace ctmatch::lower {

namespace detail {
inline const Value& required_arg(const Node& n, std::string_view param) {
  const Value* v = n.arg(param);
  if (!v) throw GemmProblemError("node '" + std::string(n.name()) + "': no argument '" + std::string(param) + "'");
  return *v;
}

/// The contiguous description of the tensor `param` of n, from its producer's metadata.
inline tune::TensorDesc tensor_arg(const Graph& g, const Node& n, std::string_view param) {
  const Value& v = required_arg(n, param);
  auto fail = [&](const std::string& why) -> GemmProblemError {
    return GemmProblemError("node '" + std::string(n.name()) + "': argument '" + std::string(param) + "' " + why);
  };
  if (!v.is_node()) throw fail("is not a tensor");
  const Node& t = g[v.node()];
  if (!t.meta().dtype || !t.meta().shape) throw fail("('" + std::string(t.name()) + "') has no dtype and shape metadata");
  const auto dt = tune_dtype(*t.meta().dtype);
  if (!dt) throw fail("has dtype " + std::string(torch_name(*t.meta().dtype)) + ", which the tuner does not know");
  std::vector<std::int64_t> sizes;
  for (const Value& d : *t.meta().shape) {
    const auto* i = d.get_if<std::int64_t>();
    if (!i) throw fail("('" + std::string(t.name()) + "') has a symbolic size: a GEMM problem needs concrete sizes");
    sizes.push_back(*i);
  }
  return tune::TensorDesc::contiguous(std::move(sizes), *dt);
}

inline double number_arg(const Node& n, std::string_view param) {
  const Value& v = required_arg(n, param);
  if (const auto* d = v.get_if<double>()) return *d;
  if (const auto* i = v.get_if<std::int64_t>()) return static_cast<double>(*i);
  if (const auto* b = v.get_if<bool>()) return *b ? 1.0 : 0.0;
  throw GemmProblemError("node '" + std::string(n.name()) + "': argument '" + std::string(param) + "' is not a number");
}
}  // namespace detail

/// The typed kwargs of a seedlib.scale_cast or seedlib.mm_scale_cast node (the same three:
/// dtype, clamp, scale), or GemmProblemError naming the node.
inline ScaleCast scale_cast_of(const Node& n) {
  const auto* dtype = detail::required_arg(n, "dtype").get_if<ScalarType>();
  const auto* clamp = detail::required_arg(n, "clamp").get_if<bool>();
  if (!dtype || !clamp) throw GemmProblemError("node '" + std::string(n.name()) + "': dtype or clamp is not of its schema type");
  return ScaleCast{*dtype, *clamp, detail::number_arg(n, "scale")};
}

/// The GEMM problem of node `id` (aten.mm, aten.addmm or seedlib.mm_scale_cast), or
/// GemmProblemError naming the node and what is missing.
inline GemmProblem gemm_problem(const Graph& g, NodeId id, std::string device = "cuda") {
  const Node& n = g[id];
  const std::string_view op = n.kind() == NodeKind::CallFunction ? op_name(n.op()) : std::string_view{};
  if (op.empty()) throw GemmProblemError("node '" + std::string(n.name()) + "': not an op call");
  if (!n.signature()) throw GemmProblemError("node '" + std::string(n.name()) + "': op " + std::string(op) + " has no known schema");
  if (op == "aten.mm.default")
    return gemm_problem(detail::tensor_arg(g, n, "self"), detail::tensor_arg(g, n, "mat2"), std::monostate{},
                        std::move(device));
  if (op == "aten.addmm.default")
    return gemm_problem(detail::tensor_arg(g, n, "mat1"), detail::tensor_arg(g, n, "mat2"),
                        AddBias{detail::number_arg(n, "alpha"), detail::number_arg(n, "beta")}, std::move(device),
                        detail::tensor_arg(g, n, "self"));
  if (op == "seedlib.mm_scale_cast.default")
    return gemm_problem(detail::tensor_arg(g, n, "a"), detail::tensor_arg(g, n, "b"), scale_cast_of(n),
                        std::move(device));
  throw GemmProblemError("node '" + std::string(n.name()) + "': " + std::string(op) +
                         " is not a GEMM this layer describes (aten.mm, aten.addmm, seedlib.mm_scale_cast)");
}

}  // namespace ctmatch::lower
