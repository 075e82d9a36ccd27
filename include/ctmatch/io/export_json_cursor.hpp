#pragma once
// The JSON cursor of the torch.export reader (export_json_reader.hpp): one document parsed
// with simdjson's On-Demand API, which points into the text at every value, so each error
// names the line and column of the offending token; typed access that fails with a position
// and the expected type; the canonical text of values kept verbatim for the writer. Nesting
// deeper than max_depth levels is an error (On-Demand itself does not limit it; the reader's
// only unbounded recursion counts levels).
#include <simdjson.h>

#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../graph/node.hpp"
#include "error.hpp"
#include "export_json_format.hpp"

namespace ctmatch::io::export_json::detail {

namespace od = simdjson::ondemand;

/// Offset of the first byte of `text` that is not valid UTF-8 (text.size() when all are).
inline std::size_t first_invalid_utf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  std::size_t n = text.size(), i = 0;
  while (i < n) {
    unsigned c = s[i];
    if (c < 0x80) { ++i; continue; }
    std::size_t len = 0;
    unsigned min = 0, cp = 0;
    if ((c & 0xE0) == 0xC0) { len = 2; min = 0x80; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { len = 3; min = 0x800; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { len = 4; min = 0x10000; cp = c & 0x07; }
    else return i;
    if (i + len > n) return i;
    for (std::size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += len;
  }
  return n;
}

/// Offset of the first control character inside a JSON string (text.size() when none).
inline std::size_t first_control_in_string(std::string_view text) {
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (!in_string) {
      in_string = c == '"';
    } else if (escaped) {
      escaped = false;
    } else if (c == '\\') {
      escaped = true;
    } else if (c == '"') {
      in_string = false;
    } else if (c < 0x20) {
      return i;
    }
  }
  return text.size();
}

/// The deepest nesting read (torch's documents nest about 10 levels).
inline constexpr std::size_t max_depth = 1024;
class JsonCursor {
 public:
  JsonCursor(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {}

 protected:
  /// Parses a padded copy of the text and makes doc_ the document.
  void open() {
    // simdjson reads up to SIMDJSON_PADDING bytes past the end: parse a padded copy, in a
    // buffer that each thread keeps (no fresh pages, no page faults, on the next document).
    std::vector<char>& buf = thread_buffer();
    if (buf.size() < text_.size() + simdjson::SIMDJSON_PADDING) buf.resize(text_.size() + simdjson::SIMDJSON_PADDING);
    std::memcpy(buf.data(), text_.data(), text_.size());
    std::memset(buf.data() + text_.size(), 0, simdjson::SIMDJSON_PADDING);
    base_ = buf.data();
    if (text_.find_first_not_of(" \t\r\n") == std::string_view::npos)
      fail(base_ + text_.size(), "expected a JSON object (the exported_program document), found an empty file");
    od::parser& parser = thread_parser();
    auto doc_r = parser.iterate(simdjson::padded_string_view(base_, text_.size(), buf.size()));
    if (doc_r.error()) fail_json(doc_r.error(), nullptr, "the document");
    doc_ = std::move(doc_r.value_unsafe());
    doc_ready_ = true;
  }

  // ---------------------------------------------------------------- errors and positions
  [[noreturn]] void fail(const char* at, const std::string& message) const {
    std::size_t off = text_.size();
    if (at && at >= base_ && at <= base_ + text_.size()) off = static_cast<std::size_t>(at - base_);
    auto [line, col] = line_column(text_, off);
    throw ParseError(file_, line, col, message);
  }
  /// Where the On-Demand iterator is (the end of the text when it has run off).
  const char* here() {
    if (!doc_ready_) return base_ + text_.size();
    auto r = doc_.current_location();
    return r.error() ? base_ + text_.size() : r.value_unsafe();
  }
  [[noreturn]] void fail_json(simdjson::error_code e, const char* at, std::string_view what) {
    using simdjson::error_code;
    switch (e) {
      case error_code::UTF8_ERROR:
        fail(base_ + first_invalid_utf8(text_), "invalid UTF-8");
      case error_code::UNCLOSED_STRING:
        fail(base_ + text_.size(), "unterminated string: the text ends inside a string");
      case error_code::UNESCAPED_CHARS:
        fail(base_ + first_control_in_string(text_), "a string holds an unescaped control character");
      case error_code::DEPTH_ERROR:
        fail(at ? at : here(), "JSON nested deeper than " + std::to_string(max_depth) + " levels");
      case error_code::NUMBER_OUT_OF_RANGE:
        fail(at ? at : here(), "number out of range in " + std::string(what));
      case error_code::INCOMPLETE_ARRAY_OR_OBJECT:
        fail(base_ + text_.size(), "the text ends inside an array or object");
      case error_code::EMPTY:
        fail(base_, "expected a JSON object (the exported_program document), found an empty file");
      default: break;
    }
    const char* where = at ? at : here();
    if (where >= base_ + text_.size())
      fail(where, "unexpected end of the text in " + std::string(what));
    fail(where, "malformed JSON in " + std::string(what) + " (" + simdjson::error_message(e) + ")");
  }
  template <class T>
  T take(simdjson::simdjson_result<T>&& r, const char* at, std::string_view what) {
    if (r.error()) fail_json(r.error(), at, what);
    return std::move(r.value_unsafe());
  }
  static const char* token_start(od::value& v) { return v.raw_json_token().data(); }
  /// The characters of a number token (raw_json_token may run on into whitespace).
  static std::string_view number_token(od::value& v) {
    std::string_view tok = v.raw_json_token();
    std::size_t len = 0;
    while (len < tok.size() && ((tok[len] >= '0' && tok[len] <= '9') || tok[len] == '-' || tok[len] == '+' ||
                                tok[len] == '.' || tok[len] == 'e' || tok[len] == 'E'))
      ++len;
    return tok.substr(0, len);
  }

  static std::vector<char>& thread_buffer() {
    static thread_local std::vector<char> buffer;
    return buffer;
  }
  static od::parser& thread_parser() {
    // One parser per thread, reused: it keeps its buffers between documents. Its depth
    // bound must exceed the reader's (canonical() counts from a field at most 16 levels
    // down): simdjson checks it only in debug builds, by assertion.
    static thread_local od::parser parser = [] {
      od::parser p;
      if (p.allocate(1 << 16, max_depth + 16) != simdjson::SUCCESS) throw std::bad_alloc();
      return p;
    }();
    return parser;
  }

  // ---------------------------------------------------------------- typed access
  std::string_view type_name(od::value& v) {
    auto t = v.type();
    if (t.error()) return "malformed JSON";
    switch (t.value_unsafe()) {
      case od::json_type::array: return "an array";
      case od::json_type::object: return "an object";
      case od::json_type::number: return "a number";
      case od::json_type::string: return "a string";
      case od::json_type::boolean: return "a boolean";
      case od::json_type::null: return "null";
    }
    return "a value";
  }
  bool is_type(od::value& v, od::json_type want) {
    auto t = v.type();
    return !t.error() && t.value_unsafe() == want;
  }
  [[noreturn]] void fail_type(od::value& v, const char* at, std::string_view expected, std::string_view what) {
    auto t = v.type();
    std::string found(type_name(v));
    if (t.error()) {  // not a JSON value at all: show the start of what is there
      std::string_view tok = v.raw_json_token().substr(0, 20);
      tok = tok.substr(0, std::min(tok.size(), tok.find_first_of(" \t\r\n")));
      found = "invalid JSON '" + std::string(tok) + "'";
    }
    fail(at, "expected " + std::string(expected) + " for " + std::string(what) + ", found " + found);
  }
  od::object object_of_doc() {
    auto t = doc_.type();
    if (t.error()) fail_json(t.error(), base_, "the document");
    if (t.value_unsafe() != od::json_type::object)
      fail(here(), "expected a JSON object (the exported_program document)");
    return take(doc_.get_object(), nullptr, "the document");
  }
  od::object object(od::value& v, std::string_view what) {
    const char* at = token_start(v);
    if (!is_type(v, od::json_type::object)) fail_type(v, at, "an object", what);
    return take(v.get_object(), at, what);
  }
  od::array array(od::value& v, std::string_view what) {
    const char* at = token_start(v);
    if (!is_type(v, od::json_type::array)) fail_type(v, at, "an array", what);
    return take(v.get_array(), at, what);
  }
  std::string_view string(od::value& v, std::string_view what) {
    const char* at = token_start(v);
    if (!is_type(v, od::json_type::string)) fail_type(v, at, "a string", what);
    return take(v.get_string(), at, what);
  }
  /// Checks that `v` is a string whose escapes and characters are valid JSON, without
  /// unescaping it (stage 1 already checked its UTF-8 and its end).
  void raw_string(od::value& v, std::string_view what) {
    const char* at = token_start(v);
    if (!is_type(v, od::json_type::string)) fail_type(v, at, "a string", what);
    const char* p = take(v.get_raw_json_string(), at, what).raw();
    for (;; ++p) {
      unsigned char c = static_cast<unsigned char>(*p);
      if (c == '"') return;
      if (c < 0x20) fail(p, "a string holds an unescaped control character");
      if (c != '\\') continue;
      c = static_cast<unsigned char>(*++p);
      if (c == 'u') {
        for (int k = 0; k < 4; ++k)
          if (!std::isxdigit(static_cast<unsigned char>(*++p))) fail(p, "invalid \\u escape in a string");
      } else if (std::string_view("\"\\/bfnrt").find(static_cast<char>(c)) == std::string_view::npos) {
        fail(p - 1, "invalid escape in a string");
      }
    }
  }
  bool boolean(od::value& v, std::string_view what) {
    const char* at = token_start(v);
    if (!is_type(v, od::json_type::boolean)) fail_type(v, at, "true or false", what);
    return take(v.get_bool(), at, what);
  }
  std::int64_t integer(od::value& v, std::string_view what) {
    const char* at = token_start(v);
    if (!is_type(v, od::json_type::number)) fail_type(v, at, "an integer", what);
    std::string_view tok = number_token(v);
    if (tok.find_first_of(".eE") != std::string_view::npos)
      fail(at, "expected an integer for " + std::string(what) + ", found " + std::string(tok));
    auto r = v.get_int64();
    if (r.error()) {
      if (r.error() == simdjson::NUMBER_OUT_OF_RANGE ||
          r.error() == simdjson::INCORRECT_TYPE)
        fail(at, "integer " + std::string(tok) + " out of range (64-bit) for " + std::string(what));
      fail_json(r.error(), at, what);
    }
    return r.value_unsafe();
  }
  /// A float: a JSON number, or a non-finite one in either spelling found in the wild.
  /// torch's serializer writes them as the strings "Infinity", "-Infinity", "NaN" (its
  /// deserializer reads them back with float()); Python's json.dumps writes the same words
  /// bare, which is not JSON but is accepted too. Any other string is an error.
  double floating(od::value& v, std::string_view what) {
    const char* at = token_start(v);
    std::string_view tok = v.raw_json_token();
    auto word = [&](std::string_view w) {
      return tok.substr(0, w.size()) == w &&
             (tok.size() == w.size() || std::string_view(" \t\r\n,]}").find(tok[w.size()]) != std::string_view::npos);
    };
    if (word("NaN")) return std::numeric_limits<double>::quiet_NaN();
    if (word("Infinity")) return std::numeric_limits<double>::infinity();
    if (word("-Infinity")) return -std::numeric_limits<double>::infinity();
    if (is_type(v, od::json_type::string)) {
      std::string_view s = take(v.get_string(), at, what);
      if (std::optional<double> d = non_finite_float(s)) return *d;
      std::size_t keep = std::min<std::size_t>(s.size(), 40);  // cut at a UTF-8 character boundary
      while (keep < s.size() && keep > 0 && (static_cast<unsigned char>(s[keep]) & 0xC0) == 0x80) --keep;
      std::string shown;
      append_json_string(shown, s.substr(0, keep));
      if (keep < s.size()) shown.insert(shown.size() - 1, "...");
      fail(at, "expected a number for " + std::string(what) + ", found the string " + shown +
                   " (the only strings a float may be are \"Infinity\", \"-Infinity\" and \"NaN\")");
    }
    if (!is_type(v, od::json_type::number)) fail_type(v, at, "a number", what);
    return take(v.get_double(), at, what);
  }

  template <class F>
  void for_fields(od::object& obj, F&& f) {
    for (auto field_r : obj) {
      if (field_r.error() == simdjson::TAPE_ERROR)
        fail(here(), "malformed object: expected a field (\"key\": value), ',' or '}'");
      od::field field = take(std::move(field_r), nullptr, "an object");
      const char* key_at = field.key().raw() - 1;
      std::string_view key = take(field.unescaped_key(), key_at, "an object key");
      f(key, key_at, field.value());
    }
  }
  template <class F>
  void for_items(od::array& arr, std::string_view what, F&& f) {
    std::size_t i = 0;
    for (auto item_r : arr) {
      if (item_r.error() == simdjson::TAPE_ERROR) fail(here(), "malformed array: expected a value, ',' or ']'");
      od::value item = take(std::move(item_r), nullptr, what);
      f(i++, item);
    }
  }

  // ---------------------------------------------------------------- canonical JSON text
  /// Appends `v` as canonical JSON text (validating every part of it). On-Demand does not
  /// limit nesting, so this recursion does: `depth` levels at most.
  void canonical(od::value& v, std::string& out, std::string_view what, std::size_t depth = 0) {
    const char* at = token_start(v);
    if (depth >= max_depth) fail(at, "JSON nested deeper than " + std::to_string(max_depth) + " levels");
    auto t = v.type();
    if (t.error()) fail_json(t.error(), at, what);
    switch (t.value_unsafe()) {
      case od::json_type::object: {
        od::object o = take(v.get_object(), at, what);
        out += '{';
        bool first = true;
        for_fields(o, [&](std::string_view key, const char*, od::value x) {
          if (!first) out += ", ";
          first = false;
          append_json_string(out, key);
          out += ": ";
          canonical(x, out, what, depth + 1);
        });
        out += '}';
        break;
      }
      case od::json_type::array: {
        od::array a = take(v.get_array(), at, what);
        out += '[';
        for_items(a, what, [&](std::size_t i, od::value x) {
          if (i) out += ", ";
          canonical(x, out, what, depth + 1);
        });
        out += ']';
        break;
      }
      case od::json_type::string: append_json_string(out, take(v.get_string(), at, what)); break;
      case od::json_type::number: {
        std::string_view tok = number_token(v);
        take(v.get_double(), at, what);  // validates the number's syntax
        out += tok;
        break;
      }
      case od::json_type::boolean: out += take(v.get_bool(), at, what) ? "true" : "false"; break;
      case od::json_type::null:
        if (!take(v.is_null(), at, what)) fail(at, "malformed JSON in " + std::string(what));
        out += "null";
        break;
    }
  }
  std::string canonical(od::value& v, std::string_view what) {
    std::string s;
    canonical(v, s, what);
    return s;
  }
  void keep(std::vector<Annotation>& to, std::string key, od::value& v, const char* key_at) {
    for (const Annotation& a : to)
      if (a.key == key) fail(key_at, "duplicate field '" + key.substr(key.find_first_of(":@") + 1) + "'");
    std::string text = canonical(v, key);
    to.push_back(Annotation{std::move(key), std::move(text)});
  }

  std::string_view text_;
  std::string file_;
  const char* base_ = nullptr;
  od::document doc_;
  bool doc_ready_ = false;  // doc_ holds a document (iterate succeeded)
};

}  // namespace ctmatch::io::export_json::detail
