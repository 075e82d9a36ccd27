#pragma once
// The leaves of a pattern.
//
//   _                 anything (also an absent argument); binds nothing
//   "x"_x             a named placeholder. At a Tensor argument it binds the node (NodeId;
//                     the argument must be a node); elsewhere it binds the value (const Value&).
//                     A repeated name must find the same node / an equal value.
//   slot<"d", T>      a typed slot: binds the argument as a T (see slot_types.hpp for the
//                     types); a value of another kind does not match. Repeated: equal values.
//   constants         plain C++ values written in a call are constants: 1, -1, 0.5, true,
//                     "tanh", ScalarType::Float, Device{...}, Layout::Strided,
//                     MemoryFormat::Contiguous. The value must have the same kind and be equal
//                     (1 matches int 1, not float 1.0).
//   e.where(pred)     e, and then pred must hold (see element.hpp).
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include <boost/mp11/list.hpp>

#include "bindings.hpp"
#include "compile_errors.hpp"
#include "element.hpp"
#include "slot_types.hpp"

namespace ctmatch::pattern {

// ---- _ -----------------------------------------------------------------------------------
struct Ignore : element<Ignore> {
  static constexpr std::size_t calls = 0;
  template <std::uint32_t TC>
  static constexpr bool check() { return true; }
  template <std::uint32_t TC>
  using bindings = mp::mp_list<>;
  template <std::uint32_t TC, std::size_t Off, class Ctx>
  bool match(Ctx&, const Value*) const { return true; }
  template <std::uint32_t TC, std::size_t Off, class Ctx>
  const Value* observed(Ctx&, const Value* v) const { return v; }
};

// ---- "x"_x ---------------------------------------------------------------------------------
template <class Name>
struct Placeholder : element<Placeholder<Name>> {
  static constexpr std::size_t calls = 0;
  template <std::uint32_t TC>
  static constexpr bool check() { return true; }
  template <std::uint32_t TC>
  using stored = std::conditional_t<detail::is_tensor_code(TC), NodeId, ValueRef>;
  template <std::uint32_t TC>
  using bindings = mp::mp_list<binding<Name, stored<TC>>>;

  template <std::uint32_t TC, std::size_t Off, class Ctx>
  bool match(Ctx& c, const Value* v) const {
    if constexpr (detail::is_tensor_code(TC)) {
      NodeId id = v ? v->node() : no_node;
      if (id == no_node) {
        return no_match(c, FailureKind::NotANode,
                        Text::str("a node for '", Name::value, "'"),
                        Text::str({}).with_typed_value(v));
      }
      if (!c.template bind<Name>(id)) {
        return no_match(c, FailureKind::Repeated,
                        Text::str("'", Name::value, "' = ").with_node_name(c.template bound<Name>()),
                        Text::str({}).with_value(v));
      }
      return true;
    } else {
      if (!v) {
        return no_match(c, FailureKind::Missing,
                        Text::str("a value for '", Name::value, "'"),
                        Text::str({}).with_value(v));
      }
      if (!c.template bind<Name>(ValueRef{v})) {
        return no_match(c, FailureKind::Repeated,
                        Text::str("'", Name::value, "' = ").with_value(c.template bound<Name>().p),
                        Text::str({}).with_value(v));
      }
      return true;
    }
  }
  template <std::uint32_t TC, std::size_t Off, class Ctx>
  decltype(auto) observed(Ctx& c, const Value* v) const {
    if constexpr (detail::is_tensor_code(TC)) return c.g[v->node()];
    else return *v;
  }
};

// ---- slot<"name", T> -------------------------------------------------------------------------
template <class Name, class T>
struct Slot : element<Slot<Name, T>> {
  using traits = slot_traits<T>;
  static_assert(traits::supported,
                "ctmatch: slot<name, T>: T is not a slot type (DType, bool, std::int64_t, double, "
                "std::string_view, Device, Layout, MemoryFormat, IntList, FloatList, TensorList, "
                "Value, or std::optional of one)");
  static constexpr std::size_t calls = 0;
  template <std::uint32_t TC>
  static constexpr bool check() {
    if constexpr (!traits::fits(TC)) (void)errors::report<errors::slot_type_does_not_fit<Name, T>>();
    return true;
  }
  template <std::uint32_t TC>
  using bindings = mp::mp_list<binding<Name, typename traits::stored>>;

  template <std::uint32_t TC, std::size_t Off, class Ctx>
  bool match(Ctx& c, const Value* v) const {
    typename traits::stored x{};
    if (!v || !traits::read(*v, x)) {
      return no_match(c, v ? FailureKind::Type : FailureKind::Missing,
                      Text::str("a ", slot_type_name<T>(), " for slot '", Name::value).then("'"),
                      Text::str({}).with_typed_value(v));
    }
    if (!c.template bind<Name>(x)) {
      return no_match(c, FailureKind::Repeated,
                      Text::str("the value bound to '", Name::value, "' earlier"),
                      Text::str({}).with_value(v));
    }
    return true;
  }
  template <std::uint32_t TC, std::size_t Off, class Ctx>
  decltype(auto) observed(Ctx& c, const Value*) const {
    return traits::get(c.template bound<Name>());
  }
};

// ---- constants -----------------------------------------------------------------------------
template <class T>
struct Const : element<Const<T>> {
  using traits = slot_traits<T>;
  T value;
  constexpr explicit Const(T v) : value(v) {}

