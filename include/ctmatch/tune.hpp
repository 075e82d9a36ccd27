#pragma once
// ctmatch's tune layer: kernel templates with static uids, the heuristic registry,
// get_mm_configs with lazy choices, the constexpr GEMM config generator, the host::mm CPU
// template (instantiated for every reachable config: the heaviest header to compile), and the
// backend-neutral autotuner with its on-disk cache. Depends on the standard library only.
#include "tune/autotune/autotuner.hpp"
#include "tune/autotune/cache.hpp"
#include "tune/autotune/runner.hpp"
#include "tune/builtin_heuristics.hpp"
#include "tune/choices.hpp"
#include "tune/config_generator.hpp"
#include "tune/finalize_overrides.hpp"
#include "tune/gemm_config.hpp"
#include "tune/heuristic_registry.hpp"
#include "tune/host/mm_template.hpp"
#include "tune/kernel_template.hpp"
#include "tune/kernel_template_choice.hpp"
#include "tune/template_registry.hpp"
#include "tune/uids.hpp"
#include "version.hpp"
