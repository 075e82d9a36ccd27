#pragma once
// What every pattern element is. Elements are tiny structs (LLVM PatternMatch style): most are
// empty, a constant holds its value, a predicate its function object. An element E offers
//   static constexpr std::size_t calls;             op-call nodes inside (Match's node slots)
//   static constexpr bool branches;                 alternatives inside (default false)
//   template <uint32_t TC> static constexpr bool check();  compile-time checks (static_assert)
//                                                   against the schema type code TC it is written at
//   template <uint32_t TC> using bindings = mp_list<binding<...>...>;  names it binds
//   template <uint32_t TC, size_t Off, class Ctx> bool match(Ctx&, const Value* v) const;
//        matches the argument value v (nullptr: absent without default); Off is the first node
//        slot its op calls use
//   template <uint32_t TC, size_t Off, class Ctx> decltype(auto) observed(Ctx&, const Value*) const;
//        what a where() predicate on it receives, after a successful match
// Root-capable elements (op calls and what wraps them) also offer match_root<Off>(Ctx&, NodeId),
// root_op_count, root_ops(OpId*) and mark_roots<Off>(bool*).
//
// Pack<E...> holds heterogeneous elements without std::tuple: one base class per element,
// indexed, so access is a static_cast and nothing is instantiated recursively.
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace ctmatch::pattern {

struct element_tag {};

template <class E, class F>
struct Where;

/// CRTP base of every element: gives where().
template <class D>
struct element : element_tag {
  /// Whether the element holds alternatives (so a match may leave node slots unused).
  static constexpr bool branches = false;
  /// Whether the element can stand for a schema argument of type code TC at all; a Call names
  /// the argument when one of its elements cannot (errors::argument_does_not_fit), before the
  /// element's own check says why.
  template <std::uint32_t TC>
  static constexpr bool fits_argument = true;
  /// The element, and then `pred` must hold on what it matched: a slot's typed value, an op
  /// call's `const Node&`, a Tensor placeholder's `const Node&`, otherwise the `const Value&`.
  /// `pred` may also take the Graph as second parameter.
  template <class F>
  constexpr Where<D, F> where(F pred) const {
    return Where<D, F>{static_cast<const D&>(*this), pred};
  }
};

template <class T>
concept Element = std::is_base_of_v<element_tag, T>;

template <std::size_t I, class E>
struct pack_cell {
  E value;  // not [[no_unique_address]]: g++ 12 mis-initializes nested constexpr packs with it
};
template <class Seq, class... E>
struct pack_impl;
template <std::size_t... I, class... E>
struct pack_impl<std::index_sequence<I...>, E...> : pack_cell<I, E>... {
  constexpr pack_impl() = default;
  constexpr explicit pack_impl(const E&... e) : pack_cell<I, E>{e}... {}
};
/// Heterogeneous storage of pattern elements, accessed with pget<I>(pack).
template <class... E>
using Pack = pack_impl<std::index_sequence_for<E...>, E...>;

template <std::size_t I, class E>
constexpr const E& pget(const pack_cell<I, E>& c) {
  return c.value;
}

namespace detail {
/// Prefix sums of the elements' op-call counts: the node slot offset of each child.
template <class... E>
constexpr auto call_offsets() {
  struct R {
    std::size_t v[sizeof...(E) + 1];
  } r{};
  std::size_t counts[] = {E::calls..., 0};
  for (std::size_t i = 0; i < sizeof...(E); ++i) r.v[i + 1] = r.v[i] + counts[i];
  return r;
}
template <class>
inline constexpr bool always_false = false;
}  // namespace detail

}  // namespace ctmatch::pattern
