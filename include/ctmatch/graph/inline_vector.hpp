#pragma once
// InlineVector<T, N>: a vector that keeps up to N elements inside itself and goes to the heap
// beyond, for element types that move without throwing (SmallVector is its cheaper sibling for
// trivially copyable ones). A node's arguments are this: almost every op takes at most four, so
// creating a node, or copying a graph, allocates nothing for them, and a pass that reads a
// node's arguments finds them in the node's own cache lines, not in a block elsewhere.
#include <algorithm>
#include <cassert>
#include <cstdint>
#include <initializer_list>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace ctmatch {

template <class T, std::uint32_t N>
class InlineVector {
  static_assert(std::is_nothrow_move_constructible_v<T>, "InlineVector moves its elements without throwing");
  static_assert(N > 0);
  static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  InlineVector() noexcept {}
  /// `n` value-initialized elements.
  explicit InlineVector(std::size_t n) {
    reserve(n);
    for (; size_ < n; ++size_) ::new (data() + size_) T();
  }
  InlineVector(std::initializer_list<T> items) { append_copies(items.begin(), items.size()); }
  // From a std::vector, implicitly: an API that takes an InlineVector takes a vector too.
  InlineVector(const std::vector<T>& v) { append_copies(v.data(), v.size()); }
  InlineVector(std::vector<T>&& v) {
    reserve(v.size());
    for (T& x : v) ::new (data() + size_++) T(std::move(x));
    v.clear();
  }
  InlineVector(const InlineVector& o) { append_copies(o.data(), o.size_); }
  InlineVector(InlineVector&& o) noexcept { take(o); }
  InlineVector& operator=(const InlineVector& o) {
    if (this != &o) {
      InlineVector copy(o);
      *this = std::move(copy);
    }
    return *this;
  }
  InlineVector& operator=(InlineVector&& o) noexcept {
    if (this != &o) {
      destroy();
      take(o);
    }
    return *this;
  }
  ~InlineVector() { destroy(); }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::size_t capacity() const { return cap_; }
  /// Whether the elements live inside the vector (no heap block).
  bool is_inline() const { return cap_ == N; }

  T* data() { return data_; }
  const T* data() const { return data_; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& operator[](std::size_t i) { return data()[i]; }
  const T& operator[](std::size_t i) const { return data()[i]; }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }

  void reserve(std::size_t n) {
    if (n > cap_) grow(n);
  }
  template <class... A>
  T& emplace_back(A&&... a) {
    if (size_ == cap_) {
      T made(std::forward<A>(a)...);  // the arguments may refer to elements of this vector
      grow(std::size_t{cap_} * 2);
      return *::new (data() + size_++) T(std::move(made));
    }
    return *::new (data() + size_++) T(std::forward<A>(a)...);
  }
  void push_back(const T& v) { emplace_back(v); }
  void push_back(T&& v) { emplace_back(std::move(v)); }
  void pop_back() {
    assert(size_ > 0);
    data()[--size_].~T();
  }
  void clear() {
    T* d = data();
    for (std::uint32_t i = 0; i < size_; ++i) d[i].~T();
    size_ = 0;
  }

  friend bool operator==(const InlineVector& a, const InlineVector& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  // Where inline elements go (they are made there with placement new and reached through
  // data_, as in std::vector's own storage).
  T* inline_data() { return reinterpret_cast<T*>(inline_); }
  const T* inline_data() const { return reinterpret_cast<const T*>(inline_); }

  void append_copies(const T* src, std::size_t n) {
    reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      ::new (data() + size_) T(src[i]);
      ++size_;  // counted once made: a copy that throws leaves the vector destructible
    }
  }
  void grow(std::size_t want) {
    std::size_t cap = std::max(want, 2 * std::size_t{N});
    T* mem = static_cast<T*>(::operator new(cap * sizeof(T)));
    T* old = data();
    for (std::uint32_t i = 0; i < size_; ++i) {
      ::new (mem + i) T(std::move(old[i]));
      old[i].~T();
    }
    if (!is_inline()) ::operator delete(data_);
    data_ = mem;
    cap_ = static_cast<std::uint32_t>(cap);
  }
  void destroy() noexcept {
    clear();
    if (!is_inline()) ::operator delete(data_);
    data_ = inline_data();
    cap_ = N;
  }
  /// Takes o's elements (its heap block, or its inline elements moved one by one); o is left
  /// empty. *this holds nothing when called.
  void take(InlineVector& o) noexcept {
    if (o.is_inline()) {
      T* src = o.data_;
      for (std::uint32_t i = 0; i < o.size_; ++i) {
        ::new (data_ + i) T(std::move(src[i]));
        src[i].~T();
      }
    } else {
      data_ = o.data_;
      cap_ = o.cap_;
      o.data_ = o.inline_data();
      o.cap_ = N;
    }
    size_ = o.size_;
    o.size_ = 0;
  }

  // The elements are at data_: inline_ or a heap block. Keeping the pointer (as std::vector
  // and LLVM's SmallVector do) makes reading an element one load, with no test of where they
  // are; moving the vector resets it.
  T* data_ = inline_data();
  std::uint32_t size_ = 0;
  std::uint32_t cap_ = N;
  alignas(T) unsigned char inline_[N * sizeof(T)];
};

}  // namespace ctmatch
