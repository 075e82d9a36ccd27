#pragma once
// ctmatch: what a file of patterns and passes needs — the graph, op schemas, the pattern DSL
// and the rewrite drivers. The other layers are their own includes, so that a pattern file
// does not compile them (each costs seconds: benchmarks/include_compile_time.sh):
//   <ctmatch/io.hpp>    FX text, torch.export JSON and .pt2 readers and writers, DOT
//   <ctmatch/tune.hpp>  kernel templates, heuristics, the config generator, the autotuner
//   <ctmatch/cuda.hpp>  the CUDA kernels and the GPU side of the autotuner
#include "graph.hpp"
#include "pattern.hpp"
#include "rewrite.hpp"
#include "schema.hpp"
#include "version.hpp"
