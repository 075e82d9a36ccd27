#pragma once
// SmallVector<T, N>: a vector of trivially copyable elements that keeps up to N of them inline
// and goes to the heap beyond. A node's users and its schema-binding index are almost always a
// handful of entries: inline storage spares the graph an allocation per node and per rewrite,
// and keeps them next to the node in memory. It is no larger than a std::vector when N * sizeof(T)
// is at most 16 bytes (the inline elements share their storage with the heap pointer).
#include <cassert>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>

namespace ctmatch {

template <class T, std::uint32_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>, "SmallVector holds trivially copyable elements");
  static_assert(N > 0);

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  SmallVector() = default;
  SmallVector(const SmallVector& o) {
    if (o.is_inline()) {  // the inline storage as a whole: a fixed-size copy, no memcpy call
      store_ = o.store_;
      size_ = o.size_;
    } else {
      assign(o.data(), o.size_);
    }
  }
  SmallVector(SmallVector&& o) noexcept { steal(o); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) {
      size_ = 0;
      assign(o.data(), o.size_);
    }
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      release();
      steal(o);
    }
    return *this;
  }
  ~SmallVector() { release(); }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::size_t capacity() const { return cap_; }
  /// Whether the elements live inline (no heap storage).
  bool is_inline() const { return cap_ == N; }

  T* data() { return is_inline() ? store_.inline_ : store_.heap_; }
  const T* data() const { return is_inline() ? store_.inline_ : store_.heap_; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& operator[](std::size_t i) { return data()[i]; }
  const T& operator[](std::size_t i) const { return data()[i]; }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }

  void clear() { size_ = 0; }
  void reserve(std::size_t n) {
    if (n > cap_) grow(n);
  }
  void push_back(const T& v) {
    if (size_ == cap_) {
      T copy = v;  // v may live in this vector
      grow(std::size_t{cap_} * 2);
      data()[size_++] = copy;
      return;
    }
    data()[size_++] = v;
  }
  void pop_back() {
    assert(size_ > 0);
    --size_;
  }
  /// Resizes to n elements; new elements are `fill`.
  void resize(std::size_t n, const T& fill = T{}) {
    reserve(n);
    T* d = data();
    for (std::size_t i = size_; i < n; ++i) d[i] = fill;
    size_ = static_cast<std::uint32_t>(n);
  }
  /// Inserts v before position i (i <= size()).
  void insert_at(std::size_t i, const T& v) {
    assert(i <= size_);
    T copy = v;
    if (size_ == cap_) grow(std::size_t{cap_} * 2);
    T* d = data();
    std::memmove(d + i + 1, d + i, (size_ - i) * sizeof(T));
    d[i] = copy;
    ++size_;
  }
  /// Removes the element at position i, keeping the order of the others.
  void erase_at(std::size_t i) {
    assert(i < size_);
    T* d = data();
    for (std::size_t j = i + 1; j < size_; ++j) d[j - 1] = d[j];  // a few elements: no memmove call
    --size_;
  }

  /// Replaces the elements with the n at src.
  void assign(const T* src, std::size_t n) {
    reserve(n);
    if (n) std::memcpy(data(), src, n * sizeof(T));
    size_ = static_cast<std::uint32_t>(n);
  }

  friend bool operator==(const SmallVector& a, const SmallVector& b) {
    if (a.size_ != b.size_) return false;
    const T* x = a.data();
    const T* y = b.data();
    for (std::uint32_t i = 0; i < a.size_; ++i)
      if (!(x[i] == y[i])) return false;
    return true;
  }

 private:
  void grow(std::size_t want) {
    std::size_t cap = want < 2 * std::size_t{N} ? 2 * std::size_t{N} : want;
    T* mem = static_cast<T*>(::operator new(cap * sizeof(T)));
    if (size_) std::memcpy(mem, data(), size_ * sizeof(T));
    release();
    store_.heap_ = mem;
    cap_ = static_cast<std::uint32_t>(cap);
  }
  void release() {
    if (!is_inline()) ::operator delete(store_.heap_);
    cap_ = N;
  }
  void steal(SmallVector& o) {
    size_ = o.size_;
    cap_ = o.cap_;
    store_ = o.store_;  // the inline elements, or the heap pointer
    o.cap_ = N;
    o.size_ = 0;
  }

  union Store {
    T inline_[N];
    T* heap_;
  } store_{};
  std::uint32_t size_ = 0;
  std::uint32_t cap_ = N;
};

}  // namespace ctmatch
