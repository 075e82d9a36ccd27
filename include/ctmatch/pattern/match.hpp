#pragma once
// Matching a pattern at a node, and the typed result.
//
//   if (auto m = match(pattern, graph, node)) {
//     DType d = m->get<"dtype">();        // typed; a name the pattern never binds: compile error
//     NodeId a = m->get<"a">();           // Tensor placeholders and .named<> calls: the node
//     const Value& v = m->get<"v">();     // other placeholders and slot<"v", Value>
//     const Node& r = m->root_node();     // every arg and kwarg of the matched root, typed
//     for (const Kwarg& k : r.kwargs()) ...   // including kwargs the pattern never named
//   }
//
// Node order: Match holds one entry per op call of the pattern, in pre-order as written: the
// root first, then the op calls inside its arguments, in the order the arguments are written
// in the call, depth first (alternatives: each alternative's calls in turn; multi(): each
// root's calls in turn). An entry is no_node when its op call was in an alternative that did
// not match. node_ids()[i] is that entry, is_root(i) says whether entry i is a root (multi()
// has several); all other matched entries are interior nodes. A graph node may appear twice
// when two op calls of the pattern match it (add(relu(x), relu(x)) on add(r, r)).
//
// What a rewrite layer uses:
//   root_ops(p)                     the OpIds a root must have (dispatch tables by OpId)
//   match(p, g, n) / match_into(p, g, n, m)   try once; match_into refills m in place
//   pattern_bindings<P>, bound_names<P>       type-level lists (Mp11) of binding<name<"a">, T>
//                                   and of name<"a">: what a replacement may use
//   Match<P>::node_ids(), is_root(i), root()  the matched nodes
//   extra_check(p, f)               f(const Match<...>&) must return true (run last)
//   extra_check(p, check<"a">(f), ...)  named parts, tried in order; explain() names the failing one
//   explain(p, g, n)                explain.hpp: why not
//
// One attempt costs no allocation, no std::function, no string compare and no second run:
// the bindings are written straight into the Match while matching.
#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <type_traits>

#include <boost/mp11/algorithm.hpp>

#include "multi.hpp"

namespace ctmatch::pattern {

/// How many roots a pattern has: a multi()'s count, else 1.
template <class P>
constexpr std::size_t root_count_of() {
  if constexpr (requires { P::root_count; }) return P::root_count;
  else return 1;
}

// ---- whole-pattern options -----------------------------------------------------------------
/// What extra_check and single_use wrap around a pattern: it matches exactly as P does; what
/// the wrapper adds is read by the driver (detail::run), not by the matcher.
template <class D, class P>
struct WholePattern : element<D> {
  P inner;
  constexpr explicit WholePattern(P p) : inner(p) {}

