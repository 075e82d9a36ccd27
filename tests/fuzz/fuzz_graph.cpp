// libFuzzer target: every input (FX text or torch.export JSON, told apart by content; seeded
// with the graphs of tests/data) goes through the whole tool in process — readers, writers,
// both drivers with both rule sets — with fuzz::check_input's promises.
#include <cstdint>
#include <string_view>

#include "pipeline.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::check_input(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
