#pragma once
// Reading a graph without saying its format: the content decides. torch.export JSON starts
// with `{`, FX text with `graph(` (leading white space and a UTF-8 byte order mark aside), and
// a .pt2 archive (zip) holds torch.export JSON (pt2.hpp).
#include <string>
#include <string_view>

#include "../files.hpp"
#include "error.hpp"
#include "export_json.hpp"
#include "fx_text.hpp"
#include "pt2.hpp"

namespace ctmatch::io {

enum class Format { FxText, ExportJson };

/// The format of `text`, or throws ParseError (at the first significant character) when it
/// is neither, and for an empty input.
inline Format detect_format(std::string_view text, const std::string& file) {
  std::size_t i = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") i = 3;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n')) ++i;
  if (i == text.size()) {
    auto [line, col] = line_column(text, i);
    throw ParseError(file, line, col, "empty input: expected a graph (FX text or torch.export JSON)");
  }
  if (text[i] == '{') return Format::ExportJson;
  if (text.substr(i, 6) == "graph(") return Format::FxText;
  auto [line, col] = line_column(text, i);
  throw ParseError(file, line, col, "unknown format: expected 'graph(' (FX text) or '{' (torch.export JSON)");
}

/// Reads a graph from FX text or torch.export JSON, whichever `text` holds, or from the
/// exported program in a .pt2 archive (errors inside it are named `FILE:ENTRY:LINE:COL`).
inline Graph read_graph(std::string_view text, std::string file = "<input>") {
  if (is_zip(text)) {
    GraphSource inner = exported_program_of_pt2(text, file);
    return read_graph(inner.text, std::move(inner.name));
  }
  return detect_format(text, file) == Format::ExportJson ? read_export_json(text, std::move(file))
                                                         : read_fx_text(text, std::move(file));
}

/// read_file (bounded: a file over the limit is refused) is ctmatch::read_file, files.hpp.
using ::ctmatch::read_file;

/// Reads the graph in the file at `path` (errors name the file as given; a large file is
/// mapped, not copied: read_file_text).
inline Graph read_graph_file(const std::string& path, std::size_t max_bytes = default_max_input_bytes) {
  return read_graph(read_file_text(path, max_bytes), path);
}

}  // namespace ctmatch::io
