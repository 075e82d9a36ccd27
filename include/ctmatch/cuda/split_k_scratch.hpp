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
  static std::map<std::pair<int, cudaStream_t>, Held>* held = new std::map<std::pair<int, cudaStream_t>, Held>();
  int device = 0;
  CTMATCH_CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(mutex);
  Held& h = (*held)[{device, stream}];
  if (h.partial_floats < partial_floats) {
    if (h.scratch.partials) CTMATCH_CUDA_CHECK(cudaFreeAsync(h.scratch.partials, stream));
    h.scratch.partials = nullptr;
    h.partial_floats = 0;
    CTMATCH_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&h.scratch.partials), partial_floats * sizeof(float), stream));
    h.partial_floats = partial_floats;
  }
  if (h.tickets < tickets) {
    if (h.scratch.tickets) CTMATCH_CUDA_CHECK(cudaFreeAsync(h.scratch.tickets, stream));
    h.scratch.tickets = nullptr;
    h.tickets = 0;
    CTMATCH_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&h.scratch.tickets), tickets * sizeof(unsigned), stream));
    CTMATCH_CUDA_CHECK(cudaMemsetAsync(h.scratch.tickets, 0, tickets * sizeof(unsigned), stream));
    h.tickets = tickets;
  }
  return h.scratch;
}

}  // namespace ctmatch::cuda
