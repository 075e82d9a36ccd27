#pragma once
// Declarative replacements: an expression over the pattern's placeholders and slots, written
// with the same vocabulary as patterns, and built into new nodes after a match.
//
//   pattern:      scale_cast(aten::mm("a"_x, "b"_x).users<1>(), "dtype"_kw = slot<"dtype", DType>)
//   replacement:  fused("a"_x, "b"_x, "dtype"_kw = slot<"dtype", DType>)
//
// In a replacement
//   - an op call creates a node (arguments in schema order: positional ones positionally, with
//     schema defaults filling gaps before a later one, keyword-only ones as kwargs); nested
//     calls are created first, so every new node comes after its inputs, all before the root;
//   - "x"_x and slot<"x", T> stand for what the pattern bound to "x": a node, or a value;
//   - plain C++ values are constants, list(...) builds a list;
//   - forward_kwargs(op, args...) is the call op(args...) plus every kwarg written on the
//     matched root that op's schema has and args do not give (required ones may be left to
//     it); forward_kwargs<"n">(op, args...) takes them from the node the pattern named "n"
//     (`.named<"n">()`), and forward_kwargs<"n", "dtype", "scale">(op, args...) only those (the
//     seed's question: capture the kwargs of the matched op and pass them on to the fused op).
// The top of a replacement is an op call or a Tensor placeholder (the root's uses then go to
// that existing node, as in permute(permute(x)) -> x). A multi() pattern's replacement is
// outputs(e1, e2, ...): one such top per root, in the order multi() lists them.
//
// Checked at compile time, each error's type naming its culprit (pattern/compile_errors.hpp):
// a placeholder or slot the pattern never binds; `_` in a replacement; an op call that leaves
// out a required argument (keyword-only ones included) and forwards none; forward_kwargs from a
// name that is not a node, or of an argument the new op's schema lacks (or that would drop a
// keyword-only argument of the matched op). The op calls themselves get the pattern layer's checks
// (keyword names, arity, slot types against the schema).
#include <boost/mp11/algorithm.hpp>

#include <array>
#include <atomic>
#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "../pattern/dsl.hpp"
#include "builder.hpp"

