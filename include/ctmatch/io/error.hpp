#pragma once
// ParseError: malformed input, with where it is. what() reads `FILE:LINE:COL: error: MESSAGE`,
// the form compilers use, so editors can jump to it.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "../graph/graph.hpp"

namespace ctmatch::io {

class ParseError : public std::runtime_error {
 public:
  ParseError(std::string file, std::size_t line, std::size_t column, std::string message)
      : std::runtime_error(file + ":" + std::to_string(line) + ":" + std::to_string(column) +
                           ": error: " + message),
        file_(std::move(file)), line_(line), column_(column), message_(std::move(message)) {}

  const std::string& file() const { return file_; }
  std::size_t line() const { return line_; }      // 1-based
  std::size_t column() const { return column_; }  // 1-based, in bytes
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  std::size_t line_, column_;
  std::string message_;
};

/// A graph that a writer cannot put in its format, because of one node: what() says what, and
/// node() which (no_node when it is the graph as a whole). Where the graph was read from a
/// file, Graph::source_offsets gives the node's place in it (describe_at writes the message
/// `FILE:LINE:COL: error: ...` from it).
class WriteError : public std::invalid_argument {
 public:
  WriteError(NodeId node, const std::string& message) : std::invalid_argument(message), node_(node) {}
  NodeId node() const { return node_; }

 private:
  NodeId node_;
};

/// Line and column (1-based) of byte `offset` in `text`.
inline std::pair<std::size_t, std::size_t> line_column(std::string_view text, std::size_t offset) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

/// The message of a WriteError about a graph read from `text` (named `file`): at the node's
/// place in the text when the graph recorded it, else `FILE: error: ...`.
inline std::string describe_at(const WriteError& e, const Graph& g, std::string_view text, const std::string& file) {
  if (e.node() != no_node && e.node() < g.source_offsets.size()) {
    auto [line, col] = line_column(text, g.source_offsets[e.node()]);
    return file + ":" + std::to_string(line) + ":" + std::to_string(col) + ": error: " + e.what();
  }
  return file + ": error: " + e.what();
}

}  // namespace ctmatch::io
