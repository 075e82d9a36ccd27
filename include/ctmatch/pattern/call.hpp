#pragma once
// Op-call patterns: `scale_cast(aten::mm("a"_x, "b"_x), "dtype"_kw = slot<"dtype", DType>)`.
//
// Calling an op (op.hpp) with pattern elements and constants builds a Call. Arguments are
// positional (the i-th goes to schema argument i) or keyword (`"name"_kw = element`); both are
// resolved to the schema argument's index at compile time, and at match time the node's
// argument is read with Node::arg(i), so positional, keyword and omitted-default forms match
// alike (an absent `clamp` is its default False). Keyword-only arguments and arguments with
// defaults that the pattern leaves out match anything, and kwargs of the node the pattern does
// not name do not block a match; `.exact_kwargs()` asks that the node write no argument the
// pattern does not name. Required positional arguments must be written (`_` for anything).
//
// Compile-time errors (compile_errors.hpp: the error's type names the keyword or argument): a
// keyword the schema lacks; more positional arguments than the schema takes; a required
// positional argument left out; an argument given twice; an element that does not fit its
// argument's type; one name bound with two types.
//
// Options, each returning a new Call:
//   .users<N>()       the node has exactly N distinct users       .any_users()  (the default)
//   .exact_kwargs()   see above
//   .commutative()    arguments 0 and 1 may match either way round (tried as written first)
//   .named<"n">()     binds the matched node to "n" (get<"n">() is its NodeId); a later "n"_x
//                     must be this node (multi-root patterns start from it)
//   .where(pred)      pred(const Node&) or pred(const Node&, const Graph&) must hold
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include <boost/mp11/algorithm.hpp>

#include "combinators.hpp"
#include "compile_errors.hpp"

namespace ctmatch::pattern {

/// `"dtype"_kw = element`: a keyword argument.
template <class Name, class E>
struct Kw {
  E elem;
};
template <class Name>
struct KwName {
  template <class A>
  constexpr Kw<Name, detail::element_t<A>> operator=(const A& a) const {
    return {detail::as_element(a)};
  }
};

/// An argument of a Call: schema index I, element E.
template <std::size_t I, class E>
struct Arg {
  static constexpr std::size_t index = I;
  using elem = E;
};

struct no_label {};

template <int Users, bool Exact, bool Comm>
struct call_opts {
  static constexpr int users = Users;  // -1: any
  static constexpr bool exact_kwargs = Exact;
  static constexpr bool commutative = Comm;
};
using default_call_opts = call_opts<-1, false, false>;

namespace detail {
/// Schema argument `i` of node `n`: written positionally, by keyword, or its default. O(1)
/// when the node was bound to the op's signature (the normal case); a node read before the
/// op's schema was known falls back to looking the keyword up by name. Positional arguments
/// bind the leading parameters in order, with a signature or without: the i-th one, when
/// written, is argument i, read from the node's first cache lines without its binding index.
template <class OpT>
inline const Value* arg_of(const Node& n, std::size_t i) {
  if (i < n.args().size()) [[likely]]
    return &n.args()[i];
  if constexpr (OpT::fx_target)  // operator.getitem: no schema, read as written
    return n.kwarg(OpT::schema.args[i].name);
  if (n.signature()) [[likely]]
    return n.arg(i);
  if (const Value* v = n.kwarg(OpT::schema.args[i].name)) return v;
  const OpSignature* sig = OpRegistry::global().signature(OpT::id());
  if (sig && i < sig->params.size() && sig->params[i].default_value) return &*sig->params[i].default_value;
  return nullptr;
}
inline std::string node_op_text(const Node& n) {
  if (n.op() != no_op) return std::string(op_name(n.op()));
  return std::string(kind_name(n.kind())) + " '" + std::string(n.name()) + "'";
}
}  // namespace detail

template <class OpT, class Opts, class Label, class... A>
struct Call : element<Call<OpT, Opts, Label, A...>> {
  using op_type = OpT;
  using options = Opts;
  Pack<typename A::elem...> args;
  constexpr explicit Call(const typename A::elem&... e) : args(e...) {}
  constexpr explicit Call(const Pack<typename A::elem...>& p) : args(p) {}