namespace ctmatch {

namespace replacement_detail {
namespace mp = boost::mp11;
using pattern::fixed_string;

template <class N>
struct name_string;
template <fixed_string S>
struct name_string<pattern::name<S>> {
  static constexpr auto value = S;
};

template <class P, class N>
inline constexpr bool binds_name = mp::mp_contains<pattern::bound_names<P>, N>::value;

/// The type the pattern stores for name N (NodeId for nodes).
template <class P, class N>
using bound_type = typename mp::mp_at_c<pattern::pattern_bindings<P>,
                                        mp::mp_find<pattern::bound_names<P>, N>::value>::type;

template <class>
inline constexpr bool is_list_view = false;
template <class T>
inline constexpr bool is_list_view<pattern::ListView<T>> = true;
template <class>
inline constexpr bool is_optional = false;
template <class T>
inline constexpr bool is_optional<std::optional<T>> = true;

/// What a binding becomes as an argument of a new node.
template <class X>
Value to_value(const X& x) {
  if constexpr (std::is_same_v<X, Value>) return x;
  else if constexpr (std::is_same_v<X, std::string_view>) return Value(std::string(x));
  else if constexpr (is_list_view<X>) return Value::list(std::vector<Value>(x.values().begin(), x.values().end()));
  else if constexpr (is_optional<X>) return x ? to_value(*x) : Value(None{});
  else return Value(x);
}

template <class P, class N, class M>
Value binding_value(const M& m) {
  decltype(auto) v = m.template get<name_string<N>::value>();
  if constexpr (std::is_same_v<bound_type<P, N>, NodeId>) return Value(NodeRef{v});
  else return to_value(v);
}

template <class P, class N>
constexpr bool check_bound() {
  if constexpr (!binds_name<P, N>) (void)errors::report<errors::unbound_placeholder<N>>();
  return binds_name<P, N>;
}
}  // namespace replacement_detail

// ---- use(node): a node as an argument ---------------------------------------------------------
/// use(node): an existing node (one a callback found or made) as a Tensor argument of a
/// replacement call: with make(b, op(use(x), 1, n)) a callback builds computed replacements
/// through typed op calls (see make below). Anywhere but a Tensor argument it is a compile error.
struct Use : pattern::element<Use> {
  NodeId id;
  constexpr explicit Use(NodeId n) : id(n) {}
  static constexpr std::size_t calls = 0;
  template <std::uint32_t TC>
  static constexpr bool fits_argument = pattern::detail::is_tensor_code(TC) || pattern::detail::is_any_code(TC);
  template <std::uint32_t TC>
  static constexpr bool check() {
    static_assert(fits_argument<TC>, "ctmatch: use(node) stands for a Tensor argument");
    return true;
  }
  template <std::uint32_t TC>
  using bindings = boost::mp11::mp_list<>;
};
constexpr Use use(NodeId n) { return Use(n); }

// ---- forward_kwargs ------------------------------------------------------------------------
/// A replacement call that also receives kwargs of a matched node (see the top of this file).
/// From: the pattern name of that node (void: the root); Only: the kwargs to take (none: all).
template <class From, class C, class... Only>
struct ForwardKwargs : pattern::element<ForwardKwargs<From, C, Only...>> {
  C call;
  constexpr explicit ForwardKwargs(const C& c) : call(c) {}
  static constexpr std::size_t calls = C::calls;
  template <std::uint32_t TC>
  static constexpr bool check() { return C::template check<TC>(); }
  template <std::uint32_t TC>
  using bindings = typename C::template bindings<TC>;
};

namespace replacement_detail {
template <class>
struct call_traits {
  static constexpr bool is_call = false;
};
template <class OpT, class Opts, class Label, class... A>
struct call_traits<pattern::Call<OpT, Opts, Label, A...>> {
  static constexpr bool is_call = true;
  using op_type = OpT;
};
template <class OpT, class Name>
constexpr bool schema_has() {
  return OpT::schema.find(Name::value) >= 0;
}

/// The op of the pattern's node named Label (void: the root), where the pattern spells it out
/// as a tree of op calls; void when it cannot be known at compile time (an alternative).
template <class E, class Label>
struct op_of_named {
  using type = void;
};
template <class E, class Label>
using op_of_named_t = typename op_of_named<E, Label>::type;
template <class OpT, class Opts, class L, class... A, class Label>
struct op_of_named<pattern::Call<OpT, Opts, L, A...>, Label> {
  using type = std::conditional_t<
      std::is_same_v<L, Label>, OpT,
      mp::mp_front<mp::mp_push_back<mp::mp_remove<mp::mp_list<op_of_named_t<typename A::elem, Label>...>, void>, void>>>;
};
template <class OpT, class Opts, class L, class... A>
struct op_of_named<pattern::Call<OpT, Opts, L, A...>, void> {
  using type = OpT;
};

/// The first keyword-only argument of Src's schema that Dst's schema lacks, or -1: what a
/// forward_kwargs from a node of Src to a call of Dst would drop.
template <class Src, class Dst>
constexpr int first_undeliverable_kwarg() {
  for (std::size_t i = 0; i < Src::schema.num_args; ++i)
    if (Src::schema.args[i].kwarg_only && Dst::schema.find(Src::schema.args[i].name) < 0) return static_cast<int>(i);
  return -1;
}
template <class Src, class Dst>
constexpr bool check_forwardable() {
  if constexpr (std::is_void_v<Src>) {
    return true;  // not known at compile time: drops are counted (RuleStats::kwargs_dropped)
  } else {
    constexpr int i = first_undeliverable_kwarg<Src, Dst>();
    if constexpr (i < 0) return true;
    else return errors::report<errors::forward_kwargs_would_drop<errors::arg_name<Src, i>>>();
  }
}
}  // namespace replacement_detail

/// The call `op(args...)` of a forward_kwargs: like a pattern call, except that required
/// arguments may be left out (forwarded kwargs are expected to supply them; if they do not,
/// creating the node fails and the rewrite is rolled back).
template <class OpT, class... A>
constexpr auto forwarding_call(const A&... a) {
  using plan_t = pattern::detail::call_plan<OpT, A...>;
  constexpr auto plan = plan_t::value;
  static_assert(pattern::detail::call_fits<OpT, true, A...>());  // (reported by name first)
  return [&]<std::size_t... K>(std::index_sequence<K...>) {
    return pattern::Call<OpT, pattern::default_call_opts, pattern::no_label,
                         pattern::Arg<plan.index[K], typename pattern::detail::kw_traits<A>::elem>...>(
        pattern::detail::kw_traits<A>::get(a)...);
  }(std::index_sequence_for<A...>{});
}

/// forward_kwargs(op, args...): op(args...) plus every kwarg written on the matched root that
/// the op's schema has and args do not give.
template <pattern::fixed_string S, class Self, class... A>
constexpr auto forward_kwargs(pattern::Op<S, Self>, const A&... args) {
  using OpT = typename pattern::Op<S, Self>::type;
  using C = decltype(forwarding_call<OpT>(args...));
  return ForwardKwargs<void, C>(forwarding_call<OpT>(args...));
}
/// forward_kwargs<"n">(op, args...): from the node the pattern named "n" (`.named<"n">()`);
/// forward_kwargs<"n", "k1", "k2">(op, args...): only those kwargs.
template <pattern::fixed_string From, pattern::fixed_string... Only, pattern::fixed_string S, class Self,
          class... A>
constexpr auto forward_kwargs(pattern::Op<S, Self>, const A&... args) {
  using OpT = typename pattern::Op<S, Self>::type;
  static_assert((replacement_detail::schema_has<OpT, pattern::name<Only>>() && ...),
                "ctmatch: forward_kwargs<\"node\", \"kwarg\"...>: the new op's schema has no such argument");
  using C = decltype(forwarding_call<OpT>(args...));
  return ForwardKwargs<pattern::name<From>, C, pattern::name<Only>...>(forwarding_call<OpT>(args...));
}

// ---- building --------------------------------------------------------------------------------
namespace replacement_detail {

template <class P, class E, class M>
Value build_value(const E& e, RewriteBuilder& b, const M& m);

/// Kwargs of `src` to forward: written ones, that the target schema has, not given already.
/// One the target's schema lacks is dropped and counted (the builder's dropped_kwargs()).
template <class OpT, class... Only>
void forward_from(const Node& src, std::uint64_t given, std::vector<Kwarg>& kwargs, RewriteBuilder& b) {
  auto take = [&](std::string_view name, const Value& v) {
    int i = OpT::schema.find(name);
    if (i < 0) b.note_dropped_kwarg(src, name, OpT::name());
    if (i < 0 || ((given >> i) & 1u)) return;
    for (const Kwarg& k : kwargs)
      if (k.name == name) return;
    kwargs.push_back(Kwarg{std::string(name), v});
  };
  if constexpr (sizeof...(Only) == 0) {
    for (const Kwarg& k : src.kwargs()) take(k.name, k.value);
  } else {
    (
        [&] {
          if (const Value* v = src.kwarg(Only::value)) take(Only::value, *v);
        }(),
        ...);
  }
}

/// Schema parameters a call gives, as bits (parameter i: bit i), known at compile time.
template <class... A>
inline constexpr std::uint64_t given_mask = (std::uint64_t{0} | ... | (std::uint64_t{1} << A::index));

/// Where the parameters of a call with given-parameter bits `Mask` are written in the node
/// build_call makes (NodeSpec::layout): positional ones up to the last given one in place (the
/// defaults fill gaps), given keyword-only ones as kwargs in schema order, the rest from their
/// defaults. `complete` is false when a required parameter is not given: the node is then bound
/// by name, which reports it.
template <class OpT, std::uint64_t Mask>
struct call_layout {
  static constexpr std::size_t num_args = OpT::schema.num_args;
  static constexpr std::size_t num_positional = OpT::schema.num_positional();
  static constexpr std::uint64_t positional_bits =
      num_positional >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << num_positional) - 1;
  static constexpr std::size_t last_positional = static_cast<std::size_t>(std::bit_width(Mask & positional_bits));
  static constexpr std::array<std::int16_t, num_args> value = [] {
    std::array<std::int16_t, num_args> w{};
    std::int16_t kwarg = 0;
    for (std::size_t i = 0; i < num_args; ++i) {
      if (i < last_positional) w[i] = static_cast<std::int16_t>(i);
      else if (i >= num_positional && ((Mask >> i) & 1u)) w[i] = static_cast<std::int16_t>(-++kwarg);
      else w[i] = Node::from_default;
    }
    return w;
  }();
  /// The first required parameter the call does not give, or num_args.
  static constexpr std::size_t first_missing = [] {
    for (std::size_t i = 0; i < num_args; ++i)
      if (value[i] == Node::from_default && !OpT::schema.args[i].has_default) return i;
    return num_args;
  }();
  static constexpr bool complete = first_missing == num_args;
};

/// build_call's last step for a call that forwards no kwargs.
struct no_forward {
  void operator()(std::uint64_t, std::vector<Kwarg>&) const {}
};

template <class P, class OpT, class Opts, class Label, class... A, class M, class Fwd = no_forward>
NodeId build_call(const pattern::Call<OpT, Opts, Label, A...>& c, RewriteBuilder& b, const M& m, Fwd&& forward = {}) {
  // Which parameters the call gives is known at compile time: the arguments are built straight
  // into their places in the new node's args (schema order) and kwargs (keyword-only ones, in
  // schema order, names set first), with no array of optional values in between.
  constexpr std::uint64_t mask = given_mask<A...>;
  using layout = call_layout<OpT, mask>;
  // Known now, not when every match rolls back: a node of this op needs all its required
  // arguments, keyword-only ones too, unless forwarded kwargs may bring them.
  if constexpr (!layout::complete && std::is_same_v<std::decay_t<Fwd>, no_forward>)
    (void)errors::report<errors::replacement_misses_argument<OpT, errors::arg_name<OpT, layout::first_missing>>>();
  constexpr std::size_t num_args = layout::num_args, num_positional = layout::num_positional;
  constexpr std::uint64_t positional_bits = layout::positional_bits;
  constexpr std::size_t last_positional = layout::last_positional;
  constexpr bool has_gaps = std::popcount(mask & positional_bits) != static_cast<int>(last_positional);

  OpId op = OpT::id();
  NodeSpec spec{NodeKind::CallFunction, op, {}, {}, NodeArgs(last_positional), {}};
  NodeArgs& args = spec.args;
  std::vector<Kwarg>& kwargs = spec.kwargs;
  if constexpr (num_args > num_positional) {
    kwargs.reserve(num_args - num_positional);  // room for forwarded ones too
    for (std::size_t i = num_positional; i < num_args; ++i)
      if ((mask >> i) & 1u) kwargs.push_back(Kwarg{std::string(OpT::schema.args[i].name), Value()});
  }
  // Built in the order the call writes them, as before: nested calls create their nodes in
  // that order.
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    (
        [&] {
          constexpr std::size_t i = A::index;
          if constexpr (i < num_positional) {
            args[i] = build_value<P>(pattern::pget<K>(c.args), b, m);
          } else {
            constexpr std::size_t slot = static_cast<std::size_t>(
                std::popcount(mask & ~positional_bits & ((std::uint64_t{1} << i) - 1)));
            kwargs[slot].value = build_value<P>(pattern::pget<K>(c.args), b, m);
          }
        }(),
        ...);
  }(std::index_sequence_for<A...>{});
  if constexpr (has_gaps) {  // positional parameters left out before a given one: their defaults
    const OpSignature* sig = OpRegistry::global().signature(op);
    for (std::size_t i = 0; i < last_positional; ++i) {
      if ((mask >> i) & 1u) continue;
      if (sig && i < sig->params.size() && sig->params[i].default_value) args[i] = *sig->params[i].default_value;
      else throw GraphError(std::string(OpT::name()) + ": no value for argument '" +
                            std::string(OpT::schema.args[i].name) + "'");
    }
  }
  forward(mask, kwargs);
  // Forwarded kwargs are known only now: such a node is bound by name.
  if constexpr (std::is_same_v<std::remove_cvref_t<Fwd>, no_forward> && layout::complete) {
    // The arguments' shape (how many positional ones, which kwargs) is fixed at compile time,
    // and an op's signature is set once per process: whether the layout fits is checked once.
    static std::atomic<const OpSignature*> fits{nullptr};
    const OpSignature* sig = fits.load(std::memory_order_relaxed);
    if (!sig) {
      sig = Graph::layout_fits(NodeKind::CallFunction, op, layout::value, args.size(), kwargs);
      fits.store(sig, std::memory_order_relaxed);
    }
    spec.layout = layout::value;
    spec.layout_fits = sig;
  }
  return b.create(spec);
}

