#pragma once
// TensorMeta: what a node's output tensor is, as torch.export's TensorMeta records it (and
// FX's meta['val'] fake tensor): dtype, sizes, strides, storage offset, device, layout,
// requires_grad. Each field may be absent: a reader sets what its input says, a rewrite what
// it knows. Sizes, strides and the offset are ints or SymInts (Value).
//
// The memory format is not stored: torch.export does not record it either. memory_format()
// derives it from sizes and strides, as torch's is_contiguous(memory_format=...) would.
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "device.hpp"
#include "layout.hpp"
#include "scalar_type.hpp"
#include "value.hpp"

namespace ctmatch {

namespace detail {
/// The dense strides of `order` (dimensions from outermost to innermost) for static `sizes`;
/// nullopt when a size is symbolic.
inline std::optional<std::vector<std::int64_t>> dense_strides(const std::vector<Value>& sizes,
                                                              const std::vector<std::size_t>& order) {
  std::vector<std::int64_t> out(sizes.size(), 1);
  std::int64_t step = 1;
  for (std::size_t k = order.size(); k-- > 0;) {
    const std::int64_t* s = sizes[order[k]].get_if<std::int64_t>();
    if (!s) return std::nullopt;
    out[order[k]] = step;
    step *= *s > 1 ? *s : 1;
  }
  return out;
}

/// Whether the (static) strides equal `expected` where it matters: dimensions of size 1 may
/// have any stride, and a tensor with no elements is dense in every format (torch's rule).
inline bool strides_match(const std::vector<Value>& shape, const std::vector<Value>& strides,
                          const std::vector<std::int64_t>& expected) {
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (const std::int64_t* s = shape[i].get_if<std::int64_t>(); s && *s == 0) return true;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const std::int64_t* size = shape[i].get_if<std::int64_t>();
    if (*size != 1 && *strides[i].get_if<std::int64_t>() != expected[i]) return false;
  }
  return true;
}

}  // namespace detail

struct TensorMeta {
  std::optional<ScalarType> dtype;
  std::optional<std::vector<Value>> shape;
  std::optional<std::vector<Value>> strides;
  std::optional<Value> storage_offset;
  std::optional<Device> device;
  std::optional<Layout> layout;
  std::optional<bool> requires_grad;
  friend bool operator==(const TensorMeta&, const TensorMeta&) = default;

  /// Whether nothing is known.
  bool empty() const { return *this == TensorMeta{}; }

  /// A dtype and a shape, the rest unknown (a graph built in code, a rewrite's new node).
  static TensorMeta of(ScalarType dtype, std::vector<Value> shape) {
    TensorMeta m;
    m.dtype = dtype;
    m.shape = std::move(shape);
    return m;
  }

  /// Whether the tensor is dense in `format`: Contiguous (row-major), ChannelsLast (4-d,
  /// NHWC order), ChannelsLast3d (5-d, NDHWC). nullopt when sizes or strides are unknown or
  /// symbolic; false for Preserve, which is no arrangement.
  std::optional<bool> is_contiguous(MemoryFormat format = MemoryFormat::Contiguous) const {
    if (!shape || !strides || strides->size() != shape->size()) return std::nullopt;
    for (const Value& s : *strides)
      if (!s.get_if<std::int64_t>()) return std::nullopt;
    const std::size_t rank = shape->size();
    std::vector<std::size_t> order;
    switch (format) {
      case MemoryFormat::Contiguous:
        for (std::size_t i = 0; i < rank; ++i) order.push_back(i);
        break;
      case MemoryFormat::ChannelsLast:
      case MemoryFormat::ChannelsLast3d:
        if (rank != (format == MemoryFormat::ChannelsLast ? 4u : 5u)) return false;
        order.push_back(0);
        for (std::size_t i = 2; i < rank; ++i) order.push_back(i);
        order.push_back(1);
        break;
      case MemoryFormat::Preserve:
        return false;
    }
    auto expected = detail::dense_strides(*shape, order);
    if (!expected) return std::nullopt;
    return detail::strides_match(*shape, *strides, *expected);
  }

  /// The memory format the strides show: Contiguous when the tensor is row-major dense (which
  /// wins when both hold, e.g. one channel), else ChannelsLast/ChannelsLast3d when dense in
  /// that order. nullopt when unknown, symbolic, or neither (a transposed or sliced view).
  std::optional<MemoryFormat> memory_format() const {
    for (MemoryFormat f : {MemoryFormat::Contiguous, MemoryFormat::ChannelsLast, MemoryFormat::ChannelsLast3d})
      if (is_contiguous(f).value_or(false)) return f;
    return std::nullopt;
  }

  /// Inductor's is_gpu(device.type): CUDA, XPU, MPS (and HIP, which torch reports as cuda).
  bool on_gpu() const {
    return device && (device->type == DeviceType::CUDA || device->type == DeviceType::XPU ||
                      device->type == DeviceType::MPS || device->type == DeviceType::HIP);
  }
};

}  // namespace ctmatch
