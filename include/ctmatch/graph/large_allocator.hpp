#pragma once
// LargeAllocator: std::allocator for small arrays; an array of 2 MiB or more is placed on a
// 2 MiB boundary and, on Linux, offered to the kernel as transparent huge pages.
//
// Why: a graph of a million nodes keeps hundreds of MB in a few arrays (the nodes, the name
// index's slots). In 4 KiB pages, filling them takes a page fault per 4 KiB, and each probe of
// the name index, which hashing spreads at random, misses the TLB. Page faults are slow (on a
// virtual machine, some 10 µs each: 600 MB of fresh 4 KiB pages took 1.6-2.1 s to touch where
// 2 MiB pages took 0.06-0.12 s), and they were the larger part of reading a 2M-node graph.
// Where the kernel has no huge page to give, or is configured never to, nothing changes.
//
// On Linux such an array is mapped on its own (mmap) and unmapped when freed. From the C
// library's heap (aligned_alloc), arrays of up to 32 MB stayed behind when freed: huge pages
// inside the heap are not given back, and a process reading one 1M-node graph after another
// grew by some 20-35 MB a graph.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace ctmatch {

inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;

/// Offers the whole 2 MiB pages inside [p, p + bytes) to the kernel as transparent huge pages
/// (Linux; elsewhere, or when refused, nothing changes). For a large buffer that some other
/// allocator placed, e.g. a std::string that a file is read into.
inline void advise_huge_pages([[maybe_unused]] void* p, [[maybe_unused]] std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) / huge_page_bytes * huge_page_bytes;
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // advice only
#endif
}

template <class T>
struct LargeAllocator {
  using value_type = T;
  static constexpr std::size_t huge_page = huge_page_bytes;

  LargeAllocator() = default;
  template <class U>
  constexpr LargeAllocator(const LargeAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > (std::size_t(-1) - 2 * huge_page) / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    if (bytes < huge_page) return std::allocator<T>().allocate(n);
    const std::size_t rounded = round_up(bytes);
#if defined(__linux__)
    // Map a huge page more than needed, then unmap what lies outside the aligned range.
    void* m = ::mmap(nullptr, rounded + huge_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) throw std::bad_alloc();
    const auto raw = reinterpret_cast<std::uintptr_t>(m);
    const std::uintptr_t begin = round_up(raw);
    if (begin > raw) ::munmap(m, begin - raw);
    ::munmap(reinterpret_cast<void*>(begin + rounded), raw + huge_page - begin);  // begin < raw + huge_page
    void* p = reinterpret_cast<void*>(begin);
#else
    void* p = std::aligned_alloc(huge_page, rounded);
    if (!p) throw std::bad_alloc();
#endif
    advise_huge_pages(p, rounded);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < huge_page) return std::allocator<T>().deallocate(p, n);
#if defined(__linux__)
    ::munmap(p, round_up(n * sizeof(T)));
#else
    std::free(p);
#endif
  }

  template <class U>
  friend constexpr bool operator==(const LargeAllocator&, const LargeAllocator<U>&) noexcept { return true; }

 private:
  static constexpr std::size_t round_up(std::size_t x) { return (x + huge_page - 1) / huge_page * huge_page; }
};

/// A vector whose large buffers take huge pages (see LargeAllocator).
template <class T>
using LargeVector = std::vector<T, LargeAllocator<T>>;

}  // namespace ctmatch