template <class P, class From, class C, class... Only, class M>
NodeId build_forward(const ForwardKwargs<From, C, Only...>& f, RewriteBuilder& b, const M& m) {
  NodeId src;
  if constexpr (std::is_void_v<From>) {
    src = m.root();
  } else {
    static_assert(check_bound<P, From>());
    static_assert(std::is_same_v<bound_type<P, From>, NodeId>,
                  "ctmatch: forward_kwargs<\"n\">: \"n\" must name a node of the pattern (.named<\"n\">())");
    src = m.template get<name_string<From>::value>();
  }
  using OpT = typename call_traits<C>::op_type;
  if constexpr (sizeof...(Only) == 0)
    static_assert(check_forwardable<op_of_named_t<P, From>, OpT>());
  return build_call<P>(f.call, b, m, [&](std::uint64_t given, std::vector<Kwarg>& kwargs) {
    forward_from<OpT, Only...>(b.graph()[src], given, kwargs, b);
  });
}

template <class>
inline constexpr bool is_forward = false;
template <class F, class C, class... O>
inline constexpr bool is_forward<ForwardKwargs<F, C, O...>> = true;
template <class>
inline constexpr bool is_list_pattern = false;
template <class... E>
inline constexpr bool is_list_pattern<pattern::ListPattern<E...>> = true;
template <class>
inline constexpr std::size_t list_size = 0;
template <class... E>
inline constexpr std::size_t list_size<pattern::ListPattern<E...>> = sizeof...(E);
template <class>
inline constexpr bool is_placeholder = false;
template <class N>
inline constexpr bool is_placeholder<pattern::Placeholder<N>> = true;
template <class>
inline constexpr bool is_slot = false;
template <class N, class T>
inline constexpr bool is_slot<pattern::Slot<N, T>> = true;
template <class>
inline constexpr bool is_const = false;
template <class T>
inline constexpr bool is_const<pattern::Const<T>> = true;