  static constexpr std::size_t root_count = root_count_of<P>();
  static constexpr std::size_t calls = P::calls;
  static constexpr bool branches = P::branches;
  template <std::uint32_t TC>
  static constexpr bool check() { return P::template check<TC>(); }
  template <std::uint32_t TC>
  using bindings = typename P::template bindings<TC>;
  static constexpr std::size_t root_op_count = P::root_op_count;
  static void root_ops(OpId* out) { P::root_ops(out); }
  template <std::size_t Off>
  static constexpr void mark_roots(bool* r) { P::template mark_roots<Off>(r); }
  template <std::size_t Off, class Ctx>
  bool match_root(Ctx& c, NodeId id) const { return inner.template match_root<Off>(c, id); }
};

// ---- extra_check ---------------------------------------------------------------------------
/// A whole-pattern check: `f(const Match<Checked<P, F>>& m)` (or `f(m, graph)`) runs after the
/// structure matched and must return true. Only at the top of a pattern.
template <class P, class F>
struct Checked : WholePattern<Checked<P, F>, P> {
  F check_fn;
  constexpr Checked(P p, F f) : WholePattern<Checked<P, F>, P>{p}, check_fn(f) {}
};

template <class P, class F>
constexpr Checked<P, F> extra_check(const P& p, F f) {
  return Checked<P, F>(p, f);
}

// ---- single_use -----------------------------------------------------------------------------
/// The whole-pattern option of XLA's MatchSingleUserOnly: every op call below the root has
/// exactly one user (the call above it), except a call given its own `.users<N>()`; the root
/// may have any. Instead of `.users<1>()` on every interior call. Only at the top of a pattern
/// (around an extra_check too).
template <class P>
struct SingleUse : WholePattern<SingleUse<P>, P> {
  constexpr explicit SingleUse(P p) : WholePattern<SingleUse<P>, P>{p} {}
};

template <class P>
constexpr auto single_use(const P& p) {
  if constexpr (requires { p.check_fn; })  // keep the extra_check outermost: it runs after the structure
    return extra_check(SingleUse<decltype(p.inner)>(p.inner), p.check_fn);
  else
    return SingleUse<P>(p);
}

/// One named part of an extra_check: `check<"bias has mm's dtype">(f)`. When a part fails,
/// explain() names it, so a check written as parts says which of them did not hold.
template <fixed_string Name, class F>
struct NamedCheck {
  F fn;
  static constexpr std::string_view name = Name.view();
};
template <fixed_string Name, class F>
constexpr NamedCheck<Name, F> check(F f) {
  return NamedCheck<Name, F>{f};
}
/// The parts of an extra_check, run in order until one fails.
template <class... Parts>
struct CheckParts {
  std::tuple<Parts...> parts;
};
/// `extra_check(p, check<"a">(f), check<"b">(g), ...)`: every part must hold, tried in order.
template <class P, class Part1, class Part2, class... Parts>
constexpr auto extra_check(const P& p, Part1 a, Part2 b, Parts... rest) {
  using C = CheckParts<Part1, Part2, Parts...>;
  return Checked<P, C>(p, C{{a, b, rest...}});
}

namespace detail {
/// Whether P is a chain of plain op calls: each has at most one argument holding op calls, and
/// that argument is itself such a call (no alternatives, lists or several roots on the way).
template <class P>
struct is_chain : std::false_type {
  static constexpr bool single_users = false, single_users_here = false;
};
template <class P, class F>
struct is_chain<Checked<P, F>> : is_chain<P> {};
template <class OpT, class Opts, class Label, class... A>
struct is_chain<Call<OpT, Opts, Label, A...>> {
  static constexpr std::size_t with_calls = ((A::elem::calls > 0 ? 1 : 0) + ... + 0);
  static constexpr bool value =
      with_calls == 0 || (with_calls == 1 && ((A::elem::calls == 0 || is_chain<typename A::elem>::value) && ...));
  // single_users: a chain whose calls below this one each require exactly one user
  // (`.users<1>()`); single_users_here: and this call too.
  static constexpr bool single_users =
      value && ((A::elem::calls == 0 || is_chain<typename A::elem>::single_users_here) && ...);
  static constexpr bool single_users_here = Opts::users == 1 && single_users;
};

inline constexpr std::uint32_t root_code = static_cast<std::uint32_t>(schema::BaseType::Tensor);
template <class F>
struct is_named_check : std::false_type {};
template <fixed_string Name, class F>
struct is_named_check<NamedCheck<Name, F>> : std::true_type {};
template <class F>
struct is_check_parts : std::false_type {};
template <class... Parts>
struct is_check_parts<CheckParts<Parts...>> : std::true_type {};
template <class P>
struct is_chain<SingleUse<P>> : is_chain<P> {};
template <class P>
struct is_single_use : std::false_type {};
template <class P>
struct is_single_use<SingleUse<P>> : std::true_type {};
template <class P, class F>
struct is_single_use<Checked<P, F>> : is_single_use<P> {};
/// Whether some each(e) of the pattern holds an op call: its match then keeps list_nodes.
template <class E>
struct has_list_calls : std::false_type {};
template <class E>
struct has_list_calls<Each<E>> : std::bool_constant<(E::calls > 0)> {};
template <class OpT, class Opts, class Label, class... A>
struct has_list_calls<Call<OpT, Opts, Label, A...>> : std::disjunction<has_list_calls<typename A::elem>...> {};
template <class... E>
struct has_list_calls<AnyOf<E...>> : std::disjunction<has_list_calls<E>...> {};
template <class... E>
struct has_list_calls<ListPattern<E...>> : std::disjunction<has_list_calls<E>...> {};
template <class... R>
struct has_list_calls<Multi<R...>> : std::disjunction<has_list_calls<R>...> {};
template <class E, class F>
struct has_list_calls<Where<E, F>> : has_list_calls<E> {};
template <class P, class F>
struct has_list_calls<Checked<P, F>> : has_list_calls<P> {};
template <class P>
struct has_list_calls<SingleUse<P>> : has_list_calls<P> {};

template <class P>
struct is_checked : std::false_type {};
template <class P, class F>
struct is_checked<Checked<P, F>> : std::true_type {};
}  // namespace detail

/// The distinct names a pattern binds, with their stored types: mp_list<binding<name<"a">, T>...>.
template <class P>
using pattern_bindings = typename detail::unique_bindings<typename P::template bindings<detail::root_code>>::type;
/// The names a pattern binds: mp_list<name<"a">...>.
template <class P>
using bound_names = names_of<pattern_bindings<P>>;
/// Whether pattern P binds `"s"`.
template <class P, fixed_string S>
inline constexpr bool binds = mp::mp_contains<bound_names<P>, name<S>>::value;

/// The OpIds the root of `p` may have (one per alternative at the root).
template <class P>
std::array<OpId, P::root_op_count> root_ops(const P&) {
  static_assert(P::root_op_count > 0, "ctmatch: a pattern's root must be an op call");
  std::array<OpId, P::root_op_count> out{};
  P::root_ops(out.data());
  return out;
}

template <class P>
class Match {
 public:
  using pattern_type = P;
  using bindings = pattern_bindings<P>;
  using names = names_of<bindings>;
  static constexpr std::size_t node_count = P::calls;
  /// Whether an each(e) holds op calls: the match then covers a number of nodes known only
  /// at match time (matched_nodes()).
  static constexpr bool has_lists = detail::has_list_calls<P>::value;
  static_assert(P::root_op_count > 0, "ctmatch: a pattern's root must be an op call");
  static_assert(detail::check_distinct<typename P::template bindings<detail::root_code>>());

