#pragma once
// might_match(p, g, root): a necessary condition for match(p, g, root) that costs a few loads,
// for drivers that try many rules at many nodes where most attempts fail, and fail at the
// same place: the root's first argument that the pattern requires to be an op call is not a
// node of that op (view(view(x), _) tried at a view whose input is a placeholder). Testing
// that one argument inline spares a failing attempt the matcher's setup. Where it is, the test
// goes on down that argument's own first call argument, to `prefilter_depth` calls below the
// root: families of rules that share a root and its first input (the SDPA trees: view(bmm(
// view(expand(weights)), ...))) part further down, and a root that passes the first level
// passes it for every rule of the family.
//
// A call with a `.where()` predicate counts as the call (the predicate runs after it matched).
// It does not check the root's own op (drivers dispatch on it), and says true whenever it
// cannot look: alternatives at the top, a commutative root (the call may be either operand), a
// root with no argument that is a plain op call. With several roots (multi), it tests the
// first, which is matched at the candidate.
#include <boost/mp11/algorithm.hpp>

#include "call.hpp"
#include "first_test.hpp"
#include "match.hpp"
#include "multi.hpp"

namespace ctmatch::pattern {

namespace detail {
/// The op of an element that is a plain op call, else void.
template <class E>
struct call_op {
  using type = void;
};
template <class OpT, class Opts, class Label, class... A>
struct call_op<Call<OpT, Opts, Label, A...>> {
  using type = OpT;
};
/// A call with a where() predicate is still that call.
template <class E, class F>
struct call_op<Where<E, F>> : call_op<E> {};
template <class Arg>
using is_call_arg = mp::mp_bool<!std::is_void_v<typename call_op<typename Arg::elem>::type>>;

/// How many calls below the root the test follows first arguments. Each level past the first
/// reads the node it reached (one cache line) where the level above passed.
inline constexpr int prefilter_depth = 4;

template <class P, int Depth = prefilter_depth>
struct prefilter {
  static bool test(const Graph&, NodeId) { return true; }
  static FirstTest first() { return {}; }
};
template <class P, class F, int Depth>
struct prefilter<Checked<P, F>, Depth> : prefilter<P, Depth> {};
template <class P, int Depth>
struct prefilter<SingleUse<P>, Depth> : prefilter<P, Depth> {};
template <class E, class F, int Depth>
struct prefilter<Where<E, F>, Depth> : prefilter<E, Depth> {};  // the predicate runs after the structure
template <class First, class... More, int Depth>
struct prefilter<Multi<First, More...>, Depth> : prefilter<First, Depth> {};
template <class OpT, class Opts, class Label, class... A, int Depth>
struct prefilter<Call<OpT, Opts, Label, A...>, Depth> {
  using args = mp::mp_list<A...>;
  static constexpr std::size_t first_call = mp::mp_find_if<args, is_call_arg>::value;
  static FirstTest first() {
    if constexpr (Opts::commutative || first_call == sizeof...(A)) {
      return {};
    } else {
      using Ak = mp::mp_at_c<args, first_call>;
      return {Ak::index, call_op<typename Ak::elem>::type::id()};
    }
  }
  static bool test(const Graph& g, NodeId root) {
    if constexpr (Opts::commutative || first_call == sizeof...(A)) {
      return true;
    } else {
      using Ak = mp::mp_at_c<args, first_call>;
      // Written positionally in the common case: read inline (arg_of stays out of line).
      const Node& n = g[root];
      const Value* v = Ak::index < n.args().size() ? &n.args()[Ak::index] : arg_of<OpT>(n, Ak::index);
      NodeId id = v ? v->node() : no_node;
      // The input's op from the graph's op array (4 bytes a node), not from the input itself.
      if (id == no_node || g.live_call_ops()[id] != call_op<typename Ak::elem>::type::id()) return false;
      if constexpr (Depth > 1) return prefilter<typename Ak::elem, Depth - 1>::test(g, id);
      else return true;
    }
  }
};
}  // namespace detail

/// The first level of might_match(p, ...) alone (see FirstTest).
template <class P>
FirstTest first_test(const P&) {
  return detail::prefilter<P>::first();
}

/// False only when match(p, g, root) is sure to fail (see the top of this file).
template <class P>
bool might_match(const P&, const Graph& g, NodeId root) {
  return detail::prefilter<P>::test(g, root);
}

}  // namespace ctmatch::pattern
