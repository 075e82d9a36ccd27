#pragma once
// ctmatch's tune layer: kernel templates with static uids, the heuristic registry,
// get_mm_configs with lazy choices, the constexpr GEMM config generator, the host::mm CPU
// template (instantiated for every reachable config: the heaviest header to compile), and the
// backend-neutral autotuner with its on-disk cache. Depends on the standard library only.
#include <ctmatch/tune/autotune/autotuner.hpp>
#include <ctmatch/tune/autotune/cache.hpp>
#include <ctmatch/tune/autotune/runner.hpp>
#include <ctmatch/tune/builtin_heuristics.hpp>
#include <ctmatch/tune/choices.hpp>
#include <ctmatch/tune/config_generator.hpp>
#include <ctmatch/tune/finalize_overrides.hpp>
#include <ctmatch/tune/gemm_config.hpp>
#include <ctmatch/tune/heuristic_registry.hpp>
#include <ctmatch/tune/host/mm_template.hpp>
#include <ctmatch/tune/kernel_template.hpp>
#include <ctmatch/tune/kernel_template_choice.hpp>
#include <ctmatch/tune/template_registry.hpp>
#include <ctmatch/tune/uids.hpp>
#include <ctmatch/version.hpp>
