// libFuzzer target for the torch.export JSON reader and writer. Any input must either be
// rejected with ParseError (graph errors are reported as ParseError too) or give a graph that
// passes check_round_trip; anything else (a crash, a sanitizer report, another exception, a
// round trip that differs) is a bug.
#include <ctmatch/io/export_json.hpp>

#include <cstdint>
#include <string_view>

#include "round_trip.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ctmatch::Graph g;
  try {
    g = ctmatch::io::read_export_json(text, "fuzz");
  } catch (const ctmatch::io::ParseError&) {
    return 0;
  }
  check_round_trip(
      g, [](std::string_view t, const char* name) { return ctmatch::io::read_export_json(t, name); },
      [](const ctmatch::Graph& x) { return ctmatch::io::write_export_json(x); });
  return 0;
}
