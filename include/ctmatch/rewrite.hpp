#pragma once
// The rewrite layer: rules, replacements, rule sets and the pass drivers.
//   rewrite/rule.hpp      the rule concept the drivers run (and how to write one by hand)
//   rewrite/builder.hpp   how a replacement creates nodes
//   rewrite/safety.hpp    the checks every rewrite passes (mutation regions, shared interiors)
//   rewrite/apply.hpp     one rewrite at one node, all or nothing
//   rewrite/rule_set.hpp  compile-time rule sets and the dispatch table by root op
//   rewrite/sweep.hpp     the Inductor-compatible single reverse sweep
//   rewrite/fixpoint.hpp  the worklist driver, run to a fixed point with a cap
//   rewrite/explain.hpp   why each rule does or does not match at a node
//   rewrite/stats.hpp     per-rule statistics and the op histogram
//   rewrite/replacement.hpp      declarative replacements, forward_kwargs
//   rewrite/pattern_rule.hpp     rewrite<"name">(pattern, replacement or callback)
#include "rewrite/apply.hpp"
#include "rewrite/builder.hpp"
#include "rewrite/explain.hpp"
#include "rewrite/fixpoint.hpp"
#include "rewrite/pattern_rule.hpp"
#include "rewrite/replacement.hpp"
#include "rewrite/rule.hpp"
#include "rewrite/rule_set.hpp"
#include "rewrite/run_pass.hpp"
#include "rewrite/safety.hpp"
#include "rewrite/stats.hpp"
#include "rewrite/sweep.hpp"
