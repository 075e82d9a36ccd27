#pragma once
// Two finalize hooks (subclasses of Choices) that show what the hook is for. Both decide on
// the cheap KernelTemplateChoices, so the choices they drop are never generated.
//
// LookupTableChoices pins one config per problem: a table keyed by op, m, n, k, dtype and
// device gives a template uid and its kwargs; on a hit only that choice is kept, on a miss
// every choice is (Inductor's LookupTableChoices).
// TopKChoices ranks template choices with an analytic cost model and keeps the k cheapest
// (extern choices are always kept); the model is a virtual function, so it can be replaced.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "choices.hpp"
#include "device_facts.hpp"

namespace ctmatch::tune {

class LookupTableChoices : public Choices {
 public:
  struct Pin {
    std::string uid;
    Kwargs params;
  };
  using Choices::Choices;

  /// Key for one problem: `op:m,n,k:dtype:device`.
  static std::string problem_key(std::string_view op, const MMKernelInputs& in) {
    return std::string(op) + ":" + std::to_string(in.m()) + "," + std::to_string(in.n()) + "," +
           std::to_string(in.k()) + ":" + std::string(dtype_name(in.dtype())) + ":" + in.device_type();
  }
  void pin(std::string key, Pin pin) { table_[std::move(key)] = std::move(pin); }
  [[nodiscard]] std::size_t hits() const { return hits_; }

 protected:
  std::vector<KernelTemplateChoice> finalize_template_configs(std::vector<TemplateChoices>& template_choices,
                                                              const MMKernelInputs& kernel_inputs,
                                                              const TemplateStack& templates,
                                                              std::string_view op_name,
                                                              const KwargOverrides& kwarg_overrides) const override {
    auto it = table_.find(problem_key(op_name, kernel_inputs));
    if (it != table_.end())
      for (auto& tc : template_choices) {
        if (tc.uid() != it->second.uid) continue;
        for (auto& c : tc.choices)
          if (c.params() == it->second.params) {
            ++hits_;
            return {std::move(c)};
          }
      }
    return Choices::finalize_template_configs(template_choices, kernel_inputs, templates, op_name, kwarg_overrides);
  }

 private:
  std::map<std::string, Pin, std::less<>> table_;
  mutable std::size_t hits_ = 0;
};

/// A roofline estimate of one GEMM config's run time on a GPU-like device, in microseconds:
/// the output tiles run in waves over the SMs; each tile streams its A and B panels (K padded
/// to BLOCK_K) from memory and does 2*BM*BN*K flops, and takes the longer of the two; a
/// pipeline shallower than 2 stages cannot overlap them, so it pays both.
struct AnalyticGemmModel {
  int num_sms = sm90_sm_count;       // H100/H200 SXM
  double flops_per_sm_us = 7.5e6;    // ~990 dense bf16 TFLOP/s over 132 SMs
  double bytes_per_sm_us = 36'000.;  // ~4.8 TB/s HBM over 132 SMs

  [[nodiscard]] double cost_us(const GemmConfig& c, std::int64_t m, std::int64_t n, std::int64_t k, int dtype_bytes) const {
    const auto ceil_div = [](std::int64_t a, std::int64_t b) { return (a + b - 1) / b; };
    const std::int64_t tiles = ceil_div(m, c.block_m) * ceil_div(n, c.block_n);
    const std::int64_t waves = ceil_div(tiles, num_sms);
    const double k_padded = static_cast<double>(ceil_div(k, c.block_k) * c.block_k);
    // A tile with fewer warps than its 16x16 subtiles issues proportionally slower.
    const double subtiles = c.block_m * c.block_n / 256.0;
    const double issue = std::max(1.0, subtiles / (4.0 * std::max(1, c.num_warps)));
    const double compute = 2.0 * c.block_m * c.block_n * k_padded / flops_per_sm_us * issue;
    const double memory = (c.block_m + c.block_n) * k_padded * dtype_bytes / bytes_per_sm_us;
    const double tile = c.num_stages >= 2 ? std::max(compute, memory) : compute + memory;
    return static_cast<double>(waves) * tile;
  }
};

class TopKChoices : public Choices {
 public:
  TopKChoices(std::size_t k, TuneOptions options = {}, const HeuristicRegistry& registry = default_heuristic_registry())
      : Choices(options, registry), k_(k) {}

  /// Estimated cost of one template choice (lower is better). Replace for another model.
  [[nodiscard]] virtual double cost(const KernelTemplateChoice& c) const {
    const auto cfg = c.config();
    if (!cfg) return 0.0;
    const MMKernelInputs& in = c.inputs();
    return model_.cost_us(*cfg, in.m(), in.n(), in.k(), dtype_size(in.dtype()));
  }

 protected:
  std::vector<KernelTemplateChoice> finalize_template_configs(std::vector<TemplateChoices>& template_choices,
                                                              const MMKernelInputs&, const TemplateStack&,
                                                              std::string_view, const KwargOverrides&) const override {
    std::vector<KernelTemplateChoice> externs;
    std::vector<std::pair<double, KernelTemplateChoice>> ranked;
    for (auto& tc : template_choices)
      for (auto& c : tc.choices) {
        if (tc.kernel_template->is_extern()) externs.push_back(std::move(c));
        else ranked.emplace_back(cost(c), std::move(c));
      }
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<KernelTemplateChoice> out = std::move(externs);
    for (std::size_t i = 0; i < ranked.size() && i < k_; ++i) out.push_back(std::move(ranked[i].second));
    return out;
  }

 private:
  std::size_t k_;
  AnalyticGemmModel model_;
};

}  // namespace ctmatch::tune
