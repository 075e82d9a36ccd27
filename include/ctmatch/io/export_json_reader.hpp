#pragma once
// read_export_json: torch.export's serialized ExportedProgram (the `exported_program` JSON
// document of torch/_export/serde/serialize.py) into a Graph.
//
// - Graph inputs become placeholders, nodes become call_function nodes (target
//   `torch.ops.aten.mm.default` -> op `aten.mm.default`), graph outputs the output node.
// - Named inputs: `kind` 1 is positional, 2 keyword (missing `kind`: torch's old rule,
//   positional unless the schema gives a default or makes it keyword-only). Every serde
//   Argument tag that has a Value is read; `as_graph`, `as_custom_obj`, `as_complex`,
//   `as_nested_tensors`, `as_string_to_argument` are reported as unsupported. A float may be
//   torch's string "Infinity", "-Infinity" or "NaN" (or Python's bare token of that name).
// - The format folds `operator.getitem` into the outputs of a multi-output node; they are
//   recreated right after it, named as listed, as torch's deserializer does
//   (deserialize_multiple_outputs / generate_getitem). Outputs the serializer named
//   `NODE_unused_I` are not recreated: nothing uses them, and FX does not have them.
// - tensor_values give Node::meta (dtype, sizes); their other fields, node metadata and every
//   field not modelled are kept as JSON text in annotations (export_json_format.hpp), so
//   write_export_json can give torch back everything it read.
//
// Parsing uses simdjson's On-Demand API, which points into the text at every value, so each
// error names the line and column of the offending token (benchmarks/RESULTS.md has the
// comparison with Boost.JSON that led to this). Nesting deeper than 1024 levels is an error
// (On-Demand itself does not limit it; the reader's only unbounded recursion counts levels).
// Errors throw ParseError; the graph is never returned half-built.
#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../graph/graph.hpp"
#include "../schema/builtin.hpp"
#include "../schema/value_fits.hpp"
#include "error.hpp"
#include "export_json_format.hpp"
#include "fx_syntax.hpp"
#include "serde_enums.hpp"

