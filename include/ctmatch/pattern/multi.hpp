#pragma once
// Multi-root patterns: several roots that share inputs, e.g. the outputs of one split.
//
//   multi(getitem(split_with_sizes("x"_x, slot<"sizes", IntList>).named<"s">(), 0),
//         getitem("s"_x, 1))
//
// The first root is matched at the candidate node. Every further root must take, as one of its
// arguments or an element of a list(...) argument, a placeholder naming a node bound by the
// roots before it (here "s"; the first such placeholder is the anchor); it is matched against
// the users of that node, in users order, and the first user that matches (and is not already
// part of the match) is taken: roots are matched greedily, one after the other, without
// revisiting an earlier root's choice. Getting the k-th output of a multi-result node is
// `getitem(node_pattern, k)` (aten.hpp declares `getitem`).
//
// A further root may also be just a placeholder naming an op call an earlier root matched, an
// interior node whose value the program also uses elsewhere (Inductor's MultiOutputPattern
// lists such nodes as outputs):
//
//   multi(attention(aten::permute("key"_x, _).named<"key_t">().users<2>(), ...), "key_t"_x)
//
// That node is then a root too: the replacement gives it a node of its own, which takes its
// uses, and it is erased with the rest of the match.
#include <boost/mp11/algorithm.hpp>

#include "call.hpp"
#include "combinators.hpp"

namespace ctmatch::pattern {

namespace detail {
/// The names of the placeholders an argument is or lists: candidates for a root's anchor.
template <class E>
struct placeholders_in {
  using type = mp::mp_list<>;
};
template <class N>
struct placeholders_in<Placeholder<N>> {
  using type = mp::mp_list<N>;
};
template <class... E>
struct placeholders_in<ListPattern<E...>> {
  using type = mp::mp_append<typename placeholders_in<E>::type...>;
};

/// A root's placeholder arguments, in order, list elements included.
template <class R>
struct root_placeholders {
  using type = mp::mp_list<>;
};
template <class OpT, class Opts, class Label, class... A>
struct root_placeholders<Call<OpT, Opts, Label, A...>> {
  using type = mp::mp_append<typename placeholders_in<typename A::elem>::type...>;
};
template <class E, class F>
struct root_placeholders<Where<E, F>> : root_placeholders<E> {};

/// The anchor of a further root: the first of its placeholders that names a node bound by an
/// earlier root (`Earlier`, their bindings); its first placeholder when none does (an error).
template <class Earlier>
struct bound_earlier {
  template <class N>
  using fn = mp::mp_contains<Earlier, binding<N, NodeId>>;
};
template <class Names, class Earlier>
struct anchor_of {
  using found = mp::mp_find_if_q<Names, bound_earlier<Earlier>>;
  using type = mp::mp_eval_if_c<found::value == mp::mp_size<Names>::value, mp::mp_front<Names>, mp::mp_at, Names, found>;
};
}  // namespace detail

/// A further root that is a node an earlier root bound (a placeholder given to multi()): one
/// node entry, the bound node, marked as a root; it matches nothing by itself.
template <class Name>
struct BoundRoot : element<BoundRoot<Name>> {
  constexpr explicit BoundRoot(const Placeholder<Name>&) {}
  static constexpr std::size_t calls = 1;
  template <std::uint32_t TC>
  static constexpr bool check() { return true; }
  template <std::uint32_t TC>
  using bindings = mp::mp_list<>;
  template <std::size_t Off>
  static constexpr void mark_roots(bool* r) { r[Off] = true; }
};
namespace detail {
template <class R>
struct as_root {
  using type = R;
};
template <class N>
struct as_root<Placeholder<N>> {
  using type = BoundRoot<N>;
};
template <class R>
struct is_bound_root : std::false_type {};
template <class N>
struct is_bound_root<BoundRoot<N>> : std::true_type {};
template <class R>
struct bound_root_name;
template <class N>
struct bound_root_name<BoundRoot<N>> {
  using type = N;
};
}  // namespace detail

template <class... R>
struct Multi : element<Multi<R...>> {
  static_assert(sizeof...(R) >= 2, "ctmatch: multi() needs at least two roots");
  static_assert(!detail::is_bound_root<mp::mp_front<mp::mp_list<R...>>>::value,
                "ctmatch: multi(): the first root must be an op call (a placeholder root names a node it binds)");
  Pack<R...> roots;
  constexpr explicit Multi(const R&... r) : roots(r...) {}

