#pragma once
// Scratch of launches that split K (cuda::mm_wgmma with split_k > 1): the slices' fp32 partial
// tiles and one ticket per tile. Kept per (device, stream) and grown in stream order
// (cudaMallocAsync / cudaFreeAsync), never shrunk: a launch costs no allocation once the
// stream has seen a problem as large. The tickets are zeroed when allocated and every launch
// leaves them at zero (the block that sums a tile resets its ticket), so launches on one stream
// reuse them without a memset; two streams never share them, since their kernels may overlap.
#include <cuda_runtime.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <utility>

#include "error.hpp"

namespace ctmatch::cuda {

struct SplitKScratch {
  float* partials = nullptr;
  unsigned* tickets = nullptr;
};

/// At least `partial_floats` partial floats and `tickets` zeroed tickets for launches on
/// `stream` of the current device, ready in stream order.
inline SplitKScratch split_k_scratch(cudaStream_t stream, std::size_t partial_floats, std::size_t tickets) {
  struct Held {
    SplitKScratch scratch;
    std::size_t partial_floats = 0, tickets = 0;
  };
  static std::mutex mutex;
  static auto* held = new std::map<std::pair<int, cudaStream_t>, Held>();  // never destroyed: CUDA may be gone at exit
  int device = 0;
  CTMATCH_CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(mutex);
  Held& h = (*held)[{device, stream}];
  // Replaces `buffer` (holding `have` elements) by one of `need`, freed and allocated in stream order.
  auto grow = [&](auto*& buffer, std::size_t& have, std::size_t need) {
    if (have >= need) return false;
    if (buffer) CTMATCH_CUDA_CHECK(cudaFreeAsync(buffer, stream));
    buffer = nullptr;
    have = 0;
    CTMATCH_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&buffer), need * sizeof(*buffer), stream));
    have = need;
    return true;
  };
  grow(h.scratch.partials, h.partial_floats, partial_floats);
  if (grow(h.scratch.tickets, h.tickets, tickets))
    CTMATCH_CUDA_CHECK(cudaMemsetAsync(h.scratch.tickets, 0, tickets * sizeof(unsigned), stream));
  return h.scratch;
}

}  // namespace ctmatch::cuda