  static constexpr std::size_t calls = 0;
  template <std::uint32_t TC>
  static constexpr bool fits_argument = traits::fits(TC);
  template <std::uint32_t TC>
  static constexpr bool check() {
    static_assert(traits::fits(TC),
                  "ctmatch: the constant's type does not fit the schema argument's type");
    return true;
  }
  template <std::uint32_t TC>
  using bindings = mp::mp_list<>;

  template <std::uint32_t TC, std::size_t Off, class Ctx>
  bool match(Ctx& c, const Value* v) const {
    typename traits::stored x{};
    if (!v || !traits::read(*v, x)) {
      if constexpr (Ctx::explaining)
        explain_const(c, v ? FailureKind::Type : FailureKind::Missing, v, true);
      return false;
    }
    if (!(x == value)) {
      if constexpr (Ctx::explaining)
        explain_const(c, FailureKind::Value, v, false);
      return false;
    }
    return true;
  }
  template <std::uint32_t TC, std::size_t Off, class Ctx>
  const Value& observed(Ctx&, const Value* v) const { return *v; }

 private:
  template <class Ctx>
  void explain_const(Ctx& c, FailureKind k, const Value* v, bool typed) const {
    const Value expected(value);
    Text found = Text::str({});
    if (typed) found.with_typed_value(v);
    else found.with_value(v);
    c.sink.report(k, Text::str(slot_type_name<T>(), " ").with_value(&expected), found);
  }
};

namespace detail {
template <class E>
struct is_const_element : std::false_type {};
template <class T>
struct is_const_element<Const<T>> : std::true_type {};

template <class T>
struct is_const_type
    : std::bool_constant<std::is_same_v<T, ScalarType> || std::is_same_v<T, Device> ||
                         std::is_same_v<T, Layout> || std::is_same_v<T, MemoryFormat>> {};

/// A call argument as an element: elements stay, C++ values become constants.
template <class A>
constexpr auto as_element(const A& a) {
  if constexpr (Element<A>) return a;
  else if constexpr (std::is_same_v<A, bool>) return Const<bool>(a);
  else if constexpr (std::is_integral_v<A>) return Const<std::int64_t>(static_cast<std::int64_t>(a));
  else if constexpr (std::is_floating_point_v<A>) return Const<double>(static_cast<double>(a));
  else if constexpr (std::is_convertible_v<A, std::string_view>) return Const<std::string_view>(std::string_view(a));
  else if constexpr (is_const_type<A>::value) return Const<A>(a);
  else if constexpr (std::is_same_v<A, Value>) return Const<Value>(a);  // a run-time value (make())
  else static_assert(always_false<A>, "ctmatch: this argument is neither a pattern element nor a constant");
}
template <class A>
using element_t = decltype(as_element(std::declval<const A&>()));
}  // namespace detail

// ---- where ---------------------------------------------------------------------------------
template <class E, class F>
struct Where : element<Where<E, F>> {
  E inner;
  F pred;
  constexpr Where(E e, F f) : inner(e), pred(f) {}

  static constexpr std::size_t calls = E::calls;
  static constexpr bool branches = E::branches;
  template <std::uint32_t TC>
  static constexpr bool fits_argument = E::template fits_argument<TC>;
  template <std::uint32_t TC>
  static constexpr bool check() { return E::template check<TC>(); }
  template <std::uint32_t TC>
  using bindings = typename E::template bindings<TC>;

  template <std::uint32_t TC, std::size_t Off, class Ctx>
  bool match(Ctx& c, const Value* v) const {
    if (!inner.template match<TC, Off>(c, v)) return false;
    return holds(c, inner.template observed<TC, Off>(c, v), v);
  }
  template <std::uint32_t TC, std::size_t Off, class Ctx>
  decltype(auto) observed(Ctx& c, const Value* v) const {
    return inner.template observed<TC, Off>(c, v);
  }

  // As a root (when E is an op call).
  static constexpr std::size_t root_op_count = E::root_op_count;
  static void root_ops(OpId* out) { E::root_ops(out); }
  template <std::size_t Off>
  static constexpr void mark_roots(bool* r) { E::template mark_roots<Off>(r); }
  template <std::size_t Off, class Ctx>
  bool match_root(Ctx& c, NodeId id) const {
    if (!inner.template match_root<Off>(c, id)) return false;
    return holds(c, c.g[id], nullptr);
  }

 private:
  template <class Ctx, class X>
  bool holds(Ctx& c, X&& x, const Value* v) const {
    bool ok;
    if constexpr (std::is_invocable_v<const F&, X, const Graph&>) ok = pred(x, c.g);
    else ok = pred(x);
    if (!ok) {
      if constexpr (Ctx::explaining)
        c.sink.report(FailureKind::Check, Text::str("the where() predicate to hold"),
                      v ? Text::str({}).with_value(v) : Text::str("false"));
    }
    return ok;
  }
};

}  // namespace ctmatch::pattern
