#pragma once
// What every reader's fuzz target checks once an input was accepted: the graph verifies, and
// write -> read -> write gives a graph of the same size and the same text. Any failure aborts
// (libFuzzer records the input).
#include <ctmatch/graph/verify.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

template <class Read, class Write>
void check_round_trip(const ctmatch::Graph& g, Read read, Write write) {
  ctmatch::verify(g);  // throws (and so aborts the fuzzer) if the reader built a bad graph
  const std::string written = write(g);
  std::string again;
  try {
    const ctmatch::Graph h = read(written, "written");
    if (h.size() != g.size()) {
      std::fprintf(stderr, "read back %zu nodes, wrote %zu\n", h.size(), g.size());
      std::abort();
    }
    again = write(h);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "the written graph does not read back: %s\n---\n%s\n", e.what(), written.c_str());
    std::abort();
  }
  if (again != written) {
    std::fprintf(stderr, "write -> read -> write differs:\n---\n%s\n---\n%s\n", written.c_str(), again.c_str());
    std::abort();
  }
}
