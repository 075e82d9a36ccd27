#pragma once
// The FX text reader: builds a Graph from the text `str(torch.fx.Graph)` prints.
//
//   graph():
//       %x : [num_users=1] = placeholder[target=x]
//       %mm : [num_users=1] = call_function[target=torch.ops.aten.mm.default](args = (%x, %x), kwargs = {})
//       return (mm,)
//
// A hand-written single-pass scanner over the bytes (no regex, no streams): graphs of a few
// hundred kilobytes read in about a millisecond. Every malformed input throws ParseError with
// the line and column of the problem; a graph is returned only when the whole text was read.
//
// What is read, and how it is kept so that write_fx_text gives back the same bytes:
// - placeholder (with `(default=...)`), get_attr, call_function, call_method, call_module, and
//   the `return` line (the output node; its one argument is the returned value, as in FX).
// - `torch.ops.aten.mm.default` is the op `aten.mm.default`; Python functions keep their
//   qualified name (`operator.getitem`). A target spelled some other way is kept on the node.
// - Literals: ints (int64; larger is an error), floats (`1e-05`, `inf`, `-inf`, `nan`),
//   True/False/None, every `torch.<dtype>`, layouts, memory formats, devices, strings (bare as
//   FX prints them, or quoted as Python's repr), nested lists and tuples, `%node` references.
//   A bare word is a string or a device by the op's schema when it is known (a `str` slot takes
//   the word as it is, to the first ", " or closing bracket outside its own brackets: an einsum
//   equation, an assertion message); without one a device-shaped word (`cpu`, `cuda:0`) is a
//   Device, and any word ends at a comma or bracket.
// - A type annotation (`%x : torch.Tensor [num_users=1]`) is kept as the node annotation
//   `fx.type`; `graph() -> T:` as the graph annotation `fx.return_type`.
// - `[num_users=N]` is checked against the users the graph finds.
#include <algorithm>
#include <cassert>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "../graph/graph.hpp"
#include "../graph/value_print.hpp"
#include "../schema/value_fits.hpp"
#include "error.hpp"
#include "fx_syntax.hpp"

namespace ctmatch::io {

namespace fx::detail {

/// Deepest nesting of lists and tuples accepted (Python itself cannot print much deeper).
inline constexpr int max_nesting = 512;

/// Offset of the first byte that is not valid UTF-8, or npos. ASCII is checked 32 bytes at a
/// time (then eight), so the check costs little on FX text, which is almost all ASCII.
inline std::size_t find_invalid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const unsigned char* end = p + s.size();
  const unsigned char* begin = p;
  while (p < end) {
    while (end - p >= 32) {
      std::uint64_t w[4];
      std::memcpy(w, p, 32);
      if (((w[0] | w[1] | w[2] | w[3]) & 0x8080808080808080ull) != 0) break;
      p += 32;
    }
    if (end - p >= 8) {
      std::uint64_t w;
      std::memcpy(&w, p, 8);
      if ((w & 0x8080808080808080ull) == 0) {
        p += 8;
        continue;
      }
    }
    unsigned char c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    std::size_t n;
    std::uint32_t cp;
    if ((c & 0xE0) == 0xC0) {
      n = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 4;
      cp = c & 0x07;
    } else {
      return static_cast<std::size_t>(p - begin);
    }
    if (static_cast<std::size_t>(end - p) < n) return static_cast<std::size_t>(p - begin);
    for (std::size_t i = 1; i < n; ++i) {
      if ((p[i] & 0xC0) != 0x80) return static_cast<std::size_t>(p - begin);
      cp = (cp << 6) | (p[i] & 0x3F);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are invalid.
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return static_cast<std::size_t>(p - begin);
    p += n;
  }
  return std::string_view::npos;
}

struct CharClass {
  bool ident[256] = {};
  bool ident_start[256] = {};
  bool delim[256] = {};  // ends a bare word
  constexpr CharClass() {
    for (int c = 'a'; c <= 'z'; ++c) ident[c] = ident_start[c] = true;
    for (int c = 'A'; c <= 'Z'; ++c) ident[c] = ident_start[c] = true;
    for (int c = '0'; c <= '9'; ++c) ident[c] = true;
    ident[static_cast<unsigned char>('_')] = ident_start[static_cast<unsigned char>('_')] = true;
    for (char c : std::string_view(",()[]{}\n\r")) delim[static_cast<unsigned char>(c)] = true;
  }
};
inline constexpr CharClass char_class{};

inline bool is_ident(char c) { return char_class.ident[static_cast<unsigned char>(c)]; }
inline bool is_ident_start(char c) { return char_class.ident_start[static_cast<unsigned char>(c)]; }
inline bool is_delim(char c) { return char_class.delim[static_cast<unsigned char>(c)]; }

/// Number of lines, by memchr (vectorized by the C library, where std::count is not at -O2).
inline std::size_t count_lines(std::string_view s) {
  std::size_t n = 1;
  for (const char *p = s.data(), *end = p + s.size(); (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)))); ++p) ++n;
  return n;
}