  static constexpr std::size_t calls = 1 + (A::elem::calls + ... + 0);
  static constexpr bool branches = (A::elem::branches || ...);
  static constexpr auto offsets = detail::call_offsets<typename A::elem...>();
  template <std::size_t I>
  static constexpr std::uint32_t code = detail::type_code(OpT::schema.args[I].type);

  template <std::uint32_t TC>
  static constexpr bool fits_argument = detail::is_tensor_code(TC) || detail::is_any_code(TC);
  template <std::uint32_t TC>
  static constexpr bool check() {
    static_assert(fits_argument<TC>,
                  "ctmatch: an op call is used where the schema expects a non-Tensor argument");
    return true;
  }
  template <std::uint32_t TC>
  using bindings = mp::mp_append<
      std::conditional_t<std::is_same_v<Label, no_label>, mp::mp_list<>, mp::mp_list<binding<Label, NodeId>>>,
      typename A::elem::template bindings<code<A::index>>...>;

  /// Argument Arg's element against its schema type: first the error that names the argument
  /// (when the element cannot stand for it at all), then the element's own checks.
  template <class Arg>
  static constexpr bool check_argument() {
    if constexpr (!Arg::elem::template fits_argument<code<Arg::index>>)
      (void)errors::report<errors::argument_does_not_fit<OpT, errors::arg_name<OpT, Arg::index>>>();
    return Arg::elem::template check<code<Arg::index>>();
  }
  // Checked when the call is built: each argument against its schema type, then the names.
  static_assert((check_argument<A>() && ...));
  static_assert(detail::check_distinct<bindings<detail::any_code>>());
  static_assert(!Opts::commutative ||
                    (OpT::schema.num_positional() >= 2 &&
                     detail::type_code(OpT::schema.args[0].type) == detail::type_code(OpT::schema.args[1].type)),
                "ctmatch: commutative() needs an op whose first two arguments have one type");

  // ---- options ----
  template <int N>
  constexpr auto users() const {
    static_assert(N >= 0, "ctmatch: users<N>() needs N >= 0 (any_users() for no constraint)");
    return Call<OpT, call_opts<N, Opts::exact_kwargs, Opts::commutative>, Label, A...>(args);
  }
  constexpr auto any_users() const {
    return Call<OpT, call_opts<-1, Opts::exact_kwargs, Opts::commutative>, Label, A...>(args);
  }
  constexpr auto exact_kwargs() const {
    return Call<OpT, call_opts<Opts::users, true, Opts::commutative>, Label, A...>(args);
  }
  constexpr auto commutative() const {
    return Call<OpT, call_opts<Opts::users, Opts::exact_kwargs, true>, Label, A...>(args);
  }
  template <fixed_string S>
  constexpr auto named() const {
    return Call<OpT, Opts, name<S>, A...>(args);
  }

  // ---- matching ----
  template <std::uint32_t TC, std::size_t Off, class Ctx>
  bool match(Ctx& c, const Value* v) const {
    NodeId id = v ? v->node() : no_node;
    if (id == no_node) {
      return no_match(c, FailureKind::NotANode,
                      Text::str("the result of ", OpT::name()),
                      Text::str({}).with_typed_value(v));
    }
    if constexpr (Ctx::single_use && Opts::users < 0) {  // an interior call of a single_use pattern
      if (c.g[id].num_users() != 1) {
        if constexpr (Ctx::explaining) c.sink.enter_node(Off, OpT::name(), id);
        no_match(c, FailureKind::Users, Text::str("1 user(s) (single_use)"),
                 Text::str({}).with_count(c.g[id].num_users()).then(" user(s)"));
        if constexpr (Ctx::explaining) c.sink.leave_node();
        return false;
      }
    }
    if constexpr (Ctx::explaining) return match_root<Off>(c, id);
    else return match_node<Off>(c, id);  // one function fewer per op of every pattern
  }
  template <std::uint32_t TC, std::size_t Off, class Ctx>
  const Node& observed(Ctx& c, const Value*) const { return c.g[c.st.nodes[Off]]; }