template <class E>
struct element_name;
template <class N>
struct element_name<pattern::Placeholder<N>> {
  using type = N;
};
template <class N, class T>
struct element_name<pattern::Slot<N, T>> {
  using type = N;
};

template <class P, class E, class M>
Value build_value(const E& e, RewriteBuilder& b, const M& m) {
  if constexpr (call_traits<E>::is_call) {
    return Value(NodeRef{build_call<P>(e, b, m)});
  } else if constexpr (is_forward<E>) {
    return Value(NodeRef{build_forward<P>(e, b, m)});
  } else if constexpr (is_placeholder<E> || is_slot<E>) {
    using N = typename element_name<E>::type;
    static_assert(check_bound<P, N>());
    if constexpr (binds_name<P, N>) return binding_value<P, N>(m);
    else return Value();
  } else if constexpr (is_const<E>) {
    return to_value(e.value);
  } else if constexpr (std::is_same_v<E, Use>) {
    return Value(NodeRef{e.id});
  } else if constexpr (is_list_pattern<E>) {
    std::vector<Value> items;
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (items.push_back(build_value<P>(pattern::pget<K>(e.elems), b, m)), ...);
    }(std::make_index_sequence<list_size<E>>{});
    return Value::list(std::move(items));
  } else if constexpr (std::is_same_v<E, pattern::Ignore>) {
    static_assert(pattern::detail::always_false<E>,
                  "ctmatch: _ cannot be used in a replacement: a new node needs a value there");
    return Value();
  } else {
    static_assert(pattern::detail::always_false<E>,
                  "ctmatch: a replacement is made of op calls, placeholders, slots, constants, "
                  "list(...) and forward_kwargs(...)");
    return Value();
  }
}

