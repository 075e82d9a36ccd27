#pragma once
// Every CUDA and cuBLAS call is checked: a failing call throws cuda::Error with the call's text,
// file and line, so that a kernel that did not run can never pass for one that did.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace ctmatch::cuda {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline void check(cudaError_t e, const char* what, const char* file, int line) {
  if (e != cudaSuccess)
    throw Error(std::string(file) + ":" + std::to_string(line) + ": " + what + ": " +
                cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

inline void check(cublasStatus_t s, const char* what, const char* file, int line) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw Error(std::string(file) + ":" + std::to_string(line) + ": " + what + ": " +
                cublasGetStatusName(s) + " (" + cublasGetStatusString(s) + ")");
}

}  // namespace ctmatch::cuda

/// Checks a cudaError_t or cublasStatus_t expression; throws ctmatch::cuda::Error on failure.
#define CTMATCH_CUDA_CHECK(expr) ::ctmatch::cuda::check((expr), #expr, __FILE__, __LINE__)
/// After a kernel launch: the launch itself can fail (bad configuration, too much shared memory).
#define CTMATCH_CUDA_CHECK_LAUNCH() CTMATCH_CUDA_CHECK(cudaGetLastError())
