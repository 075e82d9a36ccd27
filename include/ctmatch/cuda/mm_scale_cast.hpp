#pragma once
// seedlib::mm_scale_cast(Tensor a, Tensor b, *, ScalarType dtype, bool clamp=False,
// float scale=1.0): the fused op the rewrite produces from mm -> seedlib::scale_cast. The
// output dtype is a run-time kwarg, so each choice is instantiated for every output type the
// epilogue writes (f32, f16, bf16, float8_e4m3fn, float8_e5m2) and the kwarg picks one.
#include <string>

#include "../graph/scalar_type.hpp"
#include "../lower/gemm_problem.hpp"
#include "epilogue.hpp"
#include "mm_dispatch.hpp"

namespace ctmatch::cuda {

/// The epilogue's kwargs (dtype, clamp, scale): the lowering layer's description.
using ScaleCastArgs = lower::ScaleCast;

/// out: m x n, row stride n, of `args.dtype`. Throws for a dtype the kernels cannot write.
template <class In, const auto& Configs = mma_sync_configs, const auto& WConfigs = wgmma_configs>
void mm_scale_cast(const MmChoice& choice, MmWorkspace& ws, const MmOperands<In>& op, void* out,
                   const ScaleCastArgs& args, cudaStream_t stream) {
  const bool ok = visit_output_type(args.dtype, [&]<class Out>(Out) {
    epilogue::ScaleCast<Out> epi{static_cast<Out*>(out), op.n, static_cast<float>(args.scale),
                                 args.clamp};
    run_mm_choice<In, epilogue::ScaleCast<Out>, Configs, WConfigs>(choice, ws, op, epi, stream);
  });
  if (!ok)
    throw Error("seedlib::mm_scale_cast: output dtype " + std::string(torch_name(args.dtype)) +
                " is not one of float32, float16, bfloat16, float8_e4m3fn, float8_e5m2");
}

}  // namespace ctmatch::cuda
