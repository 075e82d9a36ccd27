#pragma once
// might_match(p, g, root): a necessary condition for match(p, g, root) that costs a few loads,
// for drivers that try many rules at many nodes where most attempts fail, and fail at the
// same place: the root's first argument that the pattern requires to be an op call is not a
// node of that op (view(view(x), _) tried at a view whose input is a placeholder). Testing
// that one argument inline spares a failing attempt the matcher's setup.
//
// It does not check the root's own op (drivers dispatch on it), and says true whenever it
// cannot look: alternatives or several roots at the top, a commutative root (the call may be
// either operand), a root with no argument that is a plain op call.
#include <boost/mp11/algorithm.hpp>

#include "call.hpp"
#include "match.hpp"

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
template <class Arg>
using is_call_arg = mp::mp_bool<!std::is_void_v<typename call_op<typename Arg::elem>::type>>;

template <class P>
struct prefilter {
  static bool test(const Graph&, NodeId) { return true; }
};
template <class P, class F>
struct prefilter<Checked<P, F>> : prefilter<P> {};
template <class P>
struct prefilter<SingleUse<P>> : prefilter<P> {};
template <class OpT, class Opts, class Label, class... A>
struct prefilter<Call<OpT, Opts, Label, A...>> {
  using args = mp::mp_list<A...>;
  static constexpr std::size_t first_call = mp::mp_find_if<args, is_call_arg>::value;
  static bool test(const Graph& g, NodeId root) {
    if constexpr (Opts::commutative || first_call == sizeof...(A)) {
      return true;
    } else {
      using Ak = mp::mp_at_c<args, first_call>;
      const Value* v = arg_of<OpT>(g[root], Ak::index);
      NodeId id = v ? v->node() : no_node;
      // The input's op from the graph's op array (4 bytes a node), not from the input itself.
      return id != no_node && g.live_call_ops()[id] == call_op<typename Ak::elem>::type::id();
    }
  }
};
}  // namespace detail

/// False only when match(p, g, root) is sure to fail (see the top of this file).
template <class P>
bool might_match(const P&, const Graph& g, NodeId root) {
  return detail::prefilter<P>::test(g, root);
}

}  // namespace ctmatch::pattern
