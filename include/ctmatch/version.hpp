#pragma once
// The ctmatch version: its one source. CMake's project() reads the three numbers from here, and
// caches that must not be trusted across versions (the autotuner's) record `ctmatch::version`.
#include <string_view>

#define CTMATCH_VERSION_MAJOR 0
#define CTMATCH_VERSION_MINOR 1
#define CTMATCH_VERSION_PATCH 0

#define CTMATCH_STRINGIZE_(x) #x
#define CTMATCH_STRINGIZE(x) CTMATCH_STRINGIZE_(x)

namespace ctmatch {
inline constexpr std::string_view version = CTMATCH_STRINGIZE(CTMATCH_VERSION_MAJOR) "." CTMATCH_STRINGIZE(
    CTMATCH_VERSION_MINOR) "." CTMATCH_STRINGIZE(CTMATCH_VERSION_PATCH);
}  // namespace ctmatch
