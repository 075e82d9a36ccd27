#pragma once
// Why a match failed: MatchFailure records, and the two sinks the matcher is instantiated with.
// The matcher reports a failure only through `if constexpr (Sink::enabled)`, so with NoExplain
// (what match() uses) no text is built and no branch is left behind: explaining costs nothing
// unless it is asked for (explain() in explain.hpp uses Explainer).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>
#include <utility>

#include "../graph/graph.hpp"
#include "../graph/value_print.hpp"

namespace ctmatch::pattern {

enum class FailureKind : std::uint8_t {
  Op,           // the node is another op (or not an op call)
  NotANode,     // an op call was expected but the argument is not a node
  Missing,      // the argument is absent and has no default
  Type,         // the argument's value has another kind than the slot's type
  Value,        // a constant differs
  Repeated,     // a repeated name finds another node / value than the first time
  Users,        // user-count constraint
  ExactKwargs,  // the node writes an argument an exact_kwargs() pattern does not name
  List,         // list length
  Check,        // a predicate (where) or the extra_check returned false
};

constexpr std::string_view failure_kind_name(FailureKind k) {
  constexpr std::string_view names[] = {"op",     "not a node", "missing", "type",     "value",
                                        "repeated name", "users", "exact kwargs", "list", "check"};
  return names[static_cast<std::size_t>(k)];
}

/// One reason a pattern did not match. `pattern_node` is the index of the pattern's op call in
/// Match's node order (see match.hpp), or npos for the whole match (extra_check).
struct MatchFailure {
  FailureKind kind = FailureKind::Op;
  std::size_t pattern_node = npos;
  std::string pattern_op;   // `aten.mm.default`
  NodeId node = no_node;    // the graph node the pattern node was tried on
  std::string node_name;
  std::string argument;     // schema name of the argument (`dtype`), `[i]` inside lists; may be empty
  std::string expected;
  std::string found;
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  /// `pattern node #1 (aten.mm.default) at 'add_3', argument 'self': op: expected aten.mm.default, found aten.add.Tensor`
  std::string to_string() const {
    std::string s;
    if (pattern_node != npos) {
      s += "pattern node #" + std::to_string(pattern_node) + " (" + pattern_op + ")";
      if (!node_name.empty()) s += " at '" + node_name + "'";
    } else {
      s += "match";
    }
    if (!argument.empty()) s += ", argument '" + argument + "'";
    s += ": ";
    s += failure_kind_name(kind);
    s += ": expected " + expected + ", found " + found;
    return s;
  }
};

namespace detail {
/// A value as explanations show it: FX syntax (`torch.float32`, `[1, 2]`, `%mm_1`, `tanh`).
inline std::string value_text(const Value& v, const Graph* g) { return ctmatch::to_string(v, g); }
inline std::string value_text(const Value* v, const Graph* g) {
  return v ? value_text(*v, g) : std::string("nothing (absent, no default)");
}
/// `<kind> <text>` as explanations show a found value: `int 3`, `ScalarType torch.float32`.
inline std::string typed_value_text(const Value* v, const Graph* g) {
  if (!v) return value_text(v, g);
  return std::string(kind_name(v->kind())) + " " + value_text(*v, g);
}
}  // namespace detail

/// A piece of explanation text as the matcher describes it: up to four string pieces, then
/// optionally a value, a node or a count, then a suffix. Only the Explainer renders it, in
/// non-template code, so that each pattern element's explain branch is one call (compile
/// time: a pattern TU does not inline string building for every element).
struct Text {
  enum class Tail : std::uint8_t { None, Value, TypedValue, NodeName, NodeOp, Count };
  std::string_view a, b, c, d;
  Tail tail = Tail::None;
  const Value* value = nullptr;
  NodeId node = no_node;
  std::size_t count = 0;
  std::string_view suffix;

