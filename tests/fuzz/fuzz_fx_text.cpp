// libFuzzer target for the FX text reader. Any input must either be rejected with ParseError
// (or GraphError) or give a graph that verifies and survives write -> read -> write unchanged;
// anything else (a crash, a sanitizer report, another exception, a round trip that differs)
// is a bug.
#include <ctmatch/graph/verify.hpp>
#include <ctmatch/io/fx_text.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ctmatch::Graph g;
  try {
    g = ctmatch::io::read_fx_text(text, "fuzz");
  } catch (const ctmatch::io::ParseError&) {
    return 0;
  } catch (const ctmatch::GraphError&) {
    return 0;
  }
  ctmatch::verify(g);  // throws (and so aborts the fuzzer) if the reader built a bad graph
  std::string written = ctmatch::io::write_fx_text(g);
  std::string again;
  try {
    again = ctmatch::io::write_fx_text(ctmatch::io::read_fx_text(written, "written"));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "the written graph does not read back: %s\n---\n%s\n", e.what(), written.c_str());
    std::abort();
  }
  if (again != written) {
    std::fprintf(stderr, "write -> read -> write differs:\n---\n%s\n---\n%s\n", written.c_str(), again.c_str());
    std::abort();
  }
  return 0;
}
