#pragma once
// Elements made of elements.
//
//   a | b | c          alternatives (also any_of(a, b, c)): tried in order; a failed one leaves
//                      no binding behind (the state is restored). Names bound in only some
//                      alternatives are bound after the match only when that alternative
//                      matched (Match::has<"name">()).
//   list(a, b, ...)    a list argument (`Tensor[]`, `int[]`, ...) of exactly these elements
//   each(e)            a list argument of any length whose every element matches e (variadic
//                      operands: `cat(each("x"_x), 0)` is a cat of one node repeated). e may
//                      hold op calls (Inductor's ListOf): `cat(each(getitem("s"_x, _)), 1)` is a
//                      cat of getitems of one node "s"; every element's nodes belong to the
//                      match (erased with it, safety-checked, listed by Match::matched_nodes()),
//                      and names in e must bind the same thing in every element. To bind the
//                      operands themselves, use a list slot: `cat(slot<"xs", TensorList>, _)`.
#include <cstdint>
#include <string>
#include <vector>

#include <boost/mp11/algorithm.hpp>

#include "leaf.hpp"

namespace ctmatch::pattern {

// ---- alternatives --------------------------------------------------------------------------
template <class... E>
struct AnyOf : element<AnyOf<E...>> {
  static_assert(sizeof...(E) >= 1);
  Pack<E...> alts;
  constexpr explicit AnyOf(const E&... e) : alts(e...) {}

  static constexpr std::size_t calls = (E::calls + ... + 0);
  static constexpr bool branches = true;
  static constexpr auto offsets = detail::call_offsets<E...>();
  template <std::uint32_t TC>
  static constexpr bool check() { return (E::template check<TC>() && ...); }
  template <std::uint32_t TC>
  using bindings = mp::mp_append<typename E::template bindings<TC>...>;

  template <std::uint32_t TC, std::size_t Off, class Ctx>
  bool match(Ctx& c, const Value* v) const {
    const auto saved = c.st;
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return (match_alt<K, TC, Off>(c, saved, v) || ...);
    }(std::index_sequence_for<E...>{});
  }
  template <std::uint32_t TC, std::size_t Off, class Ctx>
  const Value& observed(Ctx&, const Value* v) const { return *v; }

  // As a root: every alternative must be root-capable (an op call).
  static constexpr std::size_t root_op_count = (E::root_op_count + ... + 0);
  static void root_ops(OpId* out) {
    std::size_t i = 0;
    ((E::root_ops(out + i), i += E::root_op_count), ...);
  }
  template <std::size_t Off>
  static constexpr void mark_roots(bool* r) {
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (E::template mark_roots<Off + offsets.v[K]>(r), ...);
    }(std::index_sequence_for<E...>{});
  }
  template <std::size_t Off, class Ctx>
  bool match_root(Ctx& c, NodeId id) const {
    const auto saved = c.st;
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return (match_root_alt<K, Off>(c, saved, id) || ...);
    }(std::index_sequence_for<E...>{});
  }

 private:
  // Alternative K; on failure the state is restored for the next one. (Members rather than
  // lambdas inside the fold: nvcc's front end cannot expand a pack inside a nested lambda.)
  template <std::size_t K, std::uint32_t TC, std::size_t Off, class Ctx, class S>
  bool match_alt(Ctx& c, const S& saved, const Value* v) const {
    if (pget<K>(alts).template match<TC, Off + offsets.v[K]>(c, v)) return true;
    c.st = saved;
    return false;
  }
  template <std::size_t K, std::size_t Off, class Ctx, class S>
  bool match_root_alt(Ctx& c, const S& saved, NodeId id) const {
    if (pget<K>(alts).template match_root<Off + offsets.v[K]>(c, id)) return true;
    c.st = saved;
    return false;
  }
};

template <Element A, Element B>
constexpr AnyOf<A, B> operator|(const A& a, const B& b) {
  return AnyOf<A, B>(a, b);
}
template <Element... E>
constexpr AnyOf<E...> any_of(const E&... e) {
  return AnyOf<E...>(e...);
}

// ---- lists ---------------------------------------------------------------------------------
template <class... E>
struct ListPattern : element<ListPattern<E...>> {
  Pack<E...> elems;
  constexpr explicit ListPattern(const E&... e) : elems(e...) {}

