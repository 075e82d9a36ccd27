#pragma once
// Reading a graph without saying its format: the content decides. torch.export JSON starts
// with `{`, FX text with `graph(` (leading white space and a UTF-8 byte order mark aside).
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "error.hpp"
#include "export_json.hpp"
#include "fx_text.hpp"

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

/// Reads a graph from FX text or torch.export JSON, whichever `text` holds.
inline Graph read_graph(std::string_view text, std::string file = "<input>") {
  return detect_format(text, file) == Format::ExportJson ? read_export_json(text, std::move(file))
                                                         : read_fx_text(text, std::move(file));
}

/// The whole content of a file; throws std::runtime_error when it cannot be read.
inline std::string read_file(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw std::runtime_error(path + ": error: cannot open file");
  std::string text;
  char buf[1 << 16];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) text.append(buf, n);
  if (std::ferror(f.get())) throw std::runtime_error(path + ": error: cannot read file");
  return text;
}

/// Reads the graph in the file at `path` (errors name the file as given).
inline Graph read_graph_file(const std::string& path) { return read_graph(read_file(path), path); }

}  // namespace ctmatch::io