  Match() = default;
  explicit Match(const Graph& g) : graph_(&g) {}

  /// The value bound to "name": NodeId (Tensor placeholders, .named<> calls), const Value&
  /// (other placeholders, Value slots), or the slot's type.
  template <fixed_string S>
  decltype(auto) get() const {
    constexpr std::size_t i = mp::mp_find<names, name<S>>::value;
    if constexpr (i >= mp::mp_size<names>::value) {
      (void)errors::report<errors::no_such_name<name<S>>>();
    } else {
      const auto& v = binding_value<name<S>>(state_.b);
      using T = std::remove_cvref_t<decltype(v)>;
      if constexpr (std::is_same_v<T, ValueRef>) return static_cast<const Value&>(*v.p);
      else return T(v);
    }
  }
  /// Whether "name" was bound by this match (false only for names of alternatives that did
  /// not match).
  template <fixed_string S>
  bool has() const {
    constexpr std::size_t i = mp::mp_find<names, name<S>>::value;
    if constexpr (i >= mp::mp_size<names>::value) return errors::report<errors::no_such_name<name<S>>>();
    else if constexpr (!P::branches) return true;  // every name is bound by every match
    else return (state_.b.bound >> i) & 1u;
  }

  /// The node the pattern was matched at.
  NodeId root() const { return root_; }
  const Node& root_node() const { return (*graph_)[root_]; }
  /// Every pattern op call's node, in the order documented above (an each(e)'s calls: the
  /// last element's nodes).
  std::span<const NodeId, node_count> node_ids() const { return state_.nodes; }
  /// Every node the match covers: node_ids(), and with each(e) lists every element's nodes
  /// (then in match order, possibly twice, no_node left out).
  std::span<const NodeId> matched_nodes() const {
    if constexpr (has_lists) return state_.list_nodes;
    else return state_.nodes;
  }
  const Node& node(std::size_t i) const { return (*graph_)[state_.nodes[i]]; }
  /// Whether node entry i is a root of the pattern (else it is interior).
  static constexpr bool is_root(std::size_t i) { return root_mask[i]; }
  /// How many roots the pattern has (multi(): one per root pattern), and the nodes they
  /// matched, in the order the roots are written (the candidate node first).
  static constexpr std::size_t root_count = root_count_of<P>();
  std::array<NodeId, root_count> root_nodes() const {
    std::array<NodeId, root_count> out;
    out.fill(no_node);
    std::size_t k = 0;
    for (std::size_t i = 0; i < node_count && k < root_count; ++i)
      if (is_root(i) && state_.nodes[i] != no_node) out[k++] = state_.nodes[i];
    return out;
  }
  /// Whether the pattern is a chain (each op call has at most one op call among its arguments;
  /// no alternatives, lists or further roots): node_ids() of a match are then distinct and in
  /// reverse graph order, each an input of the one before.
  static constexpr bool nodes_in_chain = !P::branches && detail::is_chain<P>::value;
  /// Whether, moreover, every op call below the root requires exactly one user: the call above
  /// it, inside the match. Interior nodes then have no users outside the match.
  static constexpr bool interior_used_inside = nodes_in_chain && detail::is_chain<P>::single_users;
  const Graph& graph() const { return *graph_; }

