#pragma once
// The two drivers by name, as a command line or a Python call gives them: "sweep" (one pass,
// last node first, as Inductor's PatternMatcherPass) or "fixpoint" (until nothing applies).
#include <stdexcept>
#include <string>
#include <string_view>

#include "fixpoint.hpp"
#include "sweep.hpp"

namespace ctmatch {

/// Throws std::invalid_argument unless `mode` names a driver.
inline void check_mode(std::string_view mode) {
  if (mode != "sweep" && mode != "fixpoint")
    throw std::invalid_argument("unknown mode '" + std::string(mode) + "' (expected sweep or fixpoint)");
}

/// Runs `set` on g with the driver called `mode`.
template <class Set>
PassStats run_pass(Graph& g, const Set& set, std::string_view mode, const PassOptions& options = {}) {
  check_mode(mode);
  return mode == "fixpoint" ? fixpoint(g, set, options) : sweep(g, set, options);
}

}  // namespace ctmatch
