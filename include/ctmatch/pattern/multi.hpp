#pragma once
// Multi-root patterns: several roots that share inputs, e.g. the outputs of one split.
//
//   multi(getitem(split_with_sizes("x"_x, slot<"sizes", IntList>).named<"s">(), 0),
//         getitem("s"_x, 1))
//
// The first root is matched at the candidate node. Every further root must take, as one of its
// arguments, a placeholder naming a node bound by the roots before it (here "s"); it is
// matched against the users of that node, in users order, and the first user that matches
// (and is not already part of the match) is taken: roots are matched greedily, one after the
// other, without revisiting an earlier root's choice. Getting the k-th output of a
// multi-result node is `getitem(node_pattern, k)` (aten.hpp declares `getitem`).
#include <boost/mp11/algorithm.hpp>

#include "call.hpp"

namespace ctmatch::pattern {

namespace detail {
template <class E>
struct placeholder_name {
  using type = void;
};
template <class N>
struct placeholder_name<Placeholder<N>> {
  using type = N;
};
template <class A>
using arg_placeholder = typename placeholder_name<typename A::elem>::type;
template <class T>
using is_not_void = std::bool_constant<!std::is_void_v<T>>;

/// The placeholder through which a further root reaches the nodes bound before it.
template <class R>
struct anchor_of {
  using type = void;
};
template <class OpT, class Opts, class Label, class... A>
struct anchor_of<Call<OpT, Opts, Label, A...>> {
  using names = mp::mp_copy_if<mp::mp_list<arg_placeholder<A>...>, is_not_void>;
  using type = mp::mp_eval_if_c<mp::mp_empty<names>::value, void, mp::mp_front, names>;
};
template <class E, class F>
struct anchor_of<Where<E, F>> : anchor_of<E> {};
}  // namespace detail

template <class... R>
struct Multi : element<Multi<R...>> {
  static_assert(sizeof...(R) >= 2, "ctmatch: multi() needs at least two roots");
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
    using anchor = typename detail::anchor_of<Rk>::type;
    static_assert(!std::is_void_v<anchor>,
                  "ctmatch: multi(): every further root needs a placeholder argument naming a "
                  "node bound by an earlier root, e.g. getitem(\"s\"_x, 1)");
    using earlier = mp::mp_apply<mp::mp_append, mp::mp_transform<root_bindings, mp::mp_take_c<mp::mp_list<R...>, K>>>;
    if constexpr (!mp::mp_contains<earlier, binding<anchor, NodeId>>::value)
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
constexpr Multi<R...> multi(const R&... r) {
  return Multi<R...>(r...);
}

}  // namespace ctmatch::pattern
