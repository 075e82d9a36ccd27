#pragma once
// Where the graph half of ctmatch meets the kernel half: the GEMM problem the tuner and the
// kernels take, a tune::MMKernelInputs (sizes, strides, dtypes, device) plus the epilogue to
// fuse, typed. It is built from a graph node (from_node.hpp) or from real tensors (the torch
// op) by the one function below, which also writes the epilogue into the MMKernelInputs the
// way the kernel backends read it. Epilogues:
//   none       aten.mm(a, b): output in a's dtype
//   AddBias    aten.addmm(bias, a, b, *, beta, alpha): beta * bias + alpha * (a @ b)
//   ScaleCast  seedlib.mm_scale_cast(a, b, *, dtype, clamp, scale): cast<dtype>(clamp?((a @ b) * scale))
// Plain C++, no graph and no CUDA: the CUDA launchers include it.
#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "../graph/scalar_type.hpp"
#include "../tune/kernel_inputs.hpp"

namespace ctmatch::lower {

/// Why something is not a GEMM problem this layer can describe.
class GemmProblemError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// seedlib.scale_cast's kwargs, fused: out = cast<dtype>(clamp?(acc * scale, -1, 1)).
struct ScaleCast {
  ScalarType dtype = ScalarType::Float;
  bool clamp = false;
  double scale = 1.0;
  friend bool operator==(const ScaleCast&, const ScaleCast&) = default;
};
/// addmm's epilogue: out = beta * bias + alpha * acc (the bias is the first input tensor).
struct AddBias {
  double alpha = 1.0, beta = 1.0;
  friend bool operator==(const AddBias&, const AddBias&) = default;
};
/// What the kernel does with each accumulator: nothing (plain mm), addmm's bias, or scale_cast.
using GemmEpilogue = std::variant<std::monostate, AddBias, ScaleCast>;

struct GemmProblem {
  tune::MMKernelInputs inputs;
  GemmEpilogue epilogue;
  /// The op as the autotune cache keys it, with the epilogue's kwargs:
  /// `aten::mm`, `aten::addmm`, `seedlib::mm_scale_cast(dtype=bfloat16,clamp=1,scale=0.5)`.
  std::string op;
};

/// The op name the GEMM heuristics know the problem by (Inductor's: "mm" or "addmm").
inline std::string_view heuristic_op(const GemmProblem& p) {
  return std::holds_alternative<AddBias>(p.epilogue) ? "addmm" : "mm";
}

/// The tuner's element type for a ScalarType, or nothing where the tuner has none.
constexpr std::optional<tune::DType> tune_dtype(ScalarType t) {
  switch (t) {
    case ScalarType::Float: return tune::DType::f32;
    case ScalarType::Half: return tune::DType::f16;
    case ScalarType::BFloat16: return tune::DType::bf16;
    case ScalarType::Double: return tune::DType::f64;
    case ScalarType::Char: return tune::DType::i8;
    case ScalarType::Float8_e4m3fn: return tune::DType::f8e4m3fn;
    case ScalarType::Float8_e5m2: return tune::DType::f8e5m2;
    default: return std::nullopt;
  }
}

/// The label the autotune cache keys a scale_cast GEMM by (one entry per kwarg combination,
/// since each is a different kernel).
inline std::string scale_cast_op_label(const ScaleCast& e) {
  char text[96];
  std::snprintf(text, sizeof text, "seedlib::mm_scale_cast(dtype=%.*s,clamp=%d,scale=%g)",
                static_cast<int>(torch_name(e.dtype).size()), torch_name(e.dtype).data(), e.clamp ? 1 : 0, e.scale);
  return text;
}

/// mm(a, b) with `epilogue`, from the operands' descriptions: the one place that writes an
/// epilogue into MMKernelInputs (output dtype and the scalars "scale"/"clamp" or "alpha"/"beta",
/// which the kernel backends read back). `bias` is required for AddBias and refused otherwise.
inline GemmProblem gemm_problem(tune::TensorDesc a, tune::TensorDesc b, const GemmEpilogue& epilogue,
                                std::string device, std::optional<tune::TensorDesc> bias = std::nullopt) {
  const bool addmm = std::holds_alternative<AddBias>(epilogue);
  if (addmm != bias.has_value())
    throw GemmProblemError(addmm ? "addmm needs its bias tensor" : "a bias tensor is only read by addmm");
  try {
    if (const auto* e = std::get_if<AddBias>(&epilogue)) {
      tune::MMKernelInputs in({std::move(*bias), std::move(a), std::move(b)}, std::move(device), 1, 2);
      in.set_scalar("alpha", e->alpha).set_scalar("beta", e->beta);
      return {std::move(in), epilogue, "aten::addmm"};
    }
    tune::MMKernelInputs in({std::move(a), std::move(b)}, std::move(device));
    if (const auto* e = std::get_if<ScaleCast>(&epilogue)) {
      const auto out = tune_dtype(e->dtype);
      if (!out) throw GemmProblemError("no GEMM output of dtype " + std::string(torch_name(e->dtype)));
      in.set_out_dtype(*out);
      in.set_scalar("scale", e->scale).set_scalar("clamp", e->clamp ? 1 : 0);
      return {std::move(in), epilogue, scale_cast_op_label(*e)};
    }
    return {std::move(in), epilogue, "aten::mm"};
  } catch (const std::invalid_argument& e) {  // MMKernelInputs' shape checks
    throw GemmProblemError(e.what());
  }
}

}  // namespace ctmatch::lower
