#pragma once
// rewrite<"name">(pattern, replacement): a rule from a DSL pattern and either
//   - a declarative replacement (rewrite/replacement.hpp), or
//   - a callback `NodeId(const Match<P>& m, RewriteBuilder& b)` that builds the replacement
//     with b.call(op, args, kwargs) (or emit(expr, b, m) for declarative parts) and returns
//     the node that takes over the root's uses, or no_node to decline.
// A multi() pattern has several roots, each of whose uses is redirected: its declarative
// replacement is outputs(e1, e2, ...), its callback returns std::array<NodeId, N> (in the
// order multi() lists the roots; a root's own node keeps its uses).
//
//   using namespace ctmatch::dsl;
//   constexpr auto gelu_tanh = rewrite<"gelu_tanh">(
//       aten::gelu("x"_x, "approximate"_kw = "tanh"),
//       op<"bench::gelu_tanh(Tensor x) -> Tensor">("x"_x));
//
// The rule satisfies the Rule concept (rewrite/rule.hpp): its root ops come from the pattern,
// its matched nodes are the pattern's op calls, and its check is the pattern's extra_check.
// Interior nodes must have no users outside the match; `.allow_shared_interior()` opts out.
// Every rule is a literal type: rule sets of them can be constexpr.
#include <array>
#include <span>
#include <string_view>
#include <type_traits>

#include "../pattern/dsl.hpp"
#include "../pattern/explain.hpp"
#include "../pattern/prefilter.hpp"
#include "builder.hpp"
#include "replacement.hpp"
#include "rule.hpp"

namespace ctmatch {

template <pattern::fixed_string Name, class P, class R, bool Shared = false>
struct PatternRule {
  using match_type = pattern::Match<P>;
  static constexpr bool allows_shared_interior = Shared;
  /// A multi() pattern has several roots: its replacement gives one node per root.
  static constexpr std::size_t roots = match_type::root_count;
  using replaced = std::conditional_t<roots == 1, NodeId, std::array<NodeId, roots>>;
  static constexpr bool is_callback = std::is_invocable_r_v<replaced, const R&, const match_type&, RewriteBuilder&>;
  /// A declarative replacement of a one-root pattern builds only from what the match found:
  /// arguments of matched nodes, which come before the root. Its nodes, inserted just before
  /// the root, come after their inputs, and it comes before the root's users (see Rule).
  static constexpr bool matched_last_first = match_type::nodes_in_chain;
  static constexpr bool interior_used_inside = match_type::interior_used_inside;
  static constexpr bool replaces_in_order = !is_callback && [] {
    std::size_t roots = 0;
    for (std::size_t i = 0; i < match_type::node_count; ++i) roots += match_type::is_root(i);
    return roots == 1;
  }();

  P pattern;
  R replacement;

  constexpr PatternRule(const P& p, const R& r) : pattern(p), replacement(r) {}

  static constexpr std::string_view name() { return Name.view(); }
  std::span<const OpId> root_ops() const {
    static const auto ids = [] {
      std::array<OpId, P::root_op_count> a{};
      P::root_ops(a.data());
      return a;
    }();
    return ids;
  }
  /// False only when match() would fail (pattern/prefilter.hpp): drivers test it inline first.
  bool might_match(const Graph& g, NodeId root) const { return pattern::might_match(pattern, g, root); }
  pattern::FirstTest first_test() const { return pattern::first_test(pattern); }
  /// `why` is a Reason* (explain mode when set) or nullptr: the drivers pass the literal, and
  /// then the explaining matcher (as large as the matcher) is not compiled for the rule.
  template <class Why>
  bool match(const Graph& g, NodeId root, match_type& m, Why why) const {
    if (pattern::match_into(pattern, g, root, m)) return true;
    if constexpr (!std::is_null_pointer_v<Why>)
      if (why) [[unlikely]] say_why(g, root, *why);
    return false;
  }
  std::span<const NodeId> matched_nodes(const match_type& m) const { return m.matched_nodes(); }
  replaced replace(RewriteBuilder& b, const match_type& m) const {
    if constexpr (is_callback) return replacement(m, b);
    else if constexpr (roots == 1) return replacement_detail::build_root<P>(replacement, b, m);
    else return replacement_detail::build_outputs<P>(replacement, b, m);
  }
  /// The nodes the roots matched, the candidate first (multi() patterns only).
  std::array<NodeId, roots> root_nodes(const match_type& m) const
    requires(roots > 1)
  {
    return m.root_nodes();
  }

  /// Explain mode only, out of line: the drivers' match stays small enough to inline.
  [[gnu::noinline, gnu::cold]] void say_why(const Graph& g, NodeId root, Reason& why) const {
    std::string text = pattern::explain(pattern, g, root).to_string();
    while (!text.empty() && text.back() == '\n') text.pop_back();
    why.say(text);
  }

  /// The same rule, allowed to match when interior nodes have other users (they stay alive).
  constexpr PatternRule<Name, P, R, true> allow_shared_interior() const { return {pattern, replacement}; }
};

/// rewrite<"name">(pattern, replacement or callback): see the top of this file.
template <pattern::fixed_string Name, class P, class R>
constexpr PatternRule<Name, P, R> rewrite(const P& pattern, const R& replacement) {
  static_assert(P::root_op_count > 0, "ctmatch: rewrite<>(pattern, ...): the pattern's root must be an op call");
  using Rule = PatternRule<Name, P, R>;
  if constexpr (!Rule::is_callback) {
    static_assert(replacement_detail::check_all_bound<P, R>());
    if constexpr (Rule::roots == 1)
      static_assert(!replacement_detail::is_outputs<R>,
                    "ctmatch: outputs(...) replaces the roots of a multi() pattern; this pattern has one root");
    else if constexpr (!replacement_detail::is_outputs<R>)
      static_assert(pattern::detail::always_false<R>,
                    "ctmatch: a multi() pattern's declarative replacement is outputs(e1, e2, ...), one per root");
    else
      static_assert(replacement_detail::outputs_size<R> == Rule::roots,
                    "ctmatch: outputs(...) must give exactly one replacement per root of the multi() pattern");
  }
  return PatternRule<Name, P, R>(pattern, replacement);
}

}  // namespace ctmatch

namespace ctmatch::dsl {
using ctmatch::emit;
using ctmatch::forward_kwargs;
using ctmatch::make;
using ctmatch::outputs;
using ctmatch::use;
using ctmatch::rewrite;
using ctmatch::RewriteBuilder;
}  // namespace ctmatch::dsl