  static constexpr std::size_t calls = (E::calls + ... + 0);
  static constexpr bool branches = (E::branches || ...);
  static constexpr auto offsets = detail::call_offsets<E...>();
  template <std::uint32_t TC>
  static constexpr bool check() {
    static_assert(detail::is_list_code(TC) || detail::is_any_code(TC),
                  "ctmatch: list(...) is used where the schema argument is not a list");
    return (E::template check<detail::elem_code(TC)>() && ...);
  }
  template <std::uint32_t TC>
  using bindings = mp::mp_append<typename E::template bindings<detail::elem_code(TC)>...>;

  template <std::uint32_t TC, std::size_t Off, class Ctx>
  bool match(Ctx& c, const Value* v) const {
    const std::vector<Value>* items = v ? v->items() : nullptr;
    if (!items || items->size() != sizeof...(E)) {
      return no_match(c, FailureKind::List,
                      Text::str("a list of ").with_count(sizeof...(E)),
                      Text::str({}).with_typed_value(v));
    }
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return (match_item<K, detail::elem_code(TC), Off + offsets.v[K]>(c, &(*items)[K]) && ...);
    }(std::index_sequence_for<E...>{});
  }
  template <std::uint32_t TC, std::size_t Off, class Ctx>
  const Value& observed(Ctx&, const Value* v) const { return *v; }

 private:
  template <std::size_t K, std::uint32_t EC, std::size_t Off, class Ctx>
  bool match_item(Ctx& c, const Value* item) const {
    if constexpr (Ctx::explaining) c.sink.enter_index(K);
    bool ok = pget<K>(elems).template match<EC, Off>(c, item);
    if constexpr (Ctx::explaining) c.sink.leave_arg();
    return ok;
  }
};

template <class... A>
constexpr auto list(const A&... a) {
  return ListPattern<detail::element_t<A>...>(detail::as_element(a)...);
}

template <class E>
struct Each : element<Each<E>> {
  E elem;
  constexpr explicit Each(const E& e) : elem(e) {}

  // e's op calls have node slots, which hold the last element's nodes after a match; every
  // element's are also appended to the state's list_nodes.
  static constexpr std::size_t calls = E::calls;
  // An empty list matches no element: e's node slots and names may stay unbound, as in an
  // alternative that was not taken.
  static constexpr bool branches = E::branches || E::calls > 0;
  template <std::uint32_t TC>
  static constexpr bool check() {
    static_assert(detail::is_list_code(TC) || detail::is_any_code(TC),
                  "ctmatch: each(...) is used where the schema argument is not a list");
    return E::template check<detail::elem_code(TC)>();
  }
  // Listed twice: e is matched once per element, so each name in it repeats (a later
  // element compares with what the first bound).
  template <std::uint32_t TC>
  using bindings = mp::mp_append<typename E::template bindings<detail::elem_code(TC)>,
                                 typename E::template bindings<detail::elem_code(TC)>>;

  template <std::uint32_t TC, std::size_t Off, class Ctx>
  bool match(Ctx& c, const Value* v) const {
    const std::vector<Value>* items = v ? v->items() : nullptr;
    if (!items) {
      return no_match(c, FailureKind::List, Text::str("a list"), Text::str({}).with_typed_value(v));
    }
    for (std::size_t i = 0; i < items->size(); ++i) {
      if constexpr (Ctx::explaining) c.sink.enter_index(i);
      bool ok = elem.template match<detail::elem_code(TC), Off>(c, &(*items)[i]);
      if constexpr (Ctx::explaining) c.sink.leave_arg();
      if (!ok) return false;
      if constexpr (E::calls > 0)
        for (std::size_t k = 0; k < E::calls; ++k)
          if (c.st.nodes[Off + k] != no_node) c.st.list_nodes.push_back(c.st.nodes[Off + k]);
    }
    return true;
  }
  template <std::uint32_t TC, std::size_t Off, class Ctx>
  const Value& observed(Ctx&, const Value* v) const { return *v; }
};

template <class A>
constexpr auto each(const A& a) {
  return Each<detail::element_t<A>>(detail::as_element(a));
}

}  // namespace ctmatch::pattern
