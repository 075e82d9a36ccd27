#pragma once
// Bindings: what a match captures, in one flat struct whose layout is computed at compile time.
//
// Every pattern element lists the names it binds as an Mp11 list of binding<name<"a">, T>
// (T is the stored type: NodeId for a Tensor placeholder, ValueRef for other placeholders, the
// slot's stored type for slots). A pattern's list is the union over its elements; BindingStore
// inherits one cell per binding, so a name's storage is found by its index in the list at
// compile time. A bit mask says which names are bound so far: the first occurrence of a name
// binds, a later one compares. The whole matching State (store + the matched node of every
// pattern op call) is trivially copyable, so an alternative or a commutative retry saves it by
// copy and restores it on failure.
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>
#include <boost/mp11/set.hpp>

#include "../graph/graph.hpp"
#include "compile_errors.hpp"
#include "failure.hpp"
#include "name.hpp"

namespace ctmatch::pattern {

namespace mp = boost::mp11;

/// One name a pattern binds and the type it is stored as.
template <class Name, class T>
struct binding {
  using name_type = Name;
  using type = T;
};

namespace detail {
template <class B>
using binding_name = typename B::name_type;

/// The distinct bindings of a list, checked: a name bound with two types does not compile.
template <class L>
struct unique_bindings {
  using type = mp::mp_unique<L>;
  using names = mp::mp_transform<binding_name, type>;
  static constexpr bool distinct = mp::mp_is_set<names>::value;
  template <class N>
  using twice = mp::mp_bool<(mp::mp_count<names, N>::value > 1)>;
  using repeated = mp::mp_copy_if<names, twice>;  // the names bound with two types
};
/// unique_bindings<L>::distinct, reporting the first name bound with two types (compile_errors.hpp).
template <class L>
constexpr bool check_distinct() {
  using u = unique_bindings<L>;
  if constexpr (!u::distinct) (void)errors::report<errors::name_with_two_types<mp::mp_front<typename u::repeated>>>();
  return u::distinct;
}
}  // namespace detail

/// The names that occur more than once in a pattern's raw (non-unique) binding list: only
/// these compare on a later occurrence; a name that occurs once is simply stored.
template <class Raw>
struct repeated_names {
  using all = mp::mp_transform<detail::binding_name, Raw>;
  template <class N>
  using repeats = mp::mp_bool<(mp::mp_count<all, N>::value > 1)>;
  using type = mp::mp_copy_if<mp::mp_unique<all>, repeats>;
};

/// The names of a binding list, as a type list of name<"...">. What a rewrite checks its
/// replacement's placeholders against.
template <class Bindings>
using names_of = mp::mp_transform<detail::binding_name, Bindings>;

template <class B>
struct binding_cell {
  typename B::type value{};
};

template <class L>
struct BindingStore;
template <class... B>
struct BindingStore<mp::mp_list<B...>> : binding_cell<B>... {
  static_assert(sizeof...(B) <= 64, "ctmatch: a pattern binds at most 64 names");
  std::uint64_t bound = 0;  // bit i: the i-th binding holds a value
};

/// Where `Name` is stored in a BindingStore, and its cell (found at compile time).
template <class Bindings, class Name>
inline constexpr std::size_t binding_index = mp::mp_find<names_of<Bindings>, Name>::value;
template <class Name, class Bindings>
auto& binding_value(BindingStore<Bindings>& b) {
  return static_cast<binding_cell<mp::mp_at_c<Bindings, binding_index<Bindings, Name>>>&>(b).value;
}
template <class Name, class Bindings>
const auto& binding_value(const BindingStore<Bindings>& b) {
  return static_cast<const binding_cell<mp::mp_at_c<Bindings, binding_index<Bindings, Name>>>&>(b).value;
}

/// Everything one match attempt writes.
template <class Bindings, std::size_t NodeCount, bool Lists = false>
struct State {
  BindingStore<Bindings> b;
  std::array<NodeId, NodeCount> nodes;  // per pattern op call, in Match's node order
};
/// A pattern with op calls inside each(e) matches as many nodes as its lists have elements:
/// those are kept here too (every element's, in match order; reused across attempts).
template <class Bindings, std::size_t NodeCount>
struct State<Bindings, NodeCount, true> : State<Bindings, NodeCount, false> {
  std::vector<NodeId> list_nodes;
};

/// What the matcher passes down the pattern: the graph, the state, the explain sink (report
/// failures only under `if constexpr (Ctx::explaining)`: NoExplain has no fail()).
template <class Bindings, std::size_t NodeCount, class Sink, class Repeated = Bindings,
          bool Branches = true, bool SingleUse = false, bool Lists = false>
struct Context {
  using bindings = Bindings;
  static constexpr bool explaining = Sink::enabled;
  /// single_use(p): every op call below a root without a users<N>() of its own has one user.
  static constexpr bool single_use = SingleUse;
  /// Whether a retry (commutative operands) must restore the state first: only when some
  /// name compares on a later occurrence (a stale binding would be compared with) or
  /// alternatives may leave node slots behind. Otherwise the retry rewrites what it needs.
  static constexpr bool retry_restores = Branches || Lists || !mp::mp_empty<Repeated>::value;
  const Graph& g;
  State<Bindings, NodeCount, Lists>& st;
  Sink& sink;

  /// What `Name` holds (meaningful once bound).
  template <class Name>
  const auto& bound() const {
    return binding_value<Name>(std::as_const(st.b));
  }
  /// The first occurrence binds `v` to `Name`; a later one compares with what was bound.
  template <class Name, class T>
  bool bind(const T& v) {
    constexpr std::size_t i = binding_index<Bindings, Name>;
    auto& cell = binding_value<Name>(st.b);
    static_assert(std::is_same_v<std::remove_reference_t<decltype(cell)>, T>,
                  "ctmatch: internal: binding type mismatch");
    constexpr std::uint64_t bit = std::uint64_t{1} << i;
    if constexpr (!mp::mp_contains<Repeated, Name>::value) {
      cell = v;
      // Without alternatives a name that occurs once is bound by every match: no bit needed.
      if constexpr (Branches) st.b.bound |= bit;
      return true;
    }
    if (st.b.bound & bit) return cell == v;
    cell = v;
    st.b.bound |= bit;
    return true;
  }
};

}  // namespace ctmatch::pattern
