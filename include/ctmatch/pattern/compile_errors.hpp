#pragma once
// Compile-time errors that name their culprit. Each is a class template over the names it is
// about (the op, the argument, the placeholder); naming one for a misuse fails its
// static_assert, and the compiler's first lines name the instantiation before any other
// template noise, e.g. with g++:
//
//   In instantiation of 'struct ctmatch::errors::unknown_keyword<ctmatch::pattern::Op<...
//     {"seedlib::scale_cast(Tensor x, *, ScalarType dtype, ...) -> Tensor"}>,
//     ctmatch::pattern::name<ctmatch::fixed_string<5>{"dtyp"}> >'
//   error: static assertion failed: ctmatch: keyword argument is not in the op's schema
//
// Names are types (pattern::name<"dtyp">, the op type), so they print as written.
#include <cstddef>
#include <string_view>

#include "../compile_error.hpp"
#include "name.hpp"

namespace ctmatch::errors {

/// The name of argument I of an op's schema, as a type (pattern::name).
template <class OpT, std::size_t I>
inline constexpr auto arg_name_string =
    fixed_string<OpT::schema.args[I].name.size() + 1>(OpT::schema.args[I].name);
template <class OpT, std::size_t I>
using arg_name = pattern::name<arg_name_string<OpT, I>>;

template <class Op, class Keyword>
struct unknown_keyword {
  static_assert(never<Op, Keyword>, "ctmatch: keyword argument is not in the op's schema");
};
template <class Op>
struct too_many_positional {
  static_assert(never<Op>, "ctmatch: wrong arity: more positional arguments than the op's schema takes");
};
template <class Op, class Argument>
struct missing_argument {
  static_assert(never<Op, Argument>,
                "ctmatch: wrong arity: a required positional argument of the op's schema is missing (write _ "
                "to match anything)");
};
template <class Op, class Argument>
struct given_twice {
  static_assert(never<Op, Argument>, "ctmatch: an argument is given twice (positionally and by keyword)");
};
template <class Op, class Argument>
struct argument_does_not_fit {
  static_assert(never<Op, Argument>,
                "ctmatch: this argument of the op's schema cannot take what the pattern gives it (a constant "
                "of another type, or an op call where the schema wants a non-Tensor)");
};
template <class Slot, class Type>
struct slot_type_does_not_fit {
  static_assert(never<Slot, Type>, "ctmatch: the slot's type cannot hold the schema argument's type");
};
template <class Name>
struct name_with_two_types {
  static_assert(never<Name>, "ctmatch: one name is bound with two different types");
};
template <class Name>
struct no_such_name {
  static_assert(never<Name>, "ctmatch: get<\"name\">() / has<\"name\">(): the pattern binds no such name");
};
template <class Name>
struct unbound_placeholder {
  static_assert(never<Name>, "ctmatch: the replacement uses a placeholder that the pattern never binds");
};
template <class Op, class Argument>
struct replacement_misses_argument {
  static_assert(never<Op, Argument>,
                "ctmatch: a replacement's op call leaves out a required argument of the op's schema (a "
                "keyword-only one too): give it, or take it from the matched node with forward_kwargs");
};
template <class Keyword>
struct forward_kwargs_would_drop {
  static_assert(never<Keyword>,
                "ctmatch: forward_kwargs: the matched op has this keyword-only argument and the new op's schema "
                "does not, so a value written for it would be dropped; name the kwargs to forward "
                "(forward_kwargs<\"node\", \"kwarg\"...>)");
};
template <class Anchor>
struct multi_anchor_not_bound_earlier {
  static_assert(never<Anchor>,
                "ctmatch: multi(): a further root's placeholder must name a node bound by an earlier root (use "
                ".named<\"s\">() on the shared node)");
};

}  // namespace ctmatch::errors
