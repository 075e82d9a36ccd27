#pragma once
// Multi-root patterns: several roots that share inputs, e.g. the outputs of one split.
//
//   multi(getitem(split_with_sizes("x"_x, slot<"sizes", IntList>).named<"s">(), 0),
//         getitem("s"_x, 1))
//
// The first root is matched at the candidate node. Every further root must hold, somewhere in
// its tree (an argument, a list(...) element, or deeper), a placeholder naming a node bound by
// the roots before it (here "s"): its anchor, the shallowest such placeholder (the first of
// equals, in argument order). The nodes that may be the root are found by walking up from the
// anchor's node through users, one level per op call on the way down from the root to the
// anchor, keeping only nodes that call that level's op (as Inductor's MultiOutputPattern
// searches from its anchors); each is tried in the order found, and the first that matches
// (and is not already part of the match) is taken: roots are matched greedily, one after the
// other, without revisiting an earlier root's choice. An anchor that is a direct argument
// makes the candidates the users of its node. Getting the k-th output of a multi-result node
// is `getitem(node_pattern, k)` (aten.hpp declares `getitem`).
//
// Inductor's training-form attention patterns need the deeper anchors: a gradient such as
// permute(view(bmm(permute(q_view), grad_scores))) reaches the nodes the forward root bound
// only three calls down.
//
// A further root may also be just a placeholder naming an op call an earlier root matched, an
// interior node whose value the program also uses elsewhere (Inductor's MultiOutputPattern
// lists such nodes as outputs):
//
//   multi(attention(aten::permute("key"_x, _).named<"key_t">().users<2>(), ...), "key_t"_x)
//
// That node is then a root too: the replacement gives it a node of its own, which takes its
// uses, and it is erased with the rest of the match.
#include <algorithm>
#include <array>
#include <vector>

#include <boost/mp11/algorithm.hpp>

#include "call.hpp"
#include "combinators.hpp"

namespace ctmatch::pattern {

namespace detail {
/// A placeholder in a further root's tree: its name, and the op calls on the way down to it (the
/// root first, the call whose argument it is last).
template <class Name, class... Calls>
struct anchor_path {
  using name = Name;
  static constexpr std::size_t depth = sizeof...(Calls);
  static void ops(OpId* out) {
    std::size_t i = 0;
    ((out[i++] = Calls::op_type::id()), ...);
  }
};
template <class Call, class Path>
struct prepend_call;
template <class Call, class Name, class... Calls>
struct prepend_call<Call, anchor_path<Name, Calls...>> {
  using type = anchor_path<Name, Call, Calls...>;
};

/// Every placeholder path of an element, in argument order (not through alternatives or each()).
template <class E>
struct paths_in {
  using type = mp::mp_list<>;
};
template <class N>
struct paths_in<Placeholder<N>> {
  using type = mp::mp_list<anchor_path<N>>;
};
template <class... E>
struct paths_in<ListPattern<E...>> {
  using type = mp::mp_append<typename paths_in<E>::type...>;
};
template <class E, class F>
struct paths_in<Where<E, F>> : paths_in<E> {};
template <class OpT, class Opts, class Label, class... A>
struct paths_in<Call<OpT, Opts, Label, A...>> {
  template <class P>
  using prepend = typename prepend_call<Call<OpT, Opts, Label, A...>, P>::type;
  using type = mp::mp_transform<prepend, mp::mp_append<typename paths_in<typename A::elem>::type...>>;
};

/// The index of the anchor among Paths: the shallowest path whose name an earlier root bound
/// (`Earlier`, their bindings), the first of equals; the number of paths when there is none.
template <class Earlier, class... P>
constexpr std::size_t shallowest_bound(mp::mp_list<P...>) {
  constexpr bool bound[] = {mp::mp_contains<Earlier, binding<typename P::name, NodeId>>::value..., false};
  constexpr std::size_t depth[] = {P::depth..., 0};
  std::size_t best = sizeof...(P);
  for (std::size_t i = 0; i < sizeof...(P); ++i)
    if (bound[i] && (best == sizeof...(P) || depth[i] < depth[best])) best = i;
  return best;
}
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
  /// A further root that is an op call: matched at the nodes above its anchor (see the top).
  template <std::size_t K, std::size_t Off, class Rk, class Earlier, class Ctx>
  bool match_further_call(Ctx& c) const {
    using paths = typename detail::paths_in<Rk>::type;
    static_assert(!mp::mp_empty<paths>::value,
                  "ctmatch: multi(): every further root needs a placeholder naming a node bound by an "
                  "earlier root, e.g. getitem(\"s\"_x, 1)");
    constexpr std::size_t at = detail::shallowest_bound<Earlier>(paths{});
    if constexpr (at == mp::mp_size<paths>::value) {
      (void)errors::report<errors::multi_anchor_not_bound_earlier<typename mp::mp_front<paths>::name>>();
      return false;
    } else {
      using path = mp::mp_at_c<paths, at>;
      const NodeId a = c.template bound<typename path::name>();
      const auto saved = c.st;
      auto try_root = [&](NodeId u) {
        for (NodeId m : c.st.nodes)
          if (m == u) return false;
        if (pget<K>(roots).template match_root<Off>(c, u)) return true;
        c.st = saved;
        return false;
      };
      if constexpr (path::depth == 1) {
        for (NodeId u : c.g[a].users())
          if (try_root(u)) return true;
      } else {
        std::array<OpId, path::depth> ops{};
        path::ops(ops.data());
        std::vector<NodeId> level{a}, above;
        for (std::size_t d = path::depth; d-- > 0 && !level.empty();) {
          above.clear();
          for (NodeId n : level)
            for (NodeId u : c.g[n].users())
              if (c.g[u].op() == ops[d] && std::find(above.begin(), above.end(), u) == above.end()) above.push_back(u);
          level.swap(above);
        }
        for (NodeId u : level)
          if (try_root(u)) return true;
      }
      return no_match(c, FailureKind::Op, Text::str("a node matching root ").with_count(K),
                      Text::str("none above ").with_node_name(a));
    }
  }
};

template <class... R>
constexpr auto multi(const R&... r) {
  return Multi<typename detail::as_root<R>::type...>(typename detail::as_root<R>::type(r)...);
}

}  // namespace ctmatch::pattern
