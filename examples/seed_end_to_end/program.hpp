#pragma once
// The seed MLP as a straight-line program the GPU interpreter of seed_end_to_end.cu runs:
// one Step per graph node, operands by step index. Plain C++ without ctmatch's pattern
// headers, because the pattern DSL is compiled by the host compiler only (rewrite.cpp), and
// the CUDA side needs nothing but this description.
#include <cstddef>
#include <string>
#include <vector>

namespace seed_e2e {

/// The element types the program stores (ScalarType Float, Half, BFloat16).
enum class Dtype { f32, f16, bf16 };
const char* dtype_name(Dtype d);

enum class StepKind {
  input,          // a placeholder: its shape is given by name (x, or a weight)
  mm,             // aten.mm: bf16 operands (an f32 operand is converted first), bf16 result
  scale_cast,     // seedlib.scale_cast(x, dtype, clamp, scale)
  mm_scale_cast,  // seedlib.mm_scale_cast(a, b, dtype, clamp, scale): what the rewrite makes
  gelu_tanh,      // aten.gelu(x, approximate="tanh") or bench.gelu_tanh(x)
  row_sum,        // aten.sum.dim_IntList(x, [1] or [-1], keepdim) of a matrix
};

struct Step {
  StepKind kind = StepKind::input;
  std::string name;      // the node's name in the graph
  std::vector<int> in;   // operand step indices
  Dtype dtype = Dtype::f32;  // scale_cast / mm_scale_cast: the requested output dtype
  bool clamp = false;
  double scale = 1.0;
  bool keepdim = false;  // row_sum
};

struct Program {
  std::vector<Step> steps;
  int output = -1;  // the step the graph returns
  /// Steps of one kind, in order.
  std::vector<int> of_kind(StepKind k) const;
};

/// A graph before and after the `bench` rules ran on it in sweep mode.
struct RewrittenGraph {
  Program unfused;  // as read (or built)
  Program fused;    // after the rewrite
  std::size_t mm_scale_cast_matches = 0;
  std::string pass_report;  // per-rule matches, nodes before and after, time
};

/// Reads a graph file (FX text or torch.export JSON) and rewrites it with the bench rules.
RewrittenGraph rewrite_graph_file(const std::string& path);
/// Builds the seed MLP's structure with `layers` blocks mm -> scale_cast(dtype, clamp on even
/// layers, scale=0.5) -> gelu(tanh), then sum(dim=[1], keepdim=True), and rewrites it.
RewrittenGraph rewrite_built_mlp(int layers, Dtype cast_dtype);

}  // namespace seed_e2e