class Reader {
 public:
  Reader(std::string_view text, std::string file)
      : text_(text), file_(std::move(file)), p_(text.data()), end_(text.data() + text.size()),
        line_begin_(text.data()), ahead_(text.data()) {}

  Graph read() {
    if (text_.empty()) fail_at(p_, "empty input: expected 'graph():'");
    std::size_t bad = find_invalid_utf8(text_);
    if (bad != std::string_view::npos) {
      auto [line, col] = line_column(text_, bad);
      throw ParseError(file_, line, col, "invalid UTF-8");
    }
    // About one node a line: size the tables once.
    std::size_t lines = count_lines(text_);
    g_.reserve(Graph::room_for(lines));  // about one node a line, and room for a pass
    expected_users_.reserve(lines);
    g_.source_offsets.reserve(lines);
    read_header();
    bool returned = false;
    while (!returned) {
      if (p_ == end_) fail_at(p_, "unexpected end of input: expected a node or 'return'");
      if (!end_of_line()) fail_at(p_, "expected the end of the line");
      skip_blank();
      if (p_ < end_ && *p_ == '%') {
        read_node();
      } else if (starts_with("return")) {
        read_return();
        returned = true;
      } else if (p_ == end_) {
        fail_at(p_, "unexpected end of input: expected a node or 'return'");
      } else {
        fail_at(p_, "expected a node ('%name : ...') or 'return'");
      }
    }
    // Nothing but white space may follow the return line.
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\r' || *p_ == '\n')) {
      if (*p_ == '\n') newline(p_ + 1);
      ++p_;
    }
    if (p_ != end_) fail_at(p_, "unexpected text after the return statement");
    check_num_users();
    g_.reserve(Graph::room_for(g_.id_bound()));
    return std::move(g_);
  }

 private:
  // ---- positions and errors ----
  [[noreturn]] void fail_at(const char* at, const std::string& msg) const {
    std::size_t col = static_cast<std::size_t>(at - line_begin_) + 1;
    constexpr std::string_view eoi = "unexpected end of input";
    if (at == end_ && msg.compare(0, eoi.size(), eoi) != 0)
      throw ParseError(file_, line_, col, std::string(eoi) + ": " + msg);
    throw ParseError(file_, line_, col, msg);
  }
  void newline(const char* next_line) {
    ++line_;
    line_begin_ = next_line;
  }
  // Inlined, so that a literal's size is a constant and memcmp becomes a few compares: the
  // reader checks some ten literals a line.
  [[gnu::always_inline]] bool starts_with(std::string_view s) const {
    return static_cast<std::size_t>(end_ - p_) >= s.size() && std::memcmp(p_, s.data(), s.size()) == 0;
  }
  [[gnu::always_inline]] void expect(std::string_view s, const char* what) {
    if (!starts_with(s)) [[unlikely]] fail_expected(what);
    p_ += s.size();
  }
  [[noreturn, gnu::cold, gnu::noinline]] void fail_expected(const char* what) const {
    fail_at(p_, std::string("expected ") + what);
  }
  void skip_spaces() {
    while (p_ < end_ && *p_ == ' ') ++p_;
  }
  /// Consumes the end of a line (`\n` or `\r\n`); false when something else is there.
  bool end_of_line() {
    const char* q = p_;
    while (q < end_ && (*q == ' ' || *q == '\t')) ++q;
    if (q < end_ && *q == '\r') ++q;
    if (q < end_ && *q == '\n') {
      p_ = q + 1;
      newline(p_);
      return true;
    }
    return false;
  }
  /// Skips blank lines and the indentation of the next line.
  void skip_blank() {
    for (;;) {
      while (p_ < end_ && (*p_ == ' ' || *p_ == '\t')) ++p_;
      if (!end_of_line()) return;
    }
  }
  std::string_view identifier(const char* what) {
    const char* b = p_;
    if (p_ == end_ || !is_ident_start(*p_)) fail_expected(what);
    while (end_ - p_ >= 4 && is_ident(p_[0]) && is_ident(p_[1]) && is_ident(p_[2]) && is_ident(p_[3])) p_ += 4;
    while (p_ < end_ && is_ident(*p_)) ++p_;
    return {b, static_cast<std::size_t>(p_ - b)};
  }
  /// The first `c` from p_ on the current line, or the line's end.
  const char* find_in_line(char c) const {
    const char* q = static_cast<const char*>(std::memchr(p_, c, static_cast<std::size_t>(end_ - p_)));
    if (!q) q = end_;
    const char* nl = static_cast<const char*>(std::memchr(p_, '\n', static_cast<std::size_t>(q - p_)));
    return nl ? nl : q;
  }
  /// The rest of the current line from p_ (without moving).
  std::string_view rest_of_line() const {
    const void* nl = std::memchr(p_, '\n', static_cast<std::size_t>(end_ - p_));
    return {p_, static_cast<std::size_t>((nl ? static_cast<const char*>(nl) : end_) - p_)};
  }

  // ---- structure ----
  void read_header() {
    expect("graph(", "'graph():'");
    if (p_ < end_ && *p_ != ')')
      fail_at(p_, "expected ')': placeholders are read from their own lines, not from graph(...)");
    expect(")", "')'");
    if (starts_with(" -> ")) {
      p_ += 4;
      std::string_view rest = rest_of_line();
      auto colon = rest.rfind(':');
      if (colon == std::string_view::npos || colon == 0) fail_at(p_, "expected a return type and ':'");
      g_.annotations.push_back({"fx.return_type", std::string(rest.substr(0, colon))});
      p_ += colon;
    }
    expect(":", "':' after 'graph()'");
  }

  void read_node() {
    const char* node_start = p_;
    prefetch_ahead();
    ++p_;  // '%'
    const char* name_at = p_;
    std::string_view name = identifier("a node name after '%'");
    if (is_python_keyword(name))  // identifier() read an identifier: only a keyword is left to refuse
      fail_at(name_at, invalid_node_name_message(name));
    // A duplicate name is found when the node is made (Graph::try_create's one probe of the
    // name index), and reported here, at the name.
    expect(" : ", "' : ' after the node name");
    // An optional type annotation, then [num_users=N] (torch before 2.1: [#users=N]; the
    // first node's spelling is the graph's, and the writer writes it back).
    std::string_view type;
    if (!starts_with(users_.key)) {
      if (!users_known_ && starts_with(old_users.key)) {
        users_ = old_users;
      } else {
        std::string_view rest = rest_of_line();
        auto at = rest.find(users_.key);
        if (!users_known_ && at == std::string_view::npos && (at = rest.find(old_users.key)) != std::string_view::npos)
          users_ = old_users;
        if (at == std::string_view::npos || at < 2 || rest[at - 1] != ' ') fail_at(p_, std::string("expected ") + users_.what);
        type = rest.substr(0, at - 1);
        p_ += at;
      }
    }
    if (!users_known_) {
      users_known_ = true;
      if (users_.key == old_users.key) g_.annotations.push_back({"fx.users_key", std::string(old_users.key)});
    }
    expect(users_.key, users_.what);
    std::uint64_t users = 0;
    {
      auto [q, ec] = std::from_chars(p_, end_, users);
      if (ec != std::errc{} || q == p_) fail_at(p_, "expected the number of users");
      p_ = q;
    }
    expect("]", "']' after the number of users");
    expect(" = ", "' = ' after the number of users");
    const char* kind_at = p_;
    NodeSpec spec;
    if (starts_with("call_function[target=")) {  // most nodes: one compare instead of a word's scan
      spec.kind = NodeKind::CallFunction;
      p_ += 21;
    } else {
      std::string_view kind_text = identifier("a node kind (placeholder, get_attr, call_function, ...)");
      if (kind_text == "placeholder") spec.kind = NodeKind::Placeholder;
      else if (kind_text == "get_attr") spec.kind = NodeKind::GetAttr;
      else if (kind_text == "call_function") spec.kind = NodeKind::CallFunction;
      else if (kind_text == "call_method") spec.kind = NodeKind::CallMethod;
      else if (kind_text == "call_module") spec.kind = NodeKind::CallModule;
      else
        fail_at(kind_at, "unknown node kind '" + std::string(kind_text) +
                             "' (expected placeholder, get_attr, call_function, call_method or call_module)");
      expect("[target=", "'[target=...]'");
    }
    const char* target_at = p_;
    p_ = find_in_line(']');
    std::string_view target(target_at, static_cast<std::size_t>(p_ - target_at));
    if (target.empty()) fail_at(target_at, "expected a target");
    expect("]", "']' after the target");

    spec.name = std::string(name);
    spec.name_is_node_name = true;  // checked above, at its position
    const schema::FunctionSchema* sch = nullptr;
    const OpSignature* sig = nullptr;
    if (spec.kind == NodeKind::CallFunction) {
      const OpInfo& op = op_of(target);
      spec.op = op.id;
      sch = op.schema;
      sig = op.signature;
      if (op.keep_target) spec.target = std::string(target);
    } else {
      spec.target = std::string(target);
    }

    if (spec.kind == NodeKind::Placeholder) {
      if (starts_with("(default=")) {
        p_ += 9;  // FX prints str(default): a string bare, containers as Python's repr
        spec.args.push_back(read_value(ValueStyle::Args, SlotHint::Unknown, 0, true));
        expect(")", "')' after the default value");
      }
    } else if (spec.kind != NodeKind::GetAttr) {
      expect("(args = ", "'(args = (...), kwargs = {...})'");
      if (p_ == end_ || *p_ != '(') fail_at(p_, "expected '(' to start the args tuple");
      ++p_;
      const char* second_arg_at = nullptr;
      read_items(')', [&](std::size_t i) {
        if (sig && i >= num_positional(*sig))
          fail_at(p_, std::string(op_name(spec.op)) + ": too many positional arguments (takes at most " +
                          std::to_string(num_positional(*sig)) + ")");
        if (i == 1) second_arg_at = p_;
        const char* value_at = p_;
        spec.args.push_back(read_value(ValueStyle::Args, positional_hint(sch, i), 1, false));
        if (sch && i < sch->num_args) check_fits(spec.op, sch->args[i], spec.args.back(), value_at);
      });
      if (spec.kind == NodeKind::CallFunction) check_getitem_index(spec, second_arg_at);
      expect(", kwargs = ", "', kwargs = {...}'");
      if (p_ == end_ || *p_ != '{') fail_at(p_, "expected '{' to start the kwargs");
      ++p_;
      read_items('}', [&](std::size_t) {
        const char* key_at = p_;
        std::string_view key = identifier("a keyword argument name");
        for (const Kwarg& k : spec.kwargs)
          if (k.name == key) fail_at(key_at, "keyword argument '" + std::string(key) + "' given twice");
        if (sig) {  // the same checks Graph::create makes, here with the argument's position
          int param = sig->find(key);
          if (param < 0) fail_at(key_at, std::string(op_name(spec.op)) + ": has no argument '" + std::string(key) + "'");
          if (static_cast<std::size_t>(param) < spec.args.size())
            fail_at(key_at, std::string(op_name(spec.op)) + ": argument '" + std::string(key) +
                                "' given twice (positionally and by keyword)");
        }
        expect(": ", "': ' after the keyword argument name");
        const char* value_at = p_;
        spec.kwargs.push_back(Kwarg{std::string(key), read_value(ValueStyle::Args, keyword_hint(sch, key), 1, false)});
        if (int a = sch ? sch->find(key) : -1; a >= 0)
          check_fits(spec.op, sch->args[static_cast<std::size_t>(a)], spec.kwargs.back().value, value_at);
      });
      expect(")", "')' after the kwargs");
    }
    create(std::move(spec), node_start, name_at);
    NodeId id = static_cast<NodeId>(g_.id_bound() - 1);
    if (!type.empty()) g_[id].edit_annotations().push_back({"fx.type", std::string(type)});
    assert(id == expected_users_.size());  // nodes are made in read order, ids from 0
    expected_users_.push_back(users);
  }

  void read_return() {
    const char* at = p_;
    p_ += 6;  // "return"
    if (p_ == end_ || *p_ != ' ') fail_at(p_, "expected ' ' and the returned value after 'return'");
    ++p_;
    NodeSpec spec{NodeKind::Output, no_op, g_.unique_name("output"), "output", {}, {}};
    spec.args.push_back(read_value(ValueStyle::Repr, SlotHint::Unknown, 0, true));
    create(std::move(spec), at);
  }

  /// `operator.getitem(%p, i)` on an op with several returns must pick one of them: the
  /// index is checked here, where its position is known, so that no writer or pass ever
  /// indexes the outputs with it unchecked. (On a single return, getitem is Python indexing
  /// of that value, and any index is the program's business.)
  void check_getitem_index(const NodeSpec& spec, const char* index_at) {
    if (std::string why = getitem_index_misfit(g_, spec); !why.empty()) fail_at(index_at, why);
  }

  void check_fits(OpId op, const schema::Argument& arg, const Value& v, const char* at) {
    if (!schema::value_fits(arg.type, v)) fail_at(at, schema::misfit_message(op_name(op), arg.name, arg.type, v));
  }

  /// Makes the node; a malformed one is reported at `at`, a duplicate name at `name_at`.
  void create(NodeSpec spec, const char* at, const char* name_at = nullptr) {
    try {
      if (g_.try_create(spec) == no_node)
        fail_at(name_at ? name_at : at, "duplicate node name '" + spec.name + "'");
    } catch (const GraphError& e) {
      fail_at(at, e.what());
    }
    g_.source_offsets.push_back(static_cast<std::size_t>(at - text_.data()));
  }

  void check_num_users() {
    for (NodeId id = 0; id < expected_users_.size(); ++id) {
      std::uint64_t stated = expected_users_[id];
      std::size_t actual = g_[id].num_users();
      if (actual == stated) continue;
      // The number's position, found again on the node's line as read_node found it.
      std::size_t at = text_.find(users_.key, g_.source_offsets[id]) + users_.key.size();
      auto [line, col] = line_column(text_, at);
      throw ParseError(file_, line, col,
                       "node '" + std::string(g_[id].name()) + "' says num_users=" + std::to_string(stated) +
                           " but the graph has " + std::to_string(actual) + " user(s) of it");
    }
  }

  struct OpInfo {
    OpId id;
    const schema::FunctionSchema* schema;
    const OpSignature* signature;
    bool keep_target;  // spelled unlike FX would print the op: the node keeps the spelling
  };
  const OpInfo& op_of(std::string_view target) {
    for (const RecentOp& r : recent_ops_)
      if (r.info && r.target == target) return *r.info;
    auto it = ops_.find(target);
    if (it == ops_.end())
      it = ops_.emplace(target, new_op_info(target)).first;
    recent_ops_[1] = recent_ops_[0];
    recent_ops_[0] = {it->first, &it->second};
    return it->second;
  }
  static OpInfo new_op_info(std::string_view target) {
    OpId id = intern_op(op_name_of_target(target));
    return OpInfo{id, schema_of(id), OpRegistry::global().signature(id), spelled_unlike_fx(target)};
  }
  // The last two targets looked up: nodes often alternate between a few ops (a fan-out's
  // permute and relu, a layer's view and mm), and comparing a target's text costs less than
  // hashing it. (The map's nodes, and so these pointers, stay where they are.)
  struct RecentOp {
    std::string_view target;
    const OpInfo* info = nullptr;
  };
  RecentOp recent_ops_[2];
  static std::size_t num_positional(const OpSignature& sig) {
    std::size_t n = 0;
    while (n < sig.params.size() && !sig.params[n].kwarg_only) ++n;
    return n;
  }

  // ---- values ----
  /// Reads `item (, item)*` up to `close` (the opener is consumed); a one-element tuple's
  /// trailing comma is accepted.
  template <class F>
  void read_items(char close, F&& item) {
    if (p_ < end_ && *p_ == close) {
      ++p_;
      return;
    }
    for (std::size_t i = 0;; ++i) {
      item(i);
      if (p_ == end_) fail_at(p_, std::string("unexpected end of input: expected ',' or '") + close + "'");
      if (*p_ == close) {
        ++p_;
        return;
      }
      if (*p_ != ',') fail_at(p_, std::string("expected ',' or '") + close + "'");
      ++p_;
      if (p_ < end_ && *p_ == close) {  // `(x,)`
        ++p_;
        return;
      }
      skip_spaces();
    }
  }

  /// Reads one value. `repr`: Python repr syntax (bare names are nodes, strings are quoted).
  Value read_value(ValueStyle style, SlotHint hint, int depth, bool word_required) {
    if (p_ == end_) fail_at(p_, "unexpected end of input: expected a value");
    char c = *p_;
    if (c == '(' || c == '[') {
      if (depth >= max_nesting)
        fail_at(p_, "lists and tuples nested more than " + std::to_string(max_nesting) + " deep");
      const char* open = p_;
      ++p_;
      // The items gather on one stack shared by every list being read (nested ones above
      // their parent's), so that each list allocates its items once, at their final size.
      const std::size_t base = items_.size();
      read_items(c == '(' ? ')' : ']', [&](std::size_t) {
        Value v = read_value(style, hint, depth + 1, false);
        items_.push_back(std::move(v));
      });
      const std::span<const Value> read{items_.data() + base, items_.size() - base};
      const std::string_view text(open, static_cast<std::size_t>(p_ - open));
      const bool ints = text.size() <= max_shared_list_text && ints_only(read);
      if (ints) {
        if (auto it = int_lists_.find(text); it != int_lists_.end() && same_items(it->second, read)) {
          items_.resize(base);
          return it->second;  // one more reference to the list read before
        }
      }
      std::vector<Value> items(std::make_move_iterator(items_.begin() + static_cast<std::ptrdiff_t>(base)),
                               std::make_move_iterator(items_.end()));
      items_.resize(base);
      Value v = c == '(' ? Value::tuple(std::move(items)) : Value::list(std::move(items));
      if (ints && int_lists_.size() < max_shared_lists) int_lists_.emplace(text, v);
      return v;
    }
    if (c == '{') fail_at(p_, "dict values are not supported");
    if (c == '%') {
      const char* at = p_;
      prefetch_ahead();
      ++p_;
      std::string_view name = identifier("a node name after '%'");
      return node_ref(name, at);
    }
    if (c == '\'' || c == '"') return Value(read_quoted());
    // A bare word: up to a delimiter (in a `str` slot, as scan_str_word says), without
    // trailing spaces.
    const char* b = p_;
    if (hint == SlotHint::Str && style == ValueStyle::Args)
      p_ += scan_str_word({p_, static_cast<std::size_t>(end_ - p_)}).end;
    else
      while (p_ < end_ && !is_delim(*p_)) ++p_;
    const char* e = p_;
    while (e > b && e[-1] == ' ') --e;
    std::string_view word(b, static_cast<std::size_t>(e - b));
    if (word.empty()) {
      if (!word_required && style == ValueStyle::Args) return Value(std::string());  // str("")
      fail_at(b, "expected a value");
    }
    return bare_word(word, b, style, hint);
  }

  /// Every node definition and reference (`%name`) probes the name index at a slot that hashing
  /// spreads at random, and past some 100k nodes the index outgrows the caches: each probe would
  /// wait for memory. So at each `%` the reader asks for the slot of the name `lookahead` `%`s
  /// further on (one memchr keeps that position), which is in cache by the time it is read.
  static constexpr int lookahead = 4;
  void prefetch_ahead() {
    if (!g_.outgrows_cache()) return;
    if (ahead_ <= p_) {
      ahead_ = p_ + 1;
      for (int i = 0; i < lookahead && ahead_ < end_; ++i) advance_ahead();
    } else if (ahead_ < end_) {
      advance_ahead();
    }
  }
  void advance_ahead() {
    const void* q = std::memchr(ahead_, '%', static_cast<std::size_t>(end_ - ahead_));
    if (!q) {
      ahead_ = end_;
      return;
    }
    const char* b = static_cast<const char*>(q) + 1;
    const char* e = b;
    while (e < end_ && is_ident(*e)) ++e;
    g_.prefetch_name({b, static_cast<std::size_t>(e - b)});
    ahead_ = e;
  }

  Value node_ref(std::string_view name, const char* at) {
    // The graph's own name index: every node read so far is in it, under the name it was read with.
    if (NodeId id = g_.find(name); id != no_node) return Value(NodeRef{id});
    // Defined further down, or not at all? Only this error path looks ahead.
    std::string def = "%" + std::string(name) + " : ";
    std::size_t later = text_.find(def, static_cast<std::size_t>(p_ - text_.data()));
    while (later != std::string_view::npos && later > 0 && text_[later - 1] != ' ')
      later = text_.find(def, later + 1);
    if (later != std::string_view::npos)
      fail_at(at, "node '" + std::string(name) + "' is used before it is defined");
    fail_at(at, "undefined node '" + std::string(name) + "'");
  }

  Value bare_word(std::string_view w, const char* at, ValueStyle style, SlotHint hint) {
    if (w == "None") return Value(None{});
    // In the returned value a node is written by bare name, and a node may be called `inf`
    // or `nan`, which Python would print for a float too: the node wins, as a name would.
    if (style == ValueStyle::Repr && (w == "inf" || w == "nan") && g_.find(w) != no_node) return node_ref(w, at);
    if (hint == SlotHint::Str && style == ValueStyle::Args) return Value(w);
    if (w == "True") return Value(true);
    if (w == "False") return Value(false);
    char f = w[0];
    bool numeric = (f >= '0' && f <= '9') || f == '.' ||
                   ((f == '-' || f == '+') && w.size() > 1 && ((w[1] >= '0' && w[1] <= '9') || w[1] == '.'));
    if (numeric) return number(w, at);
    if (w == "inf") return Value(std::numeric_limits<double>::infinity());
    if (w == "-inf") return Value(-std::numeric_limits<double>::infinity());
    if (w == "nan") return Value(std::numeric_limits<double>::quiet_NaN());
    if (w.substr(0, 6) == "torch.") {
      std::string_view n = w.substr(6);
      if (auto t = parse_scalar_type(n)) return Value(*t);
      if (auto l = parse_layout(n)) return Value(*l);
      if (auto m = parse_memory_format(n)) return Value(*m);
      fail_at(at, "unknown torch constant '" + std::string(w) + "' (expected a dtype, layout or memory format)");
    }
    if (style == ValueStyle::Repr) {
      if (is_ident_start(f)) {
        bool ident = true;
        for (char ch : w) ident &= is_ident(ch);
        if (ident) return node_ref(w, at);
      }
      fail_at(at, "expected a value, got '" + std::string(w) + "'");
    }
    if (hint != SlotHint::Str) {
      if (auto d = parse_device(w)) return Value(*d);
      if (hint == SlotHint::Device) fail_at(at, "expected a device, got '" + std::string(w) + "'");
    }
    if (hint == SlotHint::Int) return Value(SymInt{std::string(w)});
    return Value(w);
  }

  Value number(std::string_view w, const char* at) {
    const char* b = w.data();
    const char* e = b + w.size();
    if (*b == '+') ++b;
    bool is_float = false;
    for (const char* q = b; q < e; ++q)
      if (*q == '.' || *q == 'e' || *q == 'E') is_float = true;
    if (!is_float) {
      std::int64_t i = 0;
      auto [q, ec] = std::from_chars(b, e, i);
      if (ec == std::errc::result_out_of_range)
        fail_at(at, "integer " + std::string(w) + " does not fit in 64 bits");
      if (ec != std::errc{} || q != e) fail_at(at, "invalid number '" + std::string(w) + "'");
      return Value(i);
    }
    double d = 0;
    auto [q, ec] = std::from_chars(b, e, d);
    if (ec == std::errc::result_out_of_range) {
      // Python prints a finite double only; too large or too small is malformed.
      fail_at(at, "float " + std::string(w) + " is out of range");
    }
    if (ec != std::errc{} || q != e) fail_at(at, "invalid number '" + std::string(w) + "'");
    return Value(d);
  }

  /// A Python string literal, '...' or "...", with its backslash escapes.
  std::string read_quoted() {
    const char* open = p_;
    char q = *p_++;
    std::string s;
    for (;;) {
      if (p_ == end_ || *p_ == '\n') fail_at(open, "unterminated string");
      char c = *p_++;
      if (c == q) return s;
      if (c != '\\') {
        s += c;
        continue;
      }
      if (p_ == end_ || *p_ == '\n') fail_at(open, "unterminated string");
      const char* esc_at = p_ - 1;
      char e = *p_++;
      switch (e) {
        case '\\': s += '\\'; break;
        case '\'': s += '\''; break;
        case '"': s += '"'; break;
        case 'n': s += '\n'; break;
        case 'r': s += '\r'; break;
        case 't': s += '\t'; break;
        case '0': s += '\0'; break;
        case 'x': append_code_point(s, hex_escape(2, esc_at), esc_at); break;
        case 'u': append_code_point(s, hex_escape(4, esc_at), esc_at); break;
        case 'U': append_code_point(s, hex_escape(8, esc_at), esc_at); break;
        default: fail_at(esc_at, std::string("unknown escape '\\") + e + "' in string");
      }
    }
  }
  std::uint32_t hex_escape(int n, const char* esc_at) {
    std::uint32_t v = 0;
    for (int i = 0; i < n; ++i) {
      if (p_ == end_) fail_at(esc_at, "truncated escape in string");
      char c = *p_++;
      int d = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
      if (d < 0) fail_at(esc_at, "expected hex digits in the escape");
      v = v * 16 + static_cast<std::uint32_t>(d);
    }
    return v;
  }
  void append_code_point(std::string& s, std::uint32_t cp, const char* esc_at) {
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) fail_at(esc_at, "escape is not a valid code point");
    if (cp < 0x80) {
      s += static_cast<char>(cp);
    } else if (cp < 0x800) {
      s += static_cast<char>(0xC0 | (cp >> 6));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      s += static_cast<char>(0xE0 | (cp >> 12));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      s += static_cast<char>(0xF0 | (cp >> 18));
      s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::string_view text_;
  std::string file_;
  const char* p_;
  const char* end_;
  const char* line_begin_;
  const char* ahead_;  // just past the `%name` whose slot prefetch_ahead asked for last
  std::size_t line_ = 1;
  Graph g_;
  std::unordered_map<std::string_view, OpInfo> ops_;    // target as written -> op
  LargeVector<Value> items_;  // the items of the lists being read (read_value); a cat of 1M inputs takes 16 MB
  // Lists of ints as written -> the value read for them first. A graph repeats its shapes,
  // permutations and dims (every layer's views, a fan-out's identical permutes): a list read
  // again shares the first one's box (copy on write, as a copied graph's lists do) instead of
  // allocating two blocks. Bounded: short texts, and a few thousand of them.
  static constexpr std::size_t max_shared_list_text = 64, max_shared_lists = 4096;
  static bool ints_only(std::span<const Value> items) {
    for (const Value& v : items)
      if (!v.get_if<std::int64_t>()) return false;
    return true;
  }
  static bool same_items(const Value& list, std::span<const Value> items) {
    const std::vector<Value>& held = list.get_if<List>()->items;  // const: no copy on write
    return std::equal(held.begin(), held.end(), items.begin(), items.end());
  }
  std::unordered_map<std::string_view, Value> int_lists_;
  LargeVector<std::uint64_t> expected_users_;  // by node id: the num_users its line states
  struct UsersSpelling {
    std::string_view key;
    const char* what;
  };
  static constexpr UsersSpelling new_users{"[num_users=", "'[num_users=N]'"};
  static constexpr UsersSpelling old_users{"[#users=", "'[#users=N]'"};
  UsersSpelling users_ = new_users;
  bool users_known_ = false;
};

}  // namespace fx::detail

/// Reads FX text (`str(torch.fx.Graph)`) into a Graph. `file` names the input in errors.
/// Throws ParseError (`FILE:LINE:COL: error: ...`) on malformed input.
inline Graph read_fx_text(std::string_view text, std::string file = "<input>") {
  fx::ensure_schemas();
  return fx::detail::Reader(text, std::move(file)).read();
}

}  // namespace ctmatch::io
