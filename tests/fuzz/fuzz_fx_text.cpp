// libFuzzer target for the FX text reader. Any input must either be rejected with ParseError
// (or GraphError) or give a graph that passes check_round_trip; anything else (a crash, a
// sanitizer report, another exception, a round trip that differs) is a bug.
#include <ctmatch/io/fx_text.hpp>

#include <cstdint>
#include <string_view>

#include "round_trip.hpp"

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
  check_round_trip(
      g, [](std::string_view t, const char* name) { return ctmatch::io::read_fx_text(t, name); },
      [](const ctmatch::Graph& x) { return ctmatch::io::write_fx_text(x); });
  return 0;
}