/// The node that takes over the root's uses.
template <class P, class E, class M>
NodeId build_root(const E& e, RewriteBuilder& b, const M& m) {
  if constexpr (call_traits<E>::is_call) {
    return build_call<P>(e, b, m);
  } else if constexpr (is_forward<E>) {
    return build_forward<P>(e, b, m);
  } else if constexpr (std::is_same_v<E, Use>) {
    return e.id;
  } else if constexpr (is_placeholder<E>) {
    using N = typename element_name<E>::type;
    static_assert(check_bound<P, N>());
    if constexpr (binds_name<P, N>) {
      static_assert(std::is_same_v<bound_type<P, N>, NodeId>,
                    "ctmatch: a replacement that is a placeholder must name a node (a Tensor "
                    "placeholder of the pattern)");
      return m.template get<name_string<N>::value>();
    } else {
      return no_node;
    }
  } else {
    static_assert(pattern::detail::always_false<E>,
                  "ctmatch: the top of a replacement must be an op call or a Tensor placeholder");
    return no_node;
  }
}

/// The names a replacement expression uses (placeholders, slots, forward_kwargs sources), as
/// an Mp11 list: rewrite<>() checks them against the pattern when the rule is declared.
template <class E>
struct used_names {
  using type = mp::mp_list<>;
};
template <class N>
struct used_names<pattern::Placeholder<N>> {
  using type = mp::mp_list<N>;
};
template <class N, class T>
struct used_names<pattern::Slot<N, T>> {
  using type = mp::mp_list<N>;
};
template <class OpT, class Opts, class Label, class... A>
struct used_names<pattern::Call<OpT, Opts, Label, A...>> {
  using type = mp::mp_append<mp::mp_list<>, typename used_names<typename A::elem>::type...>;
};
template <class... E>
struct used_names<pattern::ListPattern<E...>> {
  using type = mp::mp_append<mp::mp_list<>, typename used_names<E>::type...>;
};
template <class From, class C, class... Only>
struct used_names<ForwardKwargs<From, C, Only...>> {
  using type = mp::mp_append<std::conditional_t<std::is_void_v<From>, mp::mp_list<>, mp::mp_list<From>>,
                             typename used_names<C>::type>;
};
template <class P>
struct is_bound_in {
  template <class N>
  using fn = mp::mp_contains<pattern::bound_names<P>, N>;
};
/// Whether every name the replacement E uses is bound by pattern P.
template <class P, class E>
inline constexpr bool all_bound = mp::mp_all_of_q<typename used_names<E>::type, is_bound_in<P>>::value;
/// all_bound, reporting the first name that is not (compile_errors.hpp) when one is not.
template <class P, class E>
constexpr bool check_all_bound() {
  using names = typename used_names<E>::type;
  constexpr std::size_t i = mp::mp_find_if_q<names, mp::mp_not_fn_q<is_bound_in<P>>>::value;
  if constexpr (i < mp::mp_size<names>::value) (void)errors::report<errors::unbound_placeholder<mp::mp_at_c<names, i>>>();
  return all_bound<P, E>;
}

}  // namespace replacement_detail

