#pragma once
// The value types a slot can bind, and which schema types each can hold.
//
// `slot<"name", T>` binds one argument as a T. T is one of
//   DType (= ScalarType), bool, std::int64_t, double, std::string_view, Device, Layout,
//   MemoryFormat,                       -- the value itself
//   IntList, FloatList, TensorList      -- views over the node's list (no allocation)
//   Value                               -- any value, bound as `const Value&`
//   std::optional<T> of any of these    -- also matches None (bound as nullopt)
// A runtime value of another kind than T does not match (an int does not match a double slot,
// None does not match a DType slot). At compile time a slot whose T cannot hold the schema's
// type is an error (`slot<"dtype", bool>` on a `ScalarType?` argument).
//
// Schema types are carried through templates as a small integer code (type_code) so that every
// element can check itself against the argument it is written at.
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "../graph/value.hpp"
#include "../schema/function_schema.hpp"

namespace ctmatch::pattern {

using DType = ScalarType;

// ---- schema type codes -------------------------------------------------------------------
namespace detail {
using schema::BaseType;
inline constexpr std::uint32_t code_list = 32, code_optional = 64, code_elem_optional = 128;

constexpr std::uint32_t type_code(const schema::Type& t) {
  return static_cast<std::uint32_t>(t.base) | (t.list ? code_list : 0) |
         (t.optional ? code_optional : 0) | (t.elem_optional ? code_elem_optional : 0);
}
/// The code of a position whose schema type is unknown (accepts every element).
inline constexpr std::uint32_t any_code = static_cast<std::uint32_t>(BaseType::Any);

constexpr BaseType base_of(std::uint32_t c) { return static_cast<BaseType>(c & 31u); }
constexpr bool is_list_code(std::uint32_t c) { return (c & code_list) != 0; }
constexpr bool is_any_code(std::uint32_t c) { return base_of(c) == BaseType::Any && !is_list_code(c); }
/// The code of one element of a list type (Any when the type is not a list).
constexpr std::uint32_t elem_code(std::uint32_t c) {
  if (!is_list_code(c)) return any_code;
  return static_cast<std::uint32_t>(base_of(c)) | ((c & code_elem_optional) ? code_optional : 0);
}
/// A single Tensor position: placeholders there bind a NodeId.
constexpr bool is_tensor_code(std::uint32_t c) {
  return base_of(c) == BaseType::Tensor && !is_list_code(c);
}
constexpr bool is_scalar_base(BaseType b) {
  return b == BaseType::Int || b == BaseType::SymInt || b == BaseType::Float ||
         b == BaseType::Bool || b == BaseType::Scalar;
}
}  // namespace detail

// ---- list views ----------------------------------------------------------------------------
/// A read-only view over a list argument of the matched node, read as T (std::int64_t,
/// double or NodeId). Binding it allocates nothing; it stays valid while the node's arguments
/// are not changed. to_vector() copies.
template <class T>
class ListView {
 public:
  ListView() = default;
  explicit ListView(std::span<const Value> items) : items_(items) {}

  std::size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  T operator[](std::size_t i) const { return read(items_[i]); }
  std::span<const Value> values() const { return items_; }
  std::vector<T> to_vector() const { return std::vector<T>(begin(), end()); }

  class iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = T;
    iterator() = default;
    explicit iterator(const Value* p) : p_(p) {}
    T operator*() const { return read(*p_); }
    iterator& operator++() { ++p_; return *this; }
    iterator operator++(int) { iterator t = *this; ++p_; return t; }
    difference_type operator-(const iterator& o) const { return p_ - o.p_; }
    bool operator==(const iterator& o) const { return p_ == o.p_; }
   private:
    const Value* p_ = nullptr;
  };
  iterator begin() const { return iterator(items_.data()); }
  iterator end() const { return iterator(items_.data() + items_.size()); }

  /// Whether every element of `items` has T's kind (what a slot checks before binding).
  static bool accepts(std::span<const Value> items) {
    for (const Value& v : items)
      if (!holds(v)) return false;
    return true;
  }
  friend bool operator==(const ListView& a, const ListView& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i]) return false;
    return true;
  }

 private:
  static bool holds(const Value& v) {
    if constexpr (std::is_same_v<T, NodeId>) return v.is_node();
    else return v.is<T>();
  }
  static T read(const Value& v) {
    if constexpr (std::is_same_v<T, NodeId>) return v.node();
    else return *v.get_if<T>();
  }
  std::span<const Value> items_;
};

using IntList = ListView<std::int64_t>;  // int[], SymInt[] whose elements are all concrete
using FloatList = ListView<double>;      // float[]
using TensorList = ListView<NodeId>;     // Tensor[]: the nodes, e.g. cat's operands

/// How a `Value` slot and a value placeholder are stored: a pointer, compared by value.
struct ValueRef {
  const Value* p = nullptr;
  friend bool operator==(const ValueRef& a, const ValueRef& b) {
    return a.p == b.p || (a.p && b.p && *a.p == *b.p);
  }
};

// ---- slot_traits ---------------------------------------------------------------------------
/// For each supported slot type T: how a Value is read as T (read returns false when the
/// value has another kind), how it is stored in the bindings, how get<> returns it, and which
/// schema types it fits.
template <class T>
struct slot_traits {
  static constexpr bool supported = false;
};