  // The matcher's state; written by match_into.
  State<bindings, node_count, has_lists> state_{};
  const Graph* graph_ = nullptr;
  NodeId root_ = no_node;

 private:
  static constexpr std::array<bool, node_count> root_mask = [] {
    bool r[node_count > 0 ? node_count : 1] = {};
    P::template mark_roots<0>(r);
    std::array<bool, node_count> a{};
    for (std::size_t i = 0; i < node_count; ++i) a[i] = r[i];
    return a;
  }();
};

namespace detail {
template <class F, class M>
bool call_check(const F& f, const M& m, const Graph& g) {
  if constexpr (std::is_invocable_v<const F&, const M&, const Graph&>) return f(m, g);
  else return f(m);
}
/// An extra_check: a plain function, one named part, or parts tried in order; a failure
/// names the part that did not hold.
template <class F, class M, class Sink>
bool run_check(const F& f, const M& m, const Graph& g, Sink& sink) {
  if constexpr (is_named_check<F>::value) {
    if (call_check(f.fn, m, g)) return true;
    if constexpr (Sink::enabled)
      sink.report(FailureKind::Check, Text::str("the check '", F::name, "' to hold"), Text::str("false"));
    return false;
  } else if constexpr (is_check_parts<F>::value) {
    return std::apply([&](const auto&... part) { return (run_check(part, m, g, sink) && ...); }, f.parts);
  } else {
    if (call_check(f, m, g)) return true;
    if constexpr (Sink::enabled) sink.report(FailureKind::Check, Text::str("extra_check to hold"), Text::str("false"));
    return false;
  }
}

template <class P, class Sink>
bool run(const P& p, const Graph& g, NodeId id, Match<P>& m, Sink& sink) {
  m.graph_ = &g;
  m.root_ = id;
  using repeated = typename repeated_names<typename P::template bindings<root_code>>::type;
  if constexpr (P::branches || !mp::mp_empty<repeated>::value) m.state_.b.bound = 0;
  if constexpr (P::branches) m.state_.nodes.fill(no_node);  // else every slot is written
  constexpr bool lists = Match<P>::has_lists;
  if constexpr (lists) m.state_.list_nodes.clear();
  Context<typename Match<P>::bindings, Match<P>::node_count, Sink, repeated, P::branches, is_single_use<P>::value,
          lists>
      c{g, m.state_, sink};
  if (!p.template match_root<0>(c, id)) return false;
  if constexpr (lists)  // matched_nodes(): the fixed slots too
    for (NodeId n : m.state_.nodes)
      if (n != no_node) m.state_.list_nodes.push_back(n);
  if constexpr (is_checked<P>::value) return run_check(p.check_fn, m, g, sink);
  return true;
}
}  // namespace detail

/// Matches `p` with its root at node `id`, writing into `m` (reusable: no allocation).
template <class P>
bool match_into(const P& p, const Graph& g, NodeId id, Match<P>& m) {
  NoExplain sink;
  return detail::run(p, g, id, m, sink);
}

/// Matches `p` with its root at node `id`.
template <class P>
std::optional<Match<P>> match(const P& p, const Graph& g, NodeId id) {
  std::optional<Match<P>> m(std::in_place);
  if (!match_into(p, g, id, *m)) m.reset();
  return m;
}

/// get<"name">(m): m.get<"name">() written so that generic code (a lambda taking `const auto&
/// m`) needs no `m.template get<...>()`. Found by argument-dependent lookup.
template <fixed_string S, class M>
  requires requires(const M& m) { m.template get<S>(); }
decltype(auto) get(const M& m) {
  return m.template get<S>();
}

}  // namespace ctmatch::pattern
