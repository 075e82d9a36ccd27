#pragma once
// The rule concept: what the pass drivers need of a rewrite rule, whether it was written in
// the pattern DSL (rewrite/declarative.hpp, rewrite/callback.hpp) or by hand in plain C++.
//
// A rule
//   - has a name (`name()`), reported in the statistics; two rules may share one name (Inductor
//     registers mm_bias twice, once per operand order, and counts both as `mm_bias`). A static
//     constexpr name() (a PatternRule's) is reported as it is; any other is copied once into a
//     pool for the program's life (stats.hpp), so that no pass makes a string per rule;
//   - names its root op(s) (`root_ops()`): the driver tries it only on nodes with one of these
//     ops, through a table indexed by op id;
//   - matches at a root node (`match(graph, root, m, why)`): checks the structure and the rule's
//     own check, and records what it found in its `match_type` — the bindings and the matched
//     nodes (every node the pattern covers that is not a leaf, root included). On failure it
//     returns false and, when `why` is not null, says why (explain mode; nothing is paid when
//     `why` is null);
//   - may offer `might_match(graph, root)`, false only when match() is sure to fail and cheap
//     enough to test inline before it (most attempts fail; a failing one then costs a few
//     loads, not the matcher's setup), and `first_test()`, its first level as data
//     (pattern/first_test.hpp), which the sweep tests once for all the rules of a node;
//   - builds its replacement (`replace(builder, m)`): creates new nodes through the builder,
//     which inserts them just before the root, and returns the node that takes over every use
//     of the root (a new node, or an existing one such as a leaf), or no_node to decline; the
//     root itself means "looked and changed nothing" (counted as unchanged, as Inductor counts
//     a handler call that rewrites nothing).
//   - A rule with several roots (a multi() pattern, Inductor's MultiOutputPattern) also says
//     which nodes they are (`root_nodes(m)`, an std::array<NodeId, N>, the candidate first),
//     and its `replace` returns an std::array<NodeId, N>: root k's uses go to element k (the
//     root itself: it keeps them; no_node anywhere declines). New nodes then go just before
//     the earliest root.
//
// The driver does the rest, identically for every rule (rewrite/apply.hpp): the safety checks,
// taking the new nodes back when the replacement fails, redirecting the root's uses, erasing
// the matched nodes left without users (last first), carrying the root's dtype/shape over to
// the new node, and the statistics. A rule never mutates the graph except through the builder.
// A rule may also promise, as static constexpr bools, what its shape already ensures
// (`matched_last_first`, `interior_used_inside`, `replaces_in_order`, below): the driver then
// skips the work that would find it out, and debug builds check the promise instead.
//
// Safety is derived from the rule's matched nodes, not written by hand on each node:
//   - an interior matched node (not the root) that has a user outside the match is refused,
//     because the rewrite would have to keep it alive and compute it twice; a rule that wants
//     this anyway says `static constexpr bool allows_shared_interior = true;`
//   - a match whose nodes lie in different mutation regions (a node that writes an argument,
//     `Tensor(a!)` in its schema or an `out=` kwarg, lies between them) is refused, as
//     Inductor's `prevent_match_across_mutations` does.
#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "../graph/graph.hpp"
#include "../pattern/first_test.hpp"