  static constexpr std::uint32_t tensor_code = static_cast<std::uint32_t>(schema::BaseType::Tensor);
  static constexpr std::size_t root_count = sizeof...(R);
  static constexpr std::size_t calls = (R::calls + ... + 0);
  static constexpr bool branches = (R::branches || ...);
  static constexpr auto offsets = detail::call_offsets<R...>();
  template <std::uint32_t TC>
  static constexpr bool check() { return (R::template check<tensor_code>() && ...); }
  template <std::uint32_t TC>
  using bindings = mp::mp_append<typename R::template bindings<tensor_code>...>;

  template <class Root>
  using root_bindings = typename Root::template bindings<tensor_code>;
  using first = mp::mp_front<mp::mp_list<R...>>;
  static constexpr std::size_t root_op_count = first::root_op_count;
  static void root_ops(OpId* out) { first::root_ops(out); }
  template <std::size_t Off>
  static constexpr void mark_roots(bool* r) {
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (R::template mark_roots<Off + offsets.v[K]>(r), ...);
    }(std::index_sequence_for<R...>{});
  }

  template <std::size_t Off, class Ctx>
  bool match_root(Ctx& c, NodeId id) const {
    if (!pget<0>(roots).template match_root<Off>(c, id)) return false;
    return [&]<std::size_t... K>(std::index_sequence<0, K...>) {
      return (match_further<K, Off + offsets.v[K]>(c) && ...);
    }(std::index_sequence_for<R...>{});
  }

 private:
  template <std::size_t K, std::size_t Off, class Ctx>
  bool match_further(Ctx& c) const {
    using Rk = mp::mp_at_c<mp::mp_list<R...>, K>;
    using Earlier = mp::mp_apply<mp::mp_append, mp::mp_transform<root_bindings, mp::mp_take_c<mp::mp_list<R...>, K>>>;
    if constexpr (detail::is_bound_root<Rk>::value) {
      using Name = typename detail::bound_root_name<Rk>::type;
      if constexpr (!mp::mp_contains<Earlier, binding<Name, NodeId>>::value) {
        (void)errors::report<errors::multi_anchor_not_bound_earlier<Name>>();
        return false;
      } else {
        // The name must be an op call of the match (`.named<>()`), not an input placeholder.
        const NodeId a = c.template bound<Name>();
        bool matched = false;
        for (std::size_t i = 0; i < Off; ++i) matched |= c.st.nodes[i] == a;
        if (!matched)
          return no_match(c, FailureKind::NotANode, Text::str("an op call of the match named '", Name::value, "'"),
                          Text::str({}).with_node_name(a));
        c.st.nodes[Off] = a;
        return true;
      }
    } else {
      return match_further_call<K, Off, Rk, Earlier>(c);
    }
  }
  /// A further root that is an op call: matched among the users of its anchor.
  template <std::size_t K, std::size_t Off, class Rk, class Earlier, class Ctx>
  bool match_further_call(Ctx& c) const {
    using names = typename detail::root_placeholders<Rk>::type;
    static_assert(!mp::mp_empty<names>::value,
                  "ctmatch: multi(): every further root needs a placeholder argument naming a "
                  "node bound by an earlier root, e.g. getitem(\"s\"_x, 1)");
    using anchor = typename detail::anchor_of<names, Earlier>::type;
    if constexpr (!mp::mp_contains<Earlier, binding<anchor, NodeId>>::value)
      (void)errors::report<errors::multi_anchor_not_bound_earlier<anchor>>();
    NodeId a = c.template bound<anchor>();
    const auto saved = c.st;
    for (NodeId u : c.g[a].users()) {
      bool used = false;
      for (NodeId m : c.st.nodes) used |= (m == u);
      if (used) continue;
      if (pget<K>(roots).template match_root<Off>(c, u)) return true;
      c.st = saved;
    }
    return no_match(c, FailureKind::Op,
                    Text::str("a user matching root ").with_count(K),
                    Text::str("no matching user of ").with_node_name(a));
  }
};

template <class... R>
constexpr auto multi(const R&... r) {
  return Multi<typename detail::as_root<R>::type...>(typename detail::as_root<R>::type(r)...);
}

}  // namespace ctmatch::pattern