namespace detail {
/// Slots whose Value alternative is T itself.
template <class T, BaseType... Accepted>
struct exact_kind_traits {
  static constexpr bool supported = true;
  using stored = T;
  static bool read(const Value& v, stored& out) {
    if (const T* p = v.get_if<T>()) {
      out = *p;
      return true;
    }
    return false;
  }
  static const stored& get(const stored& s) { return s; }
  static constexpr bool fits(std::uint32_t c) {
    if (is_any_code(c)) return true;
    if (is_list_code(c)) return false;
    BaseType b = base_of(c);
    // A Tensor parameter may be given a Python number (`mul.Tensor(x, 0.125)`).
    if (b == BaseType::Tensor) return std::is_arithmetic_v<T>;
    return ((b == Accepted) || ...);
  }
};
template <class T, BaseType... Accepted>
struct list_traits {
  static constexpr bool supported = true;
  using stored = ListView<T>;
  static bool read(const Value& v, stored& out) {
    const std::vector<Value>* items = v.items();
    if (!items || !stored::accepts(*items)) return false;
    out = stored(*items);
    return true;
  }
  static const stored& get(const stored& s) { return s; }
  static constexpr bool fits(std::uint32_t c) {
    if (is_any_code(c)) return true;
    if (!is_list_code(c)) return false;
    return ((base_of(c) == Accepted) || ...);
  }
};
}  // namespace detail

template <>
struct slot_traits<bool>
    : detail::exact_kind_traits<bool, detail::BaseType::Bool, detail::BaseType::SymBool, detail::BaseType::Scalar> {};
template <>
struct slot_traits<std::int64_t>
    : detail::exact_kind_traits<std::int64_t, detail::BaseType::Int, detail::BaseType::SymInt,
                                detail::BaseType::Scalar> {};
template <>
struct slot_traits<double>
    : detail::exact_kind_traits<double, detail::BaseType::Float, detail::BaseType::SymFloat,
                                detail::BaseType::Scalar> {};
template <>
struct slot_traits<ScalarType> : detail::exact_kind_traits<ScalarType, detail::BaseType::ScalarType> {};
template <>
struct slot_traits<Device> : detail::exact_kind_traits<Device, detail::BaseType::Device> {};
template <>
struct slot_traits<Layout> : detail::exact_kind_traits<Layout, detail::BaseType::Layout> {};
template <>
struct slot_traits<MemoryFormat> : detail::exact_kind_traits<MemoryFormat, detail::BaseType::MemoryFormat> {};

template <>
struct slot_traits<std::string_view> {
  static constexpr bool supported = true;
  using stored = std::string_view;  // a view into the node's string: no allocation
  static bool read(const Value& v, stored& out) {
    if (const std::string* p = v.get_if<std::string>()) {
      out = *p;
      return true;
    }
    return false;
  }
  static const stored& get(const stored& s) { return s; }
  static constexpr bool fits(std::uint32_t c) {
    return detail::is_any_code(c) ||
           (!detail::is_list_code(c) && detail::base_of(c) == detail::BaseType::Str);
  }
};

template <>
struct slot_traits<IntList> : detail::list_traits<std::int64_t, detail::BaseType::Int, detail::BaseType::SymInt> {};
template <>
struct slot_traits<FloatList> : detail::list_traits<double, detail::BaseType::Float, detail::BaseType::SymFloat> {};
template <>
struct slot_traits<TensorList> : detail::list_traits<NodeId, detail::BaseType::Tensor> {};

template <>
struct slot_traits<Value> {
  static constexpr bool supported = true;
  using stored = ValueRef;
  static bool read(const Value& v, stored& out) {
    out = ValueRef{&v};
    return true;
  }
  static const Value& get(const stored& s) { return *s.p; }
  static constexpr bool fits(std::uint32_t) { return true; }
};

template <class T>
struct slot_traits<std::optional<T>> {
  static constexpr bool supported = slot_traits<T>::supported && !std::is_same_v<T, Value>;
  using stored = std::optional<typename slot_traits<T>::stored>;
  static bool read(const Value& v, stored& out) {
    if (v.is_none()) {
      out.reset();
      return true;
    }
    typename slot_traits<T>::stored inner{};
    if (!slot_traits<T>::read(v, inner)) return false;
    out = inner;
    return true;
  }
  static const stored& get(const stored& s) { return s; }
  static constexpr bool fits(std::uint32_t c) { return slot_traits<T>::fits(c & ~detail::code_optional); }
};

/// A short name of a slot type, for explanations.
template <class T>
constexpr std::string_view slot_type_name() {
  if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int";
  else if constexpr (std::is_same_v<T, double>) return "float";
  else if constexpr (std::is_same_v<T, ScalarType>) return "ScalarType";
  else if constexpr (std::is_same_v<T, Device>) return "Device";
  else if constexpr (std::is_same_v<T, Layout>) return "Layout";
  else if constexpr (std::is_same_v<T, MemoryFormat>) return "MemoryFormat";
  else if constexpr (std::is_same_v<T, std::string_view>) return "str";
  else if constexpr (std::is_same_v<T, IntList>) return "int[]";
  else if constexpr (std::is_same_v<T, FloatList>) return "float[]";
  else if constexpr (std::is_same_v<T, TensorList>) return "Tensor[]";
  else if constexpr (std::is_same_v<T, Value>) return "any value";
  else return "optional";
}

}  // namespace ctmatch::pattern