namespace ctmatch {

class RewriteBuilder;

/// Why a rule did not match or was refused, filled only in explain mode.
struct Reason {
  std::string text;
  void say(std::string_view s) {
    if (!text.empty()) text += "; ";
    text += s;
  }
};

/// A small fixed-capacity list of the nodes a match covers (no allocation per attempt).
/// Hand-written rules use it in their match_type; N is the pattern's node count.
template <std::size_t N>
struct MatchedNodes {
  std::array<NodeId, N> ids{};
  std::uint8_t count = 0;
  void push(NodeId id) { ids[count++] = id; }
  void clear() { count = 0; }
  std::span<const NodeId> span() const { return {ids.data(), count}; }
};

namespace detail {
template <class T>
struct root_array : std::false_type {};
template <std::size_t N>
struct root_array<std::array<NodeId, N>> : std::bool_constant<(N >= 2)> {
  static constexpr std::size_t size = N;
};
}  // namespace detail

/// replace() gives the node that takes the root's uses.
template <class R>
concept replaces_one_root = requires(const R& r, const typename R::match_type& cm, RewriteBuilder& b) {
  { r.replace(b, cm) } -> std::same_as<NodeId>;
};
/// replace() gives one node per root, and root_nodes() says which the roots are.
template <class R>
concept replaces_roots = requires(const R& r, const typename R::match_type& cm, RewriteBuilder& b) {
  requires detail::root_array<decltype(r.replace(b, cm))>::value;
  { r.root_nodes(cm) } -> std::same_as<decltype(r.replace(b, cm))>;
};

template <class R>
concept Rule = requires(const R& r, const Graph& g, NodeId n, typename R::match_type& m,
                        const typename R::match_type& cm, Reason* why) {
  { r.name() } -> std::convertible_to<std::string_view>;
  { r.root_ops() } -> std::convertible_to<std::span<const OpId>>;
  { r.match(g, n, m, why) } -> std::same_as<bool>;
  { r.matched_nodes(cm) } -> std::convertible_to<std::span<const NodeId>>;
} && (replaces_one_root<R> || replaces_roots<R>);

/// How many roots the rule replaces: 1, or N for a rule whose replace returns N nodes.
template <class R>
constexpr std::size_t root_count() {
  using T = decltype(std::declval<const R&>().replace(std::declval<RewriteBuilder&>(),
                                                        std::declval<const typename R::match_type&>()));
  if constexpr (detail::root_array<T>::value) return detail::root_array<T>::size;
  else return 1;
}

/// Whether the rule opted out of the "no users outside the match" check on interior nodes.
template <class R>
constexpr bool allows_shared_interior() {
  if constexpr (requires { R::allows_shared_interior; })
    return static_cast<bool>(R::allows_shared_interior);
  else
    return false;
}

/// The rule's might_match(g, root), or true when it has none.
template <class R>
bool might_match(const R& rule, const Graph& g, NodeId root) {
  if constexpr (requires { { rule.might_match(g, root) } -> std::same_as<bool>; })
    return rule.might_match(g, root);
  else
    return true;
}

/// The rule's first_test(), or none.
template <class R>
pattern::FirstTest first_test(const R& rule) {
  if constexpr (requires { { rule.first_test() } -> std::same_as<pattern::FirstTest>; })
    return rule.first_test();
  else
    return {};
}

/// Whether the rule's matched_nodes() are known to be distinct, without no_node, and last
/// first in graph order already (a chain pattern's are): the driver then neither sorts nor
/// deduplicates them.
template <class R>
constexpr bool matched_last_first() {
  if constexpr (requires { R::matched_last_first; })
    return static_cast<bool>(R::matched_last_first);
  else
    return false;
}

/// Whether the rule's match already ensures that interior matched nodes have no users outside
/// the match (a chain whose interior calls each require exactly one user: the call above): the
/// driver's check of that then cannot fail, and only debug builds run it.
template <class R>
constexpr bool interior_used_inside() {
  if constexpr (requires { R::interior_used_inside; })
    return static_cast<bool>(R::interior_used_inside);
  else
    return false;
}

/// Whether the rule's replacement is known to come in order: every node it creates uses only
/// nodes before the root or made before it, and what it returns comes before the root's users.
/// The driver's check of that (rewrite/apply.hpp) then cannot fail, and only debug builds run it.
template <class R>
constexpr bool replaces_in_order() {
  if constexpr (requires { R::replaces_in_order; })
    return static_cast<bool>(R::replaces_in_order);
  else
    return false;
}

}  // namespace ctmatch
