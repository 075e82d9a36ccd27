#pragma once
// MMKernelInputs: what a GEMM heuristic may look at — the input tensors' sizes, strides and
// dtypes, the device, the scalar arguments (alpha, beta) and the output layout. Descriptions
// only, no data: generating choices must not need buffers (Inductor's KernelInputs over IR nodes).
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "dtype.hpp"

namespace ctmatch::tune {

/// Sizes, strides and dtype of one tensor (row-major strides unless given).
struct TensorDesc {
  std::vector<std::int64_t> sizes;
  std::vector<std::int64_t> strides;
  DType dtype = DType::f32;

  static TensorDesc contiguous(std::vector<std::int64_t> sizes, DType dtype) {
    TensorDesc t{std::move(sizes), {}, dtype};
    t.strides.assign(t.sizes.size(), 1);
    for (std::size_t i = t.sizes.size(); i-- > 1;) t.strides[i - 1] = t.strides[i] * t.sizes[i];
    return t;
  }
  friend bool operator==(const TensorDesc&, const TensorDesc&) = default;
};

/// The output of the op: device, dtype, sizes, strides.
struct OutputLayout {
  std::string device;
  DType dtype = DType::f32;
  std::vector<std::int64_t> sizes;
  std::vector<std::int64_t> strides;
  friend bool operator==(const OutputLayout&, const OutputLayout&) = default;
};

/// Inputs of a GEMM-family op: `mm(mat1, mat2)` or `addmm(bias, mat1, mat2)`.
class MMKernelInputs {
 public:
  /// `nodes` in the op's order; `mat1_idx`/`mat2_idx` say which are the matrices
  /// (addmm: bias first, so 1 and 2). Throws std::invalid_argument on shapes that are not a GEMM.
  MMKernelInputs(std::vector<TensorDesc> nodes, std::string device, int mat1_idx = -2,
                 int mat2_idx = -1)
      : nodes_(std::move(nodes)), device_(std::move(device)) {
    const int n = static_cast<int>(nodes_.size());
    if (n < 2) throw std::invalid_argument("ctmatch: a GEMM needs at least 2 input tensors, got " + std::to_string(n));
    mat1_ = mat1_idx < 0 ? n + mat1_idx : mat1_idx;
    mat2_ = mat2_idx < 0 ? n + mat2_idx : mat2_idx;
    if (mat1_ < 0 || mat1_ >= n || mat2_ < 0 || mat2_ >= n)
      throw std::invalid_argument("ctmatch: matrix index out of range");
    const TensorDesc& a = nodes_[static_cast<std::size_t>(mat1_)];
    const TensorDesc& b = nodes_[static_cast<std::size_t>(mat2_)];
    if (a.sizes.size() != 2 || b.sizes.size() != 2 || a.strides.size() != 2 || b.strides.size() != 2)
      throw std::invalid_argument("ctmatch: GEMM operands must be 2-d with 2 strides");
    if (a.sizes[1] != b.sizes[0])
      throw std::invalid_argument("ctmatch: GEMM inner dimensions differ: " + std::to_string(a.sizes[1]) +
                                  " vs " + std::to_string(b.sizes[0]));
    for (const auto& t : nodes_)
      for (auto s : t.sizes)
        if (s < 0) throw std::invalid_argument("ctmatch: negative tensor size");
  }

  /// Convenience: contiguous mm(a[m,k], b[k,n]).
  static MMKernelInputs mm(std::int64_t m, std::int64_t n, std::int64_t k, DType dtype, std::string device) {
    return MMKernelInputs({TensorDesc::contiguous({m, k}, dtype), TensorDesc::contiguous({k, n}, dtype)},
                          std::move(device));
  }
  /// Convenience: addmm(bias, a[m,k], b[k,n]); `broadcast_bias` gives the bias stride 0 on dim 0
  /// (a row vector expanded to [m, n], the cuBLASLt bias epilogue case).
  static MMKernelInputs addmm(std::int64_t m, std::int64_t n, std::int64_t k, DType dtype, std::string device,
                              bool broadcast_bias, double alpha = 1.0, double beta = 1.0) {
    TensorDesc bias = TensorDesc::contiguous({m, n}, dtype);
    if (broadcast_bias) bias.strides = {0, 1};
    MMKernelInputs in({bias, TensorDesc::contiguous({m, k}, dtype), TensorDesc::contiguous({k, n}, dtype)},
                      std::move(device), 1, 2);
    in.set_scalar("alpha", alpha).set_scalar("beta", beta);
    return in;
  }

  [[nodiscard]] const std::vector<TensorDesc>& nodes() const { return nodes_; }
  [[nodiscard]] const TensorDesc& mat1() const { return nodes_[static_cast<std::size_t>(mat1_)]; }
  [[nodiscard]] const TensorDesc& mat2() const { return nodes_[static_cast<std::size_t>(mat2_)]; }
  [[nodiscard]] int mat1_index() const { return mat1_; }
  [[nodiscard]] int mat2_index() const { return mat2_; }
  [[nodiscard]] std::int64_t m() const { return mat1().sizes[0]; }
  [[nodiscard]] std::int64_t n() const { return mat2().sizes[1]; }
  [[nodiscard]] std::int64_t k() const { return mat1().sizes[1]; }
  /// The input dtype (mat1's), as Inductor's `kernel_inputs.dtype()`.
  [[nodiscard]] DType dtype() const { return mat1().dtype; }
  [[nodiscard]] DType out_dtype() const { return out_dtype_.value_or(dtype()); }
  void set_out_dtype(DType t) { out_dtype_ = t; }
  /// Device type, e.g. "host" or "cuda"; `device_name` (e.g. "NVIDIA H200") is for cache keys.
  [[nodiscard]] const std::string& device_type() const { return device_; }

  MMKernelInputs& set_scalar(const std::string& name, double v) {
    scalars_[name] = v;
    return *this;
  }
  /// A scalar argument (alpha, beta); 1.0 when the op did not give it (PyTorch's default).
  [[nodiscard]] double get_scalar(const std::string& name) const {
    auto it = scalars_.find(name);
    return it == scalars_.end() ? 1.0 : it->second;
  }
  [[nodiscard]] const std::map<std::string, double>& scalars() const { return scalars_; }

  /// Row-major [m, n] output in the output dtype.
  [[nodiscard]] OutputLayout output_layout() const { return OutputLayout{device_, out_dtype(), {m(), n()}, {n(), 1}}; }

 private:
  std::vector<TensorDesc> nodes_;
  std::string device_;
  int mat1_ = 0;
  int mat2_ = 1;
  std::optional<DType> out_dtype_;
  std::map<std::string, double> scalars_;
};

}  // namespace ctmatch::tune