  static constexpr std::size_t root_op_count = 1;
  static void root_ops(OpId* out) { out[0] = OpT::id(); }
  template <std::size_t Off>
  static constexpr void mark_roots(bool* r) { r[Off] = true; }

  template <std::size_t Off, class Ctx>
  bool match_root(Ctx& c, NodeId id) const {
    if constexpr (Ctx::explaining) {
      c.sink.enter_node(Off, OpT::name(), id);
      bool ok = match_node<Off>(c, id);
      c.sink.leave_node();
      return ok;
    } else {
      return match_node<Off>(c, id);
    }
  }

 private:
  template <std::size_t Off, class Ctx>
  bool match_node(Ctx& c, NodeId id) const {
    const Node& n = c.g[id];
    if (n.op() != OpT::id()) {
      return no_match(c, FailureKind::Op, Text::str(OpT::name()), Text::str({}).with_node_op(id));
    }
    if constexpr (Opts::users >= 0) {
      if (n.num_users() != static_cast<std::size_t>(Opts::users)) {
        return no_match(c, FailureKind::Users,
                        Text::str({}).with_count(Opts::users).then(" user(s)"),
                        Text::str({}).with_count(n.num_users()).then(" user(s)"));
      }
    }
    if constexpr (Opts::exact_kwargs) {
      if (!exact(c, n)) return false;
    }
    c.st.nodes[Off] = id;
    if constexpr (!std::is_same_v<Label, no_label>) {
      if (!c.template bind<Label>(id)) {
        return no_match(c, FailureKind::Repeated,
                        Text::str("the node bound to '", Label::value, "' earlier"),
                        Text::str({}).with_node_name(id));
      }
    }
    constexpr auto in_order = std::make_index_sequence<sizeof...(A)>{};
    if constexpr (!Opts::commutative) {
      return match_args<false, Off>(c, n, in_order);
    } else if constexpr (Ctx::retry_restores) {
      const auto saved = c.st;
      if (match_args<false, Off>(c, n, in_order)) return true;
      c.st = saved;
      return match_args<true, Off>(c, n, in_order);
    } else {
      return match_args<false, Off>(c, n, in_order) || match_args<true, Off>(c, n, in_order);
    }
  }

  // Arguments are checked in the order a hand-written matcher would use: constants first
  // (one compare, and they often decide), then arguments that are op calls (an op-id compare
  // at the top rejects most candidates), then the rest (slots, placeholders). The order
  // changes nothing about what matches: a repeated name compares whichever occurrence comes
  // second, and extra_check runs last.
  //
  // The order is computed once per Call type (`order`), and when not explaining, each
  // argument is matched by an expression of the fold, not a function: helpers per argument
  // (or per argument and phase) multiply the functions the compiler instantiates for every op
  // of every pattern, which is what a rule set's compile time is made of.
  template <class E>
  static constexpr int phase = detail::is_const_element<E>::value ? 0 : E::calls > 0 ? 1 : 2;
  static constexpr std::array<std::size_t, sizeof...(A)> order = [] {
    constexpr std::array<int, sizeof...(A) + 1> phases = {phase<typename A::elem>..., 0};
    std::array<std::size_t, sizeof...(A)> o{};
    std::size_t j = 0;
    for (int p = 0; p < 3; ++p)
      for (std::size_t k = 0; k < sizeof...(A); ++k)
        if (phases[k] == p) o[j++] = k;
    return o;
  }();
  static constexpr std::array<std::size_t, sizeof...(A) + 1> indices = {A::index..., 0};
  /// The schema argument that pattern argument K reads (arguments 0 and 1 swapped: Swap).
  template <std::size_t K, bool Swap>
  static constexpr std::size_t read_index = !Swap ? indices[K] : indices[K] < 2 ? 1 - indices[K] : indices[K];

