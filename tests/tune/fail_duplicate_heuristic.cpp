// Must not compile: two heuristics registered statically under one (uid, device, op) key.
#include <ctmatch/tune/builtin_heuristics.hpp>

using namespace ctmatch::tune;

using Twice = StaticHeuristics<HeuristicRegistration<"cuda::mm", "cuda", any, MmTemplateHeuristic>,
                               HeuristicRegistration<"host::mm", "host", any, MmTemplateHeuristic>,
                               HeuristicRegistration<"cuda::mm", "cuda", any, WgmmaTemplateHeuristic>>;
const auto& keys = Twice::keys;
