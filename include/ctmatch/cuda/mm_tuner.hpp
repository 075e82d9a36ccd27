#pragma once
// The autotuned GEMM of a lower::GemmProblem on the current GPU: tune::get_mm_configs offers
// the choices of the three templates (cuBLAS + epilogue, cuda::mm, cuda::mm_wgmma) with the
// CUDA heuristics, the tune::Autotuner times them with the CUDA runner (or its on-disk cache
// answers), and the winner is remembered per problem for the life of the tuner. What comes
// back is typed: the winning MmChoice (uid + GemmConfig) that run_mm_choice / mm_scale_cast
// launch on any stream, plus the timing report. One tuner serves the seed example, the torch
// op and ctmatch-tune.
#include <boost/mp11/list.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../lower/gemm_problem.hpp"
#include "../tune/autotune/autotuner.hpp"
#include "../tune/choices.hpp"
#include "../tune/options.hpp"
#include "tune_backend.hpp"

namespace ctmatch::cuda {

/// The typed choice a caller made by the tuner stands for.
inline MmChoice mm_choice_of(const tune::ChoiceCaller& c) {
  const auto cfg = tune::gemm_config_of(c.kwargs());
  return MmChoice{c.uid() == aten_mm_uid ? aten_mm_uid : c.uid() == cuda_mm_uid ? cuda_mm_uid : cuda_mm_wgmma_uid,
                  cfg.value_or(tune::GemmConfig{})};
}

/// `Inputs`: the operand types the templates are instantiated for (each one is a kernel per
/// config and output type: nvcc time).
template <class Inputs = boost::mp11::mp_list<bf16>>
class MmTuner {
 public:
  struct Tuned {
    MmChoice choice;                                           // what to launch
    tune::AutotuneResult result;                               // the autotuner's report
    std::vector<std::shared_ptr<tune::ChoiceCaller>> callers;  // what was offered, in order
  };

  explicit MmTuner(tune::AutotuneCache* cache = nullptr, tune::AutotuneSettings settings = {3, 10},
                   tune::TuneOptions options = tune::TuneOptions::sm90(true))
      : options_(options), tuner_(runner_, cache, settings) {}

  /// The winner for `p` (tuned on the first call for its sizes, strides, dtypes and epilogue).
  /// Throws when nothing can run it.
  const Tuned& tune(const lower::GemmProblem& p) {
    const std::string key = problem_key(p);
    if (auto it = tuned_.find(key); it != tuned_.end()) return it->second;
    const tune::TemplateStack stack{&aten_, &template_, &wgmma_template_};
    Tuned t;
    tune::Choices choices(options_, cuda_heuristic_registry());
    t.callers = tune::make_choices(choices.get_mm_configs(p.inputs, stack, lower::heuristic_op(p)));
    if (t.callers.empty()) throw Error("no GPU choice can run " + key);
    t.result = tuner_.tune(p.op, p.inputs, t.callers);
    t.choice = mm_choice_of(*t.result.winner);
    return tuned_.emplace(key, std::move(t)).first->second;
  }

  /// How many problems were tuned (not answered from memory) by this tuner.
  [[nodiscard]] std::size_t problems() const { return tuned_.size(); }

 private:
  // Appends only: g++ 12 warns (-Wrestrict, falsely) on `"literal" + std::string&&`.
  static std::string problem_key(const lower::GemmProblem& p) {
    std::string k = p.op;
    k += " out=";
    k += tune::dtype_name(p.inputs.out_dtype());
    for (const auto& t : p.inputs.nodes()) {
      k += ' ';
      k += tune::dtype_name(t.dtype);
      for (auto s : t.sizes) (k += ',') += std::to_string(s);
      k += ':';
      for (auto s : t.strides) (k += ',') += std::to_string(s);
    }
    return k;
  }

  tune::TuneOptions options_;
  CublasMmExtern<scale_cast_outputs, Inputs> aten_;
  CudaMmTemplate<mma_sync_configs, scale_cast_outputs, Inputs> template_;
  CudaMmWgmmaTemplate<wgmma_configs, scale_cast_outputs, Inputs> wgmma_template_;
  CudaRunner runner_;
  tune::Autotuner tuner_;
  std::map<std::string, Tuned> tuned_;
};

}  // namespace ctmatch::cuda
