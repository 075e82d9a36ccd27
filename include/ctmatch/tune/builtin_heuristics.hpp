#pragma once
// ctmatch's built-in heuristic registrations, as one static list (so a duplicate key among them
// does not compile), and the process-wide default registry built from it. User code may add
// its own heuristics to default_heuristic_registry() or build a registry of its own.
#include "heuristic_registry.hpp"
#include "heuristics/aten.hpp"
#include "heuristics/gemm.hpp"
#include "uids.hpp"

namespace ctmatch::tune {

using BuiltinHeuristics = StaticHeuristics<
    // extern choices: valid on every device (Inductor registers them with device None)
    HeuristicRegistration<uids::aten_mm, any, any, AtenHeuristic>,
    HeuristicRegistration<uids::aten_addmm, any, "addmm", AtenAddmmHeuristic>,
    HeuristicRegistration<uids::aten_bias_addmm, any, "addmm", AtenBiasAddmmHeuristic>,
    // ctmatch's CUDA templates (kernels in include/ctmatch/cuda/; listing needs no GPU)
    HeuristicRegistration<uids::cuda_mm, "cuda", any, MmTemplateHeuristic>,
    HeuristicRegistration<uids::cuda_mm, "cuda", "addmm", AddmmMmTemplateHeuristic>,
    HeuristicRegistration<uids::cuda_mm_wgmma, "cuda", any, WgmmaTemplateHeuristic>,
    HeuristicRegistration<uids::cuda_mm_wgmma, "cuda", "addmm", AddmmWgmmaTemplateHeuristic>,
    // ctmatch's CPU template: the same configs as cuda::mm, so CI exercises them all
    HeuristicRegistration<uids::host_mm, "host", any, MmTemplateHeuristic>,
    HeuristicRegistration<uids::host_mm, "host", "addmm", AddmmMmTemplateHeuristic>>;

/// The registry get_mm_configs uses unless given another: the built-ins, installed once.
inline HeuristicRegistry& default_heuristic_registry() { return BuiltinHeuristics::registry(); }

}  // namespace ctmatch::tune