  template <bool Swap, std::size_t Off, class Ctx, std::size_t... J>
  bool match_args(Ctx& c, const Node& n, std::index_sequence<J...>) const {
    if constexpr (Ctx::explaining)
      return (match_arg<order[J], Swap, Off>(c, n) && ...);
    else
      return (pget<order[J]>(args).template match<code<indices[order[J]]>, Off + 1 + offsets.v[order[J]]>(
                  c, detail::arg_of<OpT>(n, read_index<order[J], Swap>)) &&
              ...);
  }
  template <std::size_t K, bool Swap, std::size_t Off, class Ctx>
  bool match_arg(Ctx& c, const Node& n) const {
    c.sink.enter_arg(OpT::schema.args[read_index<K, Swap>].name);
    bool ok = pget<K>(args).template match<code<indices[K]>, Off + 1 + offsets.v[K]>(
        c, detail::arg_of<OpT>(n, read_index<K, Swap>));
    c.sink.leave_arg();
    return ok;
  }

  static constexpr std::uint64_t mentioned = ((std::uint64_t{1} << A::index) | ... | std::uint64_t{0});

  template <class Ctx>
  static bool exact(Ctx& c, const Node& n) {
    constexpr std::size_t count = OpT::schema.num_args;
    std::size_t extra = count;  // the first written argument the pattern does not name
    if (n.signature()) {
      for (std::size_t i = 0; i < count && extra == count; ++i)
        if (!((mentioned >> i) & 1u) && n.arg_written(i)) extra = i;
    } else {  // node read before the schema was known: compare names (slow path)
      for (std::size_t i = n.args().size(); i-- > 0;)
        if (i >= count || !((mentioned >> i) & 1u)) extra = i < count ? i : 0;
      for (const Kwarg& k : n.kwargs()) {
        int i = OpT::schema.find(k.name);
        if (i < 0 || !((mentioned >> i) & 1u)) extra = i < 0 ? 0 : static_cast<std::size_t>(i);
      }
    }
    if (extra == count) return true;
    if constexpr (Ctx::explaining)
      c.sink.report(FailureKind::ExactKwargs, Text::str("only the arguments the pattern names"),
                    Text::str("'", OpT::schema.args[extra].name, "' written"));
    (void)c;
    return false;
  }
};

namespace detail {
template <class A>
struct kw_traits {
  static constexpr bool is_kw = false;
  static constexpr std::string_view name = {};
  using elem = element_t<A>;
  static constexpr elem get(const A& a) { return as_element(a); }
};
template <class N, class E>
struct kw_traits<Kw<N, E>> {
  static constexpr bool is_kw = true;
  static constexpr std::string_view name = N::value;
  using elem = E;
  static constexpr E get(const Kw<N, E>& k) { return k.elem; }
};

enum class CallError { none, unknown_kwarg, too_many_positional, given_twice, missing_required };

template <std::size_t N>
struct CallPlan {
  std::size_t index[N + 1]{};
  CallError error = CallError::none;
  /// With an error, what it is about: the call argument (unknown_kwarg, too_many_positional)
  /// or the schema argument (given_twice, missing_required), by index.
  std::size_t culprit = 0;
};

/// Which schema argument each call argument goes to, or the first arity/keyword error.
template <std::size_t N>
constexpr CallPlan<N> plan_call(const schema::FunctionSchema& s, const std::array<bool, N + 1>& is_kw,
                                const std::array<std::string_view, N + 1>& kw) {
  CallPlan<N> p;
  bool given[schema::max_arguments] = {};
  std::size_t positional = 0;
  for (std::size_t k = 0; k < N; ++k) {
    std::size_t i;
    if (!is_kw[k]) {
      i = positional++;
      if (i >= s.num_positional()) {
        p.error = CallError::too_many_positional;
        p.culprit = k;
        return p;
      }
    } else {
      int f = s.find(kw[k]);
      if (f < 0) {
        p.error = CallError::unknown_kwarg;
        p.culprit = k;
        return p;
      }
      i = static_cast<std::size_t>(f);
    }
    if (given[i]) {
      p.error = CallError::given_twice;
      p.culprit = i;
      return p;
    }
    given[i] = true;
    p.index[k] = i;
  }
  for (std::size_t i = 0; i < s.num_args; ++i)
    if (!given[i] && !s.args[i].has_default && !s.args[i].kwarg_only) {
      p.error = CallError::missing_required;
      p.culprit = i;
      return p;
    }
  return p;
}

template <class OpT, class... A>
struct call_plan {
  static constexpr CallPlan<sizeof...(A)> value = plan_call<sizeof...(A)>(
      OpT::schema, {kw_traits<A>::is_kw..., false}, {kw_traits<A>::name..., std::string_view{}});
};

/// The keyword of a call argument (its pattern::name), or void for a positional one.
template <class A>
struct keyword_of {
  using type = void;
};
template <class N, class E>
struct keyword_of<Kw<N, E>> {
  using type = N;
};

/// Whether the call op(a...) fits the op's schema; otherwise reports the error, naming the
/// keyword or argument it is about (compile_errors.hpp). A replacement call that forwards
/// kwargs may leave required arguments to them (AllowMissing).
template <class OpT, bool AllowMissing, class... A>
constexpr bool call_fits() {
  constexpr auto plan = call_plan<OpT, A...>::value;
  if constexpr (plan.error == CallError::unknown_kwarg)
    (void)errors::report<errors::unknown_keyword<OpT, typename keyword_of<mp::mp_at_c<mp::mp_list<A...>, plan.culprit>>::type>>();
  else if constexpr (plan.error == CallError::too_many_positional)
    (void)errors::report<errors::too_many_positional<OpT>>();
  else if constexpr (plan.error == CallError::given_twice)
    (void)errors::report<errors::given_twice<OpT, errors::arg_name<OpT, plan.culprit>>>();
  else if constexpr (plan.error == CallError::missing_required && !AllowMissing)
    (void)errors::report<errors::missing_argument<OpT, errors::arg_name<OpT, plan.culprit>>>();
  return plan.error == CallError::none || (AllowMissing && plan.error == CallError::missing_required);
}

/// What a call with an error returns, so that only the static_assert is reported.
struct InvalidCall : element<InvalidCall> {
  static constexpr std::size_t calls = 1;
  template <std::uint32_t TC>
  static constexpr bool check() { return true; }
  template <std::uint32_t TC>
  using bindings = mp::mp_list<>;
  template <std::uint32_t TC, std::size_t Off, class Ctx>
  bool match(Ctx&, const Value*) const { return false; }
  static constexpr std::size_t root_op_count = 1;
  static void root_ops(OpId* out) { out[0] = no_op; }
  template <std::size_t Off>
  static constexpr void mark_roots(bool* r) { r[Off] = true; }
  template <std::size_t Off, class Ctx>
  bool match_root(Ctx&, NodeId) const { return false; }
};

template <class OpT, class... A>
constexpr auto make_call(const A&... a) {
  static_assert(OpT::parsed.ok, "ctmatch: op<\"...\">: the schema string does not parse");
  if constexpr (!OpT::parsed.ok) {
    return InvalidCall{};
  } else {
    if constexpr (!call_fits<OpT, false, A...>()) {
      return InvalidCall{};
    } else {
      return [&]<std::size_t... K>(std::index_sequence<K...>) {
        return Call<OpT, default_call_opts, no_label,
                    Arg<call_plan<OpT, A...>::value.index[K], typename kw_traits<A>::elem>...>(
            kw_traits<A>::get(a)...);
      }(std::index_sequence_for<A...>{});
    }
  }
}
}  // namespace detail

}  // namespace ctmatch::pattern