  static Text str(std::string_view a, std::string_view b = {}, std::string_view c = {},
                  std::string_view d = {}) {
    return Text{a, b, c, d, Tail::None, nullptr, no_node, 0, {}};
  }
  Text& then(std::string_view s) { suffix = s; return *this; }
  Text& with_value(const Value* v) { tail = Tail::Value; value = v; return *this; }
  Text& with_typed_value(const Value* v) { tail = Tail::TypedValue; value = v; return *this; }
  Text& with_node_name(NodeId n) { tail = Tail::NodeName; node = n; return *this; }
  Text& with_node_op(NodeId n) { tail = Tail::NodeOp; node = n; return *this; }
  Text& with_count(std::size_t k) { tail = Tail::Count; count = k; return *this; }
};

/// The sink match() uses: nothing is recorded, nothing is built.
struct NoExplain {
  static constexpr bool enabled = false;
  void enter_node(std::size_t, std::string_view, NodeId) {}
  void leave_node() {}
  void enter_arg(std::string_view) {}
  void enter_index(std::size_t) {}
  void leave_arg() {}
};

/// The sink explain() uses (its members are out of line: explaining is rare, and pattern
/// translation units should not inline its string building at every element): records every failure with the pattern node and argument it
/// happened at. Alternatives and commutative operands record one failure per branch tried.
class Explainer {
 public:
  static constexpr bool enabled = true;
  explicit Explainer(const Graph& g) : g_(&g) {}

  [[gnu::noinline]] void enter_node(std::size_t pattern_node, std::string_view op, NodeId node) {
    frames_.push_back(Frame{pattern_node, std::string(op), node, {}});
  }
  void leave_node() { frames_.pop_back(); }
  [[gnu::noinline]] void enter_arg(std::string_view arg) {
    if (!frames_.empty()) frames_.back().args.emplace_back(arg);
  }
  [[gnu::noinline]] void enter_index(std::size_t i) {
    if (frames_.empty()) return;
    // Appended, not `"[" + std::to_string(i)`: g++ 12 warns about that one (-Wrestrict,
    // a false positive) where it inlines it.
    std::string s(1, '[');
    s += std::to_string(i);
    s += ']';
    frames_.back().args.push_back(std::move(s));
  }
  void leave_arg() {
    if (!frames_.empty()) frames_.back().args.pop_back();
  }
  [[gnu::noinline]] void report(FailureKind kind, const Text& expected, const Text& found) {
    fail(kind, render(expected), render(found));
  }
  [[gnu::noinline]] std::string render(const Text& t) const {
    std::string s;
    s.append(t.a).append(t.b).append(t.c).append(t.d);
    switch (t.tail) {
      case Text::Tail::None: break;
      case Text::Tail::Value: s += detail::value_text(t.value, g_); break;
      case Text::Tail::TypedValue: s += detail::typed_value_text(t.value, g_); break;
      case Text::Tail::NodeName: s += "'" + std::string((*g_)[t.node].name()) + "'"; break;
      case Text::Tail::NodeOp: {
        const Node& n = (*g_)[t.node];
        if (n.op() != no_op) s += op_name(n.op());
        else s += std::string(kind_name(n.kind())) + " '" + std::string(n.name()) + "'";
        break;
      }
      case Text::Tail::Count: s += std::to_string(t.count); break;
    }
    s.append(t.suffix);
    return s;
  }
  [[gnu::noinline]] void fail(FailureKind kind, std::string expected, std::string found) {
    MatchFailure f;
    f.kind = kind;
    if (!frames_.empty()) {
      const Frame& fr = frames_.back();
      f.pattern_node = fr.pattern_node;
      f.pattern_op = fr.op;
      f.node = fr.node;
      if (fr.node != no_node && fr.node < g_->id_bound()) f.node_name = (*g_)[fr.node].name();
      for (const std::string& a : fr.args) {
        if (!f.argument.empty() && a.front() != '[') f.argument += '.';
        f.argument += a;
      }
    }
    f.expected = std::move(expected);
    f.found = std::move(found);
    failures.push_back(std::move(f));
  }
  const Graph& graph() const { return *g_; }

  std::vector<MatchFailure> failures;

 private:
  struct Frame {
    std::size_t pattern_node;
    std::string op;
    NodeId node;
    std::vector<std::string> args;
  };
  const Graph* g_;
  std::vector<Frame> frames_;
};

/// One line at the point of failure (XLA's EXPLAIN): `return no_match(c, kind, expected, found);`
/// reports to the explain sink when the matcher explains and returns false. A Text is a few
/// views and pointers: when not explaining it is built for nothing and optimized away.
template <class Ctx>
constexpr bool no_match(Ctx& c, FailureKind kind, const Text& expected, const Text& found) {
  if constexpr (Ctx::explaining) c.sink.report(kind, expected, found);
  return false;
}

}  // namespace ctmatch::pattern
