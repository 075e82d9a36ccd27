#pragma once
// HeapArray<T>: an array whose length is set when it is made, kept on the heap behind one
// pointer with the length in front of the elements: 8 bytes in the object where a std::vector
// takes 24, and nothing allocated when empty. For a node's kwargs, which are replaced whole
// (Graph::set_args) and never grow: most nodes have none, and the node array stays small.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace ctmatch {

template <class T>
class HeapArray {
  static_assert(std::is_nothrow_move_constructible_v<T>);
  // The length, padded so that the elements that follow it are aligned.
  static constexpr std::size_t header = std::max(sizeof(std::size_t), alignof(T));
  static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);

 public:
  HeapArray() noexcept = default;
  /// Takes v's elements (v is left empty).
  HeapArray(std::vector<T>&& v) {
    if (v.empty()) return;
    allocate(v.size());
    T* d = data();
    for (std::size_t i = 0; i < v.size(); ++i) ::new (d + i) T(std::move(v[i]));
    v.clear();
  }
  HeapArray(std::span<const T> s) {
    if (s.empty()) return;
    allocate(s.size());
    std::size_t made = 0;
    try {
      for (; made < s.size(); ++made) ::new (data() + made) T(s[made]);
    } catch (...) {
      destroy_first(made);
      throw;
    }
  }
  HeapArray(const HeapArray& o) : HeapArray(std::span<const T>(o)) {}
  HeapArray(HeapArray&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  HeapArray& operator=(const HeapArray& o) {
    if (this != &o) *this = HeapArray(o);
    return *this;
  }
  HeapArray& operator=(HeapArray&& o) noexcept {
    if (this != &o) {
      destroy_first(size());
      p_ = std::exchange(o.p_, nullptr);
    }
    return *this;
  }
  ~HeapArray() { destroy_first(size()); }

  std::size_t size() const noexcept {
    std::size_t n = 0;
    if (p_) std::memcpy(&n, p_, sizeof n);
    return n;
  }
  bool empty() const noexcept { return !p_; }
  T* data() noexcept { return p_ ? reinterpret_cast<T*>(p_ + header) : nullptr; }
  const T* data() const noexcept { return p_ ? reinterpret_cast<const T*>(p_ + header) : nullptr; }
  T& operator[](std::size_t i) { return data()[i]; }
  const T& operator[](std::size_t i) const { return data()[i]; }
  T* begin() noexcept { return data(); }
  T* end() noexcept { return data() + size(); }
  const T* begin() const noexcept { return data(); }
  const T* end() const noexcept { return data() + size(); }
  operator std::span<const T>() const noexcept { return {data(), size()}; }
  /// A std::vector with copies of the elements.
  std::vector<T> to_vector() const { return {begin(), end()}; }

  friend bool operator==(const HeapArray& a, const HeapArray& b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }

 private:
  void allocate(std::size_t n) {
    if (n > (SIZE_MAX - header) / sizeof(T)) throw std::bad_array_new_length();
    p_ = static_cast<unsigned char*>(::operator new(header + n * sizeof(T)));
    std::memcpy(p_, &n, sizeof n);
  }
  /// Destroys the first n elements and frees the block (n is all of them, or those made
  /// before a copy threw).
  void destroy_first(std::size_t n) noexcept {
    if (!p_) return;
    for (std::size_t i = 0; i < n; ++i) data()[i].~T();
    ::operator delete(p_);
    p_ = nullptr;
  }

  unsigned char* p_ = nullptr;
};

}  // namespace ctmatch
