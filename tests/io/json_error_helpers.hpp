#pragma once
// Helpers of the torch.export JSON error tests: what reading a document throws, the position
// of a byte as the reader reports it, and a document with one piece replaced.
#include <doctest/doctest.h>

#include <ctmatch/io/export_json.hpp>

#include <string>
#include <string_view>

namespace ctmatch::test {

/// What reading `text` throws, as `FILE:LINE:COL: error: ...` (FILE is `in.json`); "no error"
/// when it reads.
inline std::string error_of(std::string_view text) {
  try {
    io::read_export_json(text, "in.json");
  } catch (const io::ParseError& e) {
    return e.what();
  }
  return "no error";
}

/// `LINE:COL` of byte `offset` of `text`.
inline std::string pos(std::string_view text, std::size_t offset) {
  auto [line, col] = io::line_column(text, offset);
  return std::to_string(line) + ":" + std::to_string(col);
}

/// `s` with the first `what` replaced by `with` (which must be there).
inline std::string replace(std::string s, std::string_view what, std::string_view with) {
  auto at = s.find(what);
  REQUIRE(at != std::string::npos);
  return s.replace(at, what.size(), with);
}

}  // namespace ctmatch::test