namespace ctmatch::io {

namespace export_json::detail {

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

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
struct StringEq {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const noexcept { return a == b; }
};

/// A use of a name inside an argument, resolved once every node is known. Until then the
/// argument holds NodeRef{name index}.
struct RefSite {
  std::uint32_t name;
  const char* at;
  bool symbolic;  // as_sym_*'s `as_name`: a symbol, not a node, when no node has that name
};

struct InputRec {
  std::string name;
  const char* at;
  std::string_view tag;  // as_tensor, as_sym_int, ...
};

struct ArgRec {
  std::string name;
  Value value;
  int kind;  // 1 positional, 2 keyword, 0 not given
  std::string tag;
  const char* at;
};

struct NodeRec {
  const char* at = nullptr;  // its `{`
  std::string op;            // without `torch.ops.`
  std::string target;        // the target as written when it is neither `torch.ops.` nor a Python function
  const char* target_at = nullptr;
  std::vector<ArgRec> inputs;
  std::vector<RefSite> refs;
  std::string name;  // the FX node's name
  const char* name_at = nullptr;
  std::vector<std::string> slots;  // multi-output: the names of the outputs, in order
  std::vector<const char*> slot_at;
  std::vector<Annotation> annotations;
};

struct TensorValueRec {
  std::string name;
  const char* at;
  ScalarType dtype;
  std::int64_t dtype_code;
  std::vector<Value> shape;
  std::string extras;  // members besides dtype and sizes, canonical JSON
};

/// The deepest nesting read (torch's documents nest about 10 levels).
inline constexpr std::size_t max_depth = 1024;

class Reader {
 public:
  Reader(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {}

  Graph read() {
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
    od::object top = object_of_doc();
    for_fields(top, [&](std::string_view key, const char* key_at, od::value v) {
      if (key == "graph_module") {
        seen_module_ = true;
        read_graph_module(v);
      } else {
        keep(graph_annotations_, std::string(top_prefix) + std::string(key), v, key_at);
      }
    });
    if (auto rest = doc_.current_location(); !rest.error())
      fail(rest.value_unsafe(), "expected the end of the document after its top-level object");
    if (!seen_module_) fail(base_, "missing field 'graph_module' in the exported_program document");
    return build();
  }

 private:
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

  // ---------------------------------------------------------------- names
  std::uint32_t name_index(std::string_view name) {
    auto it = names_.find(name);
    if (it != names_.end()) return it->second;
    auto id = static_cast<std::uint32_t>(name_list_.size());
    name_list_.emplace_back(name);
    names_.emplace(std::string(name), id);
    defined_.push_back(false);
    return id;
  }
  void define(std::string_view name) { defined_[name_index(name)] = true; }
  /// A name that becomes a node's must be one (is_node_name): FX text could not refer to it.
  void check_node_name(std::string_view name, const char* at) {
    if (!is_node_name(name))
      fail(at, invalid_node_name_message(name));
  }

  // ---------------------------------------------------------------- the document
  void read_graph_module(od::value& v) {
    od::object gm = object(v, "'graph_module'");
    bool seen_graph = false;
    const char* gm_at = token_start(v);
    for_fields(gm, [&](std::string_view key, const char* key_at, od::value x) {
      if (key == "graph") {
        if (seen_graph) fail(key_at, "duplicate field 'graph'");
        seen_graph = true;
        read_graph(x);
      } else {
        keep(graph_annotations_, std::string(module_prefix) + std::string(key), x, key_at);
      }
    });
    if (!seen_graph) fail(gm_at, "missing field 'graph' in 'graph_module'");
  }

  void read_graph(od::value& v) {
    const char* g_at = token_start(v);
    od::object g = object(v, "'graph'");
    bool seen[4] = {};
    constexpr std::string_view parts[] = {"inputs", "outputs", "nodes", "tensor_values"};
    for_fields(g, [&](std::string_view key, const char* key_at, od::value x) {
      for (int i = 0; i < 4; ++i)
        if (key == parts[i]) {
          if (seen[i]) fail(key_at, "duplicate field '" + std::string(key) + "'");
          seen[i] = true;
        }
      if (key == "inputs") {
        od::array a = array(x, "the graph's 'inputs'");
        for_items(a, "the graph's 'inputs'", [&](std::size_t, od::value in) { read_graph_input(in); });
      } else if (key == "outputs") {
        od::array a = array(x, "the graph's 'outputs'");
        for_items(a, "the graph's 'outputs'", [&](std::size_t, od::value out) {
          std::size_t first_ref = output_refs_.size();
          ArgRec r{std::to_string(outputs_.size()), {}, 1, {}, token_start(out)};
          r.value = argument(out, r.tag, output_refs_, "a graph output");
          (void)first_ref;
          outputs_.push_back(std::move(r));
        });
      } else if (key == "nodes") {
        od::array a = array(x, "'nodes'");
        for_items(a, "'nodes'", [&](std::size_t, od::value n) { read_node(n); });
      } else if (key == "tensor_values") {
        od::object tv = object(x, "'tensor_values'");
        for_fields(tv, [&](std::string_view name, const char* name_at, od::value t) {
          read_tensor_value(name, name_at, t);
        });
      } else {
        keep(graph_annotations_, std::string(graph_prefix) + std::string(key), x, key_at);
      }
    });
    for (int i = 0; i < 3; ++i)
      if (!seen[i]) fail(g_at, "missing field '" + std::string(parts[i]) + "' in 'graph'");
  }

  void read_graph_input(od::value& v) {
    const char* at = token_start(v);
    od::object o = object(v, "a graph input");
    bool any = false;
    for_fields(o, [&](std::string_view tag, const char* tag_at, od::value x) {
      if (any) fail(tag_at, "a graph input has exactly one tag, found a second: '" + std::string(tag) + "'");
      any = true;
      if (tag == "as_tensor") {
        auto [name, name_at] = tensor_name(x, "a graph input");
        inputs_.push_back(InputRec{std::string(name), name_at, "as_tensor"});
      } else if (tag == "as_sym_int" || tag == "as_sym_float" || tag == "as_sym_bool") {
        const char* x_at = token_start(x);
        od::object s = object(x, "a symbolic graph input");
        std::string name;
        for_fields(s, [&](std::string_view k, const char* k_at, od::value y) {
          if (k != "as_name" || !name.empty())
            fail(k_at, "expected 'as_name' in a symbolic graph input, found '" + std::string(k) + "'");
          name = string(y, "'as_name'");
        });
        if (name.empty()) fail(x_at, "missing 'as_name' in a symbolic graph input");
        inputs_.push_back(InputRec{std::move(name), x_at, tag == "as_sym_int" ? "as_sym_int" : tag == "as_sym_float" ? "as_sym_float" : "as_sym_bool"});
      } else {
        fail(tag_at, "unsupported graph input '" + std::string(tag) +
                         "' (expected as_tensor or a symbolic input)");
      }
    });
    if (!any) fail(at, "empty graph input: expected one tag such as 'as_tensor'");
    check_node_name(inputs_.back().name, inputs_.back().at);
    define(inputs_.back().name);
  }

  /// `{"name": "x"}` (a TensorArgument): the name and where it is.
  std::pair<std::string_view, const char*> tensor_name(od::value& v, std::string_view what) {
    const char* at = token_start(v);
    od::object o = object(v, what);
    std::string_view name;
    const char* name_at = nullptr;
    for_fields(o, [&](std::string_view k, const char* k_at, od::value x) {
      if (k != "name") fail(k_at, "unexpected field '" + std::string(k) + "' in a tensor argument (expected 'name')");
      if (name_at) fail(k_at, "duplicate field 'name'");
      name_at = token_start(x);
      name = string(x, "a tensor name");
    });
    if (!name_at) fail(at, "missing field 'name' in a tensor argument");
    if (name.empty()) fail(name_at, "empty tensor name");
    return {name, name_at};
  }

  Value ref(std::string_view name, const char* at, std::vector<RefSite>& refs, bool symbolic = false) {
    std::uint32_t id = name_index(name);
    refs.push_back(RefSite{id, at, symbolic});
    return Value(NodeRef{id});
  }
  Value tensor_ref(od::value& v, std::vector<RefSite>& refs) {
    auto [name, at] = tensor_name(v, "a tensor argument");
    return ref(name, at, refs);
  }
  /// SymIntArgument / SymFloatArgument / SymBoolArgument: `{"as_name": ...}` or a constant.
  Value symbolic(od::value& v, std::string_view constant_tag, std::vector<RefSite>& refs) {
    const char* at = token_start(v);
    od::object o = object(v, "a symbolic argument");
    Value out;
    bool any = false;
    for_fields(o, [&](std::string_view k, const char* k_at, od::value x) {
      if (any) fail(k_at, "a symbolic argument has exactly one tag, found a second: '" + std::string(k) + "'");
      any = true;
      if (k == "as_name") {
        const char* x_at = token_start(x);
        std::string_view name = string(x, "'as_name'");
        if (name.empty()) fail(x_at, "empty symbol name");
        out = ref(name, x_at, refs, true);
      } else if (k == constant_tag) {
        if (k == "as_int") out = Value(integer(x, "a symbolic int"));
        else if (k == "as_float") out = Value(floating(x, "a symbolic float"));
        else out = Value(boolean(x, "a symbolic bool"));
      } else {
        fail(k_at, "expected 'as_name' or '" + std::string(constant_tag) + "' in a symbolic argument, found '" +
                       std::string(k) + "'");
      }
    });
    if (!any) fail(at, "empty symbolic argument: expected 'as_name' or '" + std::string(constant_tag) + "'");
    return out;
  }
  template <class F>
  Value list_of(od::value& v, std::string_view what, F&& item) {
    od::array a = array(v, what);
    std::vector<Value> items;
    for_items(a, what, [&](std::size_t, od::value x) { items.push_back(item(x)); });
    return Value::list(std::move(items));
  }

  /// One serde Argument (a union: one tag and its payload) as a Value; `tag` gets the tag.
  Value argument(od::value& v, std::string& tag_out, std::vector<RefSite>& refs, std::string_view what) {
    const char* at = token_start(v);
    od::object o = object(v, what);
    Value out;
    bool any = false;
    for_fields(o, [&](std::string_view tag, const char* tag_at, od::value x) {
      if (any) fail(tag_at, "an argument has exactly one tag, found a second: '" + std::string(tag) + "'");
      any = true;
      tag_out = tag;
      out = argument_payload(tag, tag_at, x, refs);
    });
    if (!any) fail(at, "empty argument: expected one tag such as 'as_tensor' or 'as_int'");
    return out;
  }

  Value argument_payload(std::string_view tag, const char* tag_at, od::value& x, std::vector<RefSite>& refs) {
    auto enum_value = [&](auto from_serde, std::string_view kind) {
      const char* at = token_start(x);
      std::int64_t code = integer(x, tag);
      auto e = from_serde(code);
      if (!e) fail(at, "unknown " + std::string(kind) + " number " + std::to_string(code) + " (torch.export serde numbering)");
      return Value(*e);
    };
    auto optional_tensor = [&](od::value& y) -> Value {
      const char* y_at = token_start(y);
      od::object o = object(y, "an optional tensor");
      Value r;
      bool any = false;
      for_fields(o, [&](std::string_view k, const char* k_at, od::value z) {
        if (any) fail(k_at, "an optional tensor has exactly one tag, found a second: '" + std::string(k) + "'");
        any = true;
        if (k == "as_tensor") r = tensor_ref(z, refs);
        else if (k == "as_none") { boolean_or_null(z, "'as_none'"); r = Value(None{}); }
        else fail(k_at, "expected 'as_tensor' or 'as_none' in an optional tensor, found '" + std::string(k) + "'");
      });
      if (!any) fail(y_at, "empty optional tensor: expected 'as_tensor' or 'as_none'");
      return r;
    };
    if (tag == "as_none") { boolean_or_null(x, "'as_none'"); return Value(None{}); }
    if (tag == "as_tensor") return tensor_ref(x, refs);
    if (tag == "as_tensors") return list_of(x, tag, [&](od::value& y) { return tensor_ref(y, refs); });
    if (tag == "as_int") return Value(integer(x, tag));
    if (tag == "as_ints") return list_of(x, tag, [&](od::value& y) { return Value(integer(y, "an element of 'as_ints'")); });
    if (tag == "as_float") return Value(floating(x, tag));
    if (tag == "as_floats") return list_of(x, tag, [&](od::value& y) { return Value(floating(y, "an element of 'as_floats'")); });
    if (tag == "as_string" || tag == "as_operator") return Value(std::string(string(x, tag)));
    if (tag == "as_strings") return list_of(x, tag, [&](od::value& y) { return Value(std::string(string(y, "an element of 'as_strings'"))); });
    if (tag == "as_bool") return Value(boolean(x, tag));
    if (tag == "as_bools") return list_of(x, tag, [&](od::value& y) { return Value(boolean(y, "an element of 'as_bools'")); });
    if (tag == "as_sym_int") return symbolic(x, "as_int", refs);
    if (tag == "as_sym_ints") return list_of(x, tag, [&](od::value& y) { return symbolic(y, "as_int", refs); });
    if (tag == "as_sym_float") return symbolic(x, "as_float", refs);
    if (tag == "as_sym_floats") return list_of(x, tag, [&](od::value& y) { return symbolic(y, "as_float", refs); });
    if (tag == "as_sym_bool") return symbolic(x, "as_bool", refs);
    if (tag == "as_sym_bools") return list_of(x, tag, [&](od::value& y) { return symbolic(y, "as_bool", refs); });
    if (tag == "as_scalar_type") return enum_value(serde::scalar_type_from_serde, "dtype");
    if (tag == "as_layout") return enum_value(serde::layout_from_serde, "layout");
    if (tag == "as_memory_format") return enum_value(serde::memory_format_from_serde, "memory format");
    if (tag == "as_device") return device(x);
    if (tag == "as_optional_tensor") return optional_tensor(x);
    if (tag == "as_optional_tensors") return list_of(x, tag, optional_tensor);
    if (tag == "as_int_lists")
      return list_of(x, tag, [&](od::value& y) {
        return list_of(y, "an element of 'as_int_lists'", [&](od::value& z) { return Value(integer(z, "an element of 'as_int_lists'")); });
      });
    if (tag == "as_float_lists")
      return list_of(x, tag, [&](od::value& y) {
        return list_of(y, "an element of 'as_float_lists'", [&](od::value& z) { return Value(floating(z, "an element of 'as_float_lists'")); });
      });
    if (tag == "as_graph" || tag == "as_custom_obj" || tag == "as_complex" || tag == "as_nested_tensors" ||
        tag == "as_string_to_argument")
      fail(tag_at, "unsupported argument type '" + std::string(tag) + "'");
    fail(tag_at, "unknown argument type '" + std::string(tag) + "'");
  }

  void boolean_or_null(od::value& v, std::string_view what) {
    const char* at = token_start(v);
    if (is_type(v, od::json_type::null)) {
      if (!take(v.is_null(), at, what)) fail(at, "malformed JSON in " + std::string(what));
      return;
    }
    boolean(v, what);
  }

  Value device(od::value& v) {
    const char* at = token_start(v);
    od::object o = object(v, "'as_device'");
    std::string type;
    const char* type_at = nullptr;
    std::int64_t index = -1;
    for_fields(o, [&](std::string_view k, const char* k_at, od::value x) {
      if (k == "type") {
        type_at = token_start(x);
        type = string(x, "a device type");
      } else if (k == "index") {
        if (is_type(x, od::json_type::null)) { boolean_or_null(x, "a device index"); index = -1; }
        else {
          const char* i_at = token_start(x);
          index = integer(x, "a device index");
          if (index < 0 || index > 32767) fail(i_at, "device index " + std::to_string(index) + " out of range");
        }
      } else {
        fail(k_at, "unexpected field '" + std::string(k) + "' in a device (expected 'type' and 'index')");
      }
    });
    if (!type_at) fail(at, "missing field 'type' in a device");
    std::string spelled = index >= 0 ? type + ":" + std::to_string(index) : type;
    auto d = parse_device(spelled);
    if (!d) fail(type_at, "unknown device type '" + type + "'");
    return Value(*d);
  }

  void read_node(od::value& v) {
    NodeRec n;
    n.at = token_start(v);
    od::object o = object(v, "a node");
    bool seen_target = false, seen_inputs = false, seen_outputs = false;
    std::string field_name;
    const char* name_field_at = nullptr;
    std::vector<std::pair<std::string, const char*>> outs;  // output names, where
    std::string outputs_text;
    bool single_tensor = false;
    for_fields(o, [&](std::string_view key, const char* key_at, od::value x) {
      auto once = [&](bool& seen) {
        if (seen) fail(key_at, "duplicate field '" + std::string(key) + "' in a node");
        seen = true;
      };
      if (key == "target") {
        once(seen_target);
        n.target_at = token_start(x);
        std::string_view t = string(x, "a node's 'target'");
        if (fx::spelled_unlike_fx(t)) n.target = t;  // kept, as the FX reader keeps it
        t = fx::op_name_of_target(t);
        if (t.empty()) fail(n.target_at, "empty node target");
        if (!fx::is_dotted_name(t))
          fail(n.target_at, "invalid node target " + quoted_name(t) + ": expected a dotted name such as torch.ops.aten.mm.default");
        n.op = t;
      } else if (key == "inputs") {
        once(seen_inputs);
        od::array a = array(x, "a node's 'inputs'");
        for_items(a, "a node's 'inputs'", [&](std::size_t, od::value in) { read_named_argument(in, n); });
      } else if (key == "outputs") {
        once(seen_outputs);
        read_outputs(x, n, outs, outputs_text, single_tensor);
      } else if (key == "name") {
        if (name_field_at) fail(key_at, "duplicate field 'name' in a node");
        name_field_at = token_start(x);
        field_name = string(x, "a node's 'name'");
        if (field_name.empty()) fail(name_field_at, "empty node name");
      } else if (key == "metadata") {
        // dict[str, str], checked here and kept as written: stack traces make up most of a
        // document, and copying them verbatim is several times faster than re-escaping them.
        const char* m_at = token_start(x);
        od::object m = object(x, "a node's 'metadata'");
        for_fields(m, [&](std::string_view, const char*, od::value mv) { raw_string(mv, "a metadata entry"); });
        const char* m_end = here() - 1;  // just before the token after the object
        while (m_end > m_at && *m_end != '}') --m_end;
        std::string text(m_at, static_cast<std::size_t>(m_end - m_at) + 1);
        for (const Annotation& a : n.annotations)
          if (a.key == key_metadata) fail(key_at, "duplicate field 'metadata' in a node");
        n.annotations.push_back(Annotation{std::string(key_metadata), std::move(text)});
      } else if (key == "is_hop_single_tensor_return") {
        keep(n.annotations, std::string(key_hop), x, key_at);
      } else {
        keep(n.annotations, std::string(key_field_prefix) + std::string(key), x, key_at);
      }
    });
    if (!seen_target) fail(n.at, "missing field 'target' in a node");
    if (!seen_inputs) fail(n.at, "missing field 'inputs' in a node");
    if (!seen_outputs) fail(n.at, "missing field 'outputs' in a node");
    if (single_tensor) {
      n.name = outs[0].first;
      n.name_at = outs[0].second;
    } else {
      n.name = field_name;  // may be empty: the graph names it after the op
      n.name_at = name_field_at ? name_field_at : n.at;
      for (auto& [s, at] : outs) {
        n.slots.push_back(s);
        n.slot_at.push_back(at);
      }
      n.annotations.push_back(Annotation{std::string(key_outputs), std::move(outputs_text)});
    }
    if (!n.name.empty()) {
      check_node_name(n.name, n.name_at);
      define(n.name);
    }
    for (std::size_t i = 0; i < n.slots.size(); ++i)
      if (!is_unused_slot(n.name, n.slots[i], i)) {
        check_node_name(n.slots[i], n.slot_at[i]);
        define(n.slots[i]);
      }
    nodes_.push_back(std::move(n));
  }

  static bool is_unused_slot(std::string_view node, std::string_view slot, std::size_t i) {
    // torch's serializer names outputs that nothing uses `NODE_unused_I`.
    std::string want = std::string(node) + "_unused_" + std::to_string(i);
    return !node.empty() && slot == want;
  }

  void read_outputs(od::value& v, NodeRec& n, std::vector<std::pair<std::string, const char*>>& outs,
                    std::string& text, bool& single_tensor) {
    const char* at = token_start(v);
    od::array a = array(v, "a node's 'outputs'");
    std::vector<std::string> tags;
    text = "[";
    for_items(a, "a node's 'outputs'", [&](std::size_t i, od::value out) {
      if (i) text += ", ";
      const char* out_at = token_start(out);
      od::object o = object(out, "a node output");
      bool any = false;
      for_fields(o, [&](std::string_view tag, const char* tag_at, od::value x) {
        if (any) fail(tag_at, "a node output has exactly one tag, found a second: '" + std::string(tag) + "'");
        any = true;
        tags.emplace_back(tag);
        text += '{';
        append_json_string(text, tag);
        text += ": ";
        if (tag == "as_tensor") {
          auto [name, name_at] = tensor_name(x, "a node output");
          outs.emplace_back(std::string(name), name_at);
          text += "{\"name\": ";
          append_json_string(text, name);
          text += '}';
        } else if (tag == "as_tensors") {
          od::array ts = array(x, "'as_tensors'");
          text += '[';
          for_items(ts, "'as_tensors'", [&](std::size_t k, od::value t) {
            auto [name, name_at] = tensor_name(t, "a node output");
            outs.emplace_back(std::string(name), name_at);
            if (k) text += ", ";
            text += "{\"name\": ";
            append_json_string(text, name);
            text += '}';
          });
          text += ']';
        } else if (tag == "as_sym_int" || tag == "as_sym_float" || tag == "as_sym_bool") {
          const char* x_at = token_start(x);
          od::object s = object(x, "a symbolic output");
          std::string name;
          for_fields(s, [&](std::string_view k, const char* k_at, od::value y) {
            if (k != "as_name" || !name.empty())
              fail(k_at, "expected 'as_name' in a symbolic node output, found '" + std::string(k) + "'");
            name = string(y, "'as_name'");
          });
          if (name.empty()) fail(x_at, "missing 'as_name' in a symbolic node output");
          outs.emplace_back(name, x_at);
          text += "{\"as_name\": ";
          append_json_string(text, name);
          text += '}';
        } else {
          fail(tag_at, "unsupported node output '" + std::string(tag) + "'");
        }
        text += '}';
      });
      if (!any) fail(out_at, "empty node output: expected one tag such as 'as_tensor'");
    });
    text += ']';
    if (tags.size() == 1 && tags[0] != "as_tensors") {
      // One value: the node itself is it (torch syncs the node with that name).
      single_tensor = true;
      if (tags[0] != "as_tensor") n.annotations.push_back(Annotation{std::string(key_outputs), text});
      return;
    }
    if (tags.size() > 1)
      for (std::size_t i = 0; i < tags.size(); ++i)
        if (tags[i] != "as_tensor" && tags[i] != "as_sym_int")
          fail(at, "unsupported node outputs: a list of outputs holds '" + tags[i] + "'");
  }

  void read_named_argument(od::value& v, NodeRec& n) {
    const char* at = token_start(v);
    od::object o = object(v, "a node input");
    ArgRec r{{}, {}, 0, {}, at};
    bool seen_name = false, seen_arg = false, seen_kind = false;
    for_fields(o, [&](std::string_view key, const char* key_at, od::value x) {
      if (key == "name") {
        if (seen_name) fail(key_at, "duplicate field 'name' in a node input");
        seen_name = true;
        const char* x_at = token_start(x);
        r.name = string(x, "an input's 'name'");
        if (r.name.empty()) fail(x_at, "empty input name");
        if (!is_identifier(r.name))  // FX text writes it as a keyword argument's name
          fail(x_at, "invalid input name " + quoted_name(r.name) + ": an argument name is a Python identifier (ASCII)");
      } else if (key == "arg") {
        if (seen_arg) fail(key_at, "duplicate field 'arg' in a node input");
        seen_arg = true;
        r.at = token_start(x);
        r.value = argument(x, r.tag, n.refs, "a node input's 'arg'");
      } else if (key == "kind") {
        if (seen_kind) fail(key_at, "duplicate field 'kind' in a node input");
        seen_kind = true;
        if (is_type(x, od::json_type::null)) {
          boolean_or_null(x, "'kind'");
        } else {
          const char* k_at = token_start(x);
          std::int64_t k = integer(x, "'kind'");
          if (k < 0 || k > 2) fail(k_at, "unknown argument kind " + std::to_string(k) + " (expected 1 positional or 2 keyword)");
          r.kind = static_cast<int>(k);
        }
      } else {
        fail(key_at, "unexpected field '" + std::string(key) + "' in a node input (expected name, arg, kind)");
      }
    });
    if (!seen_name) fail(at, "missing field 'name' in a node input");
    if (!seen_arg) fail(at, "missing field 'arg' in a node input");
    for (const ArgRec& other : n.inputs)
      if (other.name == r.name) fail(at, "input '" + r.name + "' given twice");
    n.inputs.push_back(std::move(r));
  }

  void read_tensor_value(std::string_view name, const char* name_at, od::value& v) {
    TensorValueRec t{std::string(name), name_at, ScalarType::Float, 0, {}, {}};
    const char* at = token_start(v);
    od::object o = object(v, "a tensor value");
    bool seen_dtype = false, seen_sizes = false;
    for_fields(o, [&](std::string_view key, const char* key_at, od::value x) {
      if (key == "dtype") {
        if (seen_dtype) fail(key_at, "duplicate field 'dtype'");
        seen_dtype = true;
        const char* d_at = token_start(x);
        t.dtype_code = integer(x, "'dtype'");
        auto d = serde::scalar_type_from_serde(t.dtype_code);
        if (!d) fail(d_at, "unknown dtype number " + std::to_string(t.dtype_code) + " (torch.export serde numbering)");
        t.dtype = *d;
      } else if (key == "sizes") {
        if (seen_sizes) fail(key_at, "duplicate field 'sizes'");
        seen_sizes = true;
        od::array a = array(x, "'sizes'");
        for_items(a, "'sizes'", [&](std::size_t, od::value s) { t.shape.push_back(sym_size(s)); });
      } else {
        std::string member;
        append_json_string(member, key);
        if (t.extras.find(member + ": ") == 0 || t.extras.find(", " + member + ": ") != std::string::npos)
          fail(key_at, "duplicate field '" + std::string(key) + "'");
        if (!t.extras.empty()) t.extras += ", ";
        t.extras += member;
        t.extras += ": ";
        canonical(x, t.extras, "a tensor value");
      }
    });
    if (!seen_dtype) fail(at, "missing field 'dtype' in tensor value '" + t.name + "'");
    if (!seen_sizes) fail(at, "missing field 'sizes' in tensor value '" + t.name + "'");
    tensor_values_.push_back(std::move(t));
  }

  /// A tensor size (serde SymInt): `{"as_int": 3}` or `{"as_expr": {"expr_str": "s0", ...}}`.
  Value sym_size(od::value& v) {
    const char* at = token_start(v);
    od::object o = object(v, "a size");
    Value out;
    bool any = false;
    for_fields(o, [&](std::string_view k, const char* k_at, od::value x) {
      if (any) fail(k_at, "a size has exactly one tag, found a second: '" + std::string(k) + "'");
      any = true;
      if (k == "as_int") {
        out = Value(integer(x, "a size"));
      } else if (k == "as_expr") {
        const char* e_at = token_start(x);
        od::object e = object(x, "'as_expr'");
        std::string expr;
        bool seen = false;
        for_fields(e, [&](std::string_view ek, const char*, od::value ev) {
          if (ek == "expr_str") {
            seen = true;
            expr = string(ev, "'expr_str'");
          } else {
            canonical(ev, "'as_expr'");  // the hint: validated, not kept
          }
        });
        if (!seen) fail(e_at, "missing field 'expr_str' in a symbolic size");
        out = Value(SymInt{std::move(expr)});
      } else {
        fail(k_at, "expected 'as_int' or 'as_expr' in a size, found '" + std::string(k) + "'");
      }
    });
    if (!any) fail(at, "empty size: expected 'as_int' or 'as_expr'");
    return out;
  }

  // ---------------------------------------------------------------- building the graph
  void resolve(Value& v, const std::vector<RefSite>& refs, std::size_t& k) {
    if (auto* r = v.get_if<NodeRef>()) {
      const RefSite& site = refs[k++];
      NodeId id = resolved_[site.name];
      if (id == no_node) {
        const std::string& name = name_list_[site.name];
        if (site.symbolic && !defined_[site.name]) {
          v = Value(SymInt{name});
          return;
        }
        if (defined_[site.name]) fail(site.at, "'" + name + "' is used before it is defined");
        fail(site.at, "reference to undefined node '" + name + "'");
      }
      r->id = id;
    } else if (v.is_list()) {
      bool refs_inside = false;  // most lists are shapes: left unopened, they stay known node-free
      v.for_each_node([&](NodeId) { refs_inside = true; });
      if (refs_inside)
        for (Value& x : v.get_if<List>()->items) resolve(x, refs, k);
    }
  }
  NodeId create(Graph& g, NodeSpec spec, const char* at) {
    NodeId id = no_node;
    // Every name that reaches here was checked where it was read (check_node_name), or is
    // empty (the graph names the node), or is "output".
    spec.name_is_node_name = !spec.name.empty();
    try {
      id = g.create(std::move(spec));
    } catch (const GraphError& e) {
      fail(at, e.what());
    }
    g.source_offsets.push_back(static_cast<std::size_t>(at - base_));
    return id;
  }
  void bind(std::string_view name, NodeId id) {
    auto it = names_.find(name);
    if (it != names_.end()) resolved_[it->second] = id;
  }

  Graph build() {
    schema::ensure_builtin_schemas();
    Graph g;
    resolved_.assign(name_list_.size(), no_node);
    for (const InputRec& in : inputs_) {
      if (g.find(in.name) != no_node) fail(in.at, "duplicate node name '" + in.name + "'");
      NodeId id = create(g, NodeSpec{NodeKind::Placeholder, no_op, in.name, in.name, {}, {}}, in.at);
      if (in.tag != "as_tensor") g[id].annotations.push_back(Annotation{std::string(key_input_tag), std::string(in.tag)});
      bind(in.name, id);
    }
    const OpId getitem = intern_op("operator.getitem");
    for (NodeRec& n : nodes_) {
      if (!n.name.empty() && g.find(n.name) != no_node) fail(n.name_at, "duplicate node name '" + n.name + "'");
      std::size_t k = 0;
      for (ArgRec& a : n.inputs) resolve(a.value, n.refs, k);
      NodeSpec spec{NodeKind::CallFunction, intern_op(n.op), n.name, std::move(n.target), {}, {}};
      const OpSignature* sig = OpRegistry::global().signature(spec.op);
      const schema::FunctionSchema* fs = schema::find_schema(spec.op);
      std::string overrides, positional_names;
      // kind 1 positional, 2 keyword; none given: torch's old rule (positional unless the
      // schema gives a default or makes it keyword-only).
      auto is_positional = [&](const ArgRec& a) {
        if (a.kind != 0) return a.kind == 1;
        if (!sig) return true;
        int p = sig->find(a.name);
        return p >= 0 && !sig->params[static_cast<std::size_t>(p)].kwarg_only &&
               !sig->params[static_cast<std::size_t>(p)].default_value;
      };
      std::size_t positional_count = 0, max_positional = 0;
      for (const ArgRec& a : n.inputs) positional_count += is_positional(a);
      if (sig)
        while (max_positional < sig->params.size() && !sig->params[max_positional].kwarg_only) ++max_positional;
      for (ArgRec& a : n.inputs) {
        bool positional = is_positional(a);
        if (sig) {  // point at the input that does not fit (Graph::create would name the node)
          if (positional && spec.args.size() >= max_positional)
            fail(a.at, n.op + ": takes at most " + std::to_string(max_positional) + " positional arguments, got " +
                           std::to_string(positional_count));
          if (!positional && sig->find(a.name) < 0) fail(a.at, n.op + ": has no argument '" + a.name + "'");
        }
        if (int i = fs ? fs->find(a.name) : -1; i >= 0) {
          const schema::Argument& arg = fs->args[static_cast<std::size_t>(i)];
          if (!schema::value_fits(arg.type, a.value)) fail(a.at, schema::misfit_message(n.op, arg.name, arg.type, a.value));
        }
        if (writer_tag(fs, a.name, a.value) != a.tag) {
          if (!overrides.empty()) overrides += ',';
          overrides += a.name + '=' + a.tag;
        }
        if (positional) {
          if (!spec.kwargs.empty()) fail(a.at, "positional input '" + a.name + "' after a keyword input");
          spec.args.push_back(std::move(a.value));
          if (!positional_names.empty()) positional_names += ',';
          positional_names += a.name;
        } else {
          spec.kwargs.push_back(Kwarg{a.name, std::move(a.value)});
        }
      }
      NodeId id = create(g, std::move(spec), n.at);
      Node& node = g[id];
      node.annotations = std::move(n.annotations);
      if (!overrides.empty()) node.annotations.push_back(Annotation{std::string(key_input_tags), std::move(overrides)});
      if (!node.signature() && !positional_names.empty())
        node.annotations.push_back(Annotation{std::string(key_arg_names), std::move(positional_names)});
      const std::string node_name = node.name();  // `node` may move as the graph grows
      bind(node_name, id);
      // An op of several returns has that many output slots: a getitem of each (the FX reader
      // holds getitems to the same count).
      if (fs && fs->num_returns > 1 && !n.slots.empty() && n.slots.size() != fs->num_returns)
        fail(n.slot_at[0], n.op + ": " + std::to_string(n.slots.size()) + " outputs listed, but the op has " +
                               std::to_string(fs->num_returns));
      for (std::size_t i = 0; i < n.slots.size(); ++i) {
        if (is_unused_slot(node_name, n.slots[i], i)) {
          unused_parent_.emplace(n.slots[i], id);
          continue;
        }
        if (g.find(n.slots[i]) != no_node) fail(n.slot_at[i], "duplicate node name '" + n.slots[i] + "'");
        NodeId gi = create(g,
                           NodeSpec{NodeKind::CallFunction, getitem, n.slots[i], {},
                                    {Value(NodeRef{id}), Value(static_cast<std::int64_t>(i))}, {}},
                           n.slot_at[i]);
        bind(n.slots[i], gi);
      }
    }
    // The output node.
    std::vector<Value> results;
    std::string overrides;
    std::size_t k = 0;
    for (ArgRec& a : outputs_) {
      resolve(a.value, output_refs_, k);
      if (default_tag(a.value) != a.tag) {
        if (!overrides.empty()) overrides += ',';
        overrides += a.name + '=' + a.tag;
      }
      results.push_back(std::move(a.value));
    }
    if (g.find("output") != no_node) fail(base_, "a node is named 'output', the name of the graph's output node");
    NodeId out = create(g, NodeSpec{NodeKind::Output, no_op, "output", "output", {Value::tuple(std::move(results))}, {}}, base_);
    if (!overrides.empty()) g[out].annotations.push_back(Annotation{std::string(key_input_tags), std::move(overrides)});
    // Tensor metadata.
    std::string orphans;
    for (TensorValueRec& t : tensor_values_) {
      NodeId id = g.find(t.name);
      if (id != no_node && g[id].kind() != NodeKind::Output) {
        Node& node = g[id];
        if (node.meta.dtype) fail(t.at, "duplicate tensor value '" + t.name + "'");
        node.meta.dtype = t.dtype;
        node.meta.shape = std::move(t.shape);
        if (!t.extras.empty()) node.annotations.push_back(Annotation{std::string(key_tensor_meta), std::move(t.extras)});
        continue;
      }
      std::string member;
      append_json_string(member, t.name);
      member += ": ";
      append_tensor_value(member, t);
      auto parent = unused_parent_.find(t.name);
      std::vector<Annotation>& to = parent != unused_parent_.end() ? g[parent->second].annotations : orphan_target_;
      std::string_view key = parent != unused_parent_.end() ? key_unused_tensor_values : key_orphan_tensor_values;
      auto it = std::find_if(to.begin(), to.end(), [&](const Annotation& a) { return a.key == key; });
      if (it == to.end()) {
        to.push_back(Annotation{std::string(key), std::move(member)});
      } else {
        if (it->value.find(member.substr(0, member.find(": ") + 2)) != std::string::npos)
          fail(t.at, "duplicate tensor value '" + t.name + "'");
        it->value += ", " + member;
      }
    }
    g.annotations = std::move(graph_annotations_);
    for (Annotation& a : orphan_target_) g.annotations.push_back(std::move(a));
    g.reserve(Graph::room_for(g.id_bound()));
    return g;
  }

  static void append_tensor_value(std::string& out, const TensorValueRec& t) {
    out += "{\"dtype\": ";
    append_json_int(out, t.dtype_code);
    out += ", \"sizes\": [";
    for (std::size_t i = 0; i < t.shape.size(); ++i) {
      if (i) out += ", ";
      if (auto* s = t.shape[i].get_if<SymInt>()) {
        out += "{\"as_expr\": {\"expr_str\": ";
        append_json_string(out, s->expr);
        out += ", \"hint\": null}}";
      } else {
        out += "{\"as_int\": ";
        append_json_int(out, *t.shape[i].get_if<std::int64_t>());
        out += '}';
      }
    }
    out += ']';
    if (!t.extras.empty()) out += ", " + t.extras;
    out += '}';
  }

  std::string_view text_;
  std::string file_;
  const char* base_ = nullptr;
  od::document doc_;
  bool doc_ready_ = false;  // doc_ holds a document (iterate succeeded)
  bool seen_module_ = false;

  std::unordered_map<std::string, std::uint32_t, StringHash, StringEq> names_;
  std::vector<std::string> name_list_;
  std::vector<bool> defined_;
  std::vector<NodeId> resolved_;
  std::unordered_map<std::string, NodeId> unused_parent_;

  std::vector<InputRec> inputs_;
  std::vector<ArgRec> outputs_;
  std::vector<RefSite> output_refs_;
  std::vector<NodeRec> nodes_;
  std::vector<TensorValueRec> tensor_values_;
  std::vector<Annotation> graph_annotations_;
  std::vector<Annotation> orphan_target_;
};

}  // namespace export_json::detail

/// Reads a torch.export `exported_program` JSON document. `file` names the input in errors.
/// Throws ParseError (`FILE:LINE:COL: error: ...`) on malformed input.
inline Graph read_export_json(std::string_view text, std::string file = "<input>") {
  return export_json::detail::Reader(text, std::move(file)).read();
}

}  // namespace ctmatch::io
