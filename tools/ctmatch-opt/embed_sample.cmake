# cmake -DINPUT=file -DOUTPUT=header -DNAME=name -P embed_sample.cmake
# Writes a header that holds the content of INPUT as a raw string literal.
file(READ ${INPUT} content)
set(delim "ctmatch_sample")
string(FIND "${content}" ")${delim}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter )${delim}\"")
endif()
file(WRITE ${OUTPUT}.tmp
"#pragma once
// Generated from ${NAME} by embed_sample.cmake: the graph ctmatch-opt runs on without arguments.
#include <string_view>
namespace ctmatch_opt {
inline constexpr std::string_view embedded_sample_name = \"${NAME}\";
inline constexpr std::string_view embedded_sample = R\"${delim}(${content})${delim}\";
}  // namespace ctmatch_opt
")
configure_file(${OUTPUT}.tmp ${OUTPUT} COPYONLY)  # rewrites only when the text changed
file(REMOVE ${OUTPUT}.tmp)