/// outputs(e1, e2, ...): the declarative replacement of a multi() pattern, one expression per
/// root in the order multi() lists them (Inductor's MultiOutputPattern replacement). An
/// expression that is the root's own `.named<>()` node keeps that root's uses where they are.
template <class... E>
struct Outputs {
  pattern::Pack<E...> exprs;
};
template <class... E>
constexpr Outputs<E...> outputs(const E&... e) {
  return Outputs<E...>{pattern::Pack<E...>(e...)};
}

namespace replacement_detail {
template <class... E>
struct used_names<Outputs<E...>> {
  using type = mp::mp_append<mp::mp_list<>, typename used_names<E>::type...>;
};
template <class T>
inline constexpr bool is_outputs = false;
template <class... E>
inline constexpr bool is_outputs<Outputs<E...>> = true;
template <class T>
inline constexpr std::size_t outputs_size = 0;
template <class... E>
inline constexpr std::size_t outputs_size<Outputs<E...>> = sizeof...(E);

/// Builds every expression of `o`, in order, through the same builder.
template <class P, class M, class... E>
std::array<NodeId, sizeof...(E)> build_outputs(const Outputs<E...>& o, RewriteBuilder& b, const M& m) {
  std::array<NodeId, sizeof...(E)> out;
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    ((out[K] = build_root<P>(pattern::pget<K>(o.exprs), b, m)), ...);
  }(std::index_sequence_for<E...>{});
  return out;
}
}  // namespace replacement_detail

/// make(b, op(args...)): the typed builder of a computed replacement. `op` is an op object
/// (aten::slice.Tensor, op<"my::f(...)">) called with nodes (use(id)), C++ values computed at
/// run time, list(...) and nested calls; the call is checked against the op's schema at
/// compile time as a pattern call is (keyword names, arity, value types, required arguments).
/// Creates the nodes through the builder (before the root, rolled back with the rewrite) and
/// returns the top one. Pattern names are not in scope: use emit(expr, b, m) for those.
template <class E>
NodeId make(RewriteBuilder& b, const E& expr) {
  return replacement_detail::build_root<pattern::Ignore>(expr, b, 0);
}

/// Builds the declarative replacement `repl` for a match of pattern P (the node that takes
/// over the root's uses). Usable inside a callback replacement too.
template <class P, class E>
NodeId emit(const E& repl, RewriteBuilder& b, const pattern::Match<P>& m) {
  return replacement_detail::build_root<P>(repl, b, m);
}

}  // namespace ctmatch
