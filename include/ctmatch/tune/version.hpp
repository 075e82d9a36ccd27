#pragma once
// The ctmatch version, as autotune cache keys record it (a cache written by another version is
// not trusted). Kept equal to the CMake project version.
#include <string_view>

namespace ctmatch::tune {
inline constexpr std::string_view ctmatch_version = "0.1.0";
}  // namespace ctmatch::tune
