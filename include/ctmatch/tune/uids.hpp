#pragma once
// The uids of ctmatch's own kernel templates and extern choices, in one place. Backends name
// their templates with these (KernelTemplateBase<uids::cuda_mm>), heuristics register under them.
//   aten::*  extern library calls (cuBLAS on CUDA; a plain loop GEMM on the host)
//   cuda::*  ctmatch's CUDA kernel templates (include/ctmatch/cuda/)
//   host::*  ctmatch's CPU kernel templates (tune/host/), so that CI runs everything
#include "uid.hpp"

namespace ctmatch::tune::uids {

inline constexpr fixed_string aten_mm = "aten::mm";
inline constexpr fixed_string aten_addmm = "aten::addmm";
inline constexpr fixed_string aten_bias_addmm = "aten::bias_addmm";
inline constexpr fixed_string cuda_mm = "cuda::mm";
inline constexpr fixed_string cuda_mm_wgmma = "cuda::mm_wgmma";
inline constexpr fixed_string host_mm = "host::mm";

}  // namespace ctmatch::tune::uids
