#pragma once
// Boxed<T>: a T kept on the heap behind one pointer, allocated on first write, copied deeply.
// For what most nodes do not have (tensor metadata, annotations, a target): a node without them
// pays 8 bytes, not the hundreds the fields take, so that a large graph's node array stays small.
#include <memory>
#include <utility>

namespace ctmatch {

template <class T>
class Boxed {
 public:
  Boxed() = default;
  Boxed(const Boxed& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(const Boxed& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;

  /// The value, or nullptr when nothing was ever written.
  const T* get() const { return p_.get(); }
  /// The value for writing, made (value-initialized) on first use.
  T& edit() {
    if (!p_) p_ = std::make_unique<T>();
    return *p_;
  }

 private:
  std::unique_ptr<T> p_;
};

}  // namespace ctmatch
