#pragma once
// HugePageAllocator: std::allocator, except that a block of 2 MiB or more starts on a 2 MiB
// boundary and is marked, where the system has them, for transparent huge pages
// (madvise(MADV_HUGEPAGE): a hint, ignored where huge pages are off or always on).
//
// Why: a pass over a large graph reads nodes in order, but a rewrite reaches across it (a
// weight's placeholder sits at the start, new nodes at the end, the name index anywhere). With
// 4 KiB pages each such access misses the TLB too, and a page walk costs about as much as the
// cache miss itself; with 2 MiB pages the TLB covers gigabytes. The graph keeps its node arena,
// its op array and its name index in such blocks.
#include <cstddef>
#include <cstdlib>
#include <limits>
#include <memory>
#include <new>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace ctmatch {

template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr std::size_t huge_page = std::size_t{2} << 20;

  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T) - huge_page) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    if (bytes < huge_page) return std::allocator<T>().allocate(n);
    const std::size_t rounded = (bytes + huge_page - 1) / huge_page * huge_page;
    void* p = std::aligned_alloc(huge_page, rounded);
    if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    ::madvise(p, rounded, MADV_HUGEPAGE);
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < huge_page) std::allocator<T>().deallocate(p, n);
    else std::free(p);
  }

  friend bool operator==(const HugePageAllocator&, const HugePageAllocator&) { return true; }
};

}  // namespace ctmatch
