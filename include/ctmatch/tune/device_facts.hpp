#pragma once
// Facts about the GPUs the tuner and the kernels target, in one place: the host-side config
// generator prunes by them and the CUDA plans check against them. Plain C++, no CUDA headers.
#include <cstdint>

namespace ctmatch::tune {

/// Opt-in dynamic shared memory per block on sm_90 (H100/H200): 227 KB.
inline constexpr std::int64_t sm90_shared_memory_bytes = 227 * 1024;
/// Streaming multiprocessors of an H100/H200 SXM.
inline constexpr int sm90_sm_count = 132;

}  // namespace ctmatch::tune
