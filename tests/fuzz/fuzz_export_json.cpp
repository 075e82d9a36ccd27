// libFuzzer target for the torch.export JSON reader and writer. Any input must either be
// rejected with ParseError (graph errors are reported as ParseError too) or give a graph that
// verifies, writes, reads back to a graph of the same nodes, and writes again to the same
// text; anything else (a crash, a sanitizer report, another exception, a round trip that
// differs) is a bug.
#include <ctmatch/graph/verify.hpp>
#include <ctmatch/io/export_json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ctmatch::Graph g;
  try {
    g = ctmatch::io::read_export_json(text, "fuzz");
  } catch (const ctmatch::io::ParseError&) {
    return 0;
  }
  ctmatch::verify(g);  // throws (and so aborts the fuzzer) if the reader built a bad graph
  std::string written = ctmatch::io::write_export_json(g);
  std::string again;
  try {
    ctmatch::Graph h = ctmatch::io::read_export_json(written, "written");
    if (h.size() != g.size()) {
      std::fprintf(stderr, "read back %zu nodes, wrote %zu\n", h.size(), g.size());
      std::abort();
    }
    again = ctmatch::io::write_export_json(h);
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
