#pragma once
// ctmatch::dsl: the names a pattern is written with, for `using namespace ctmatch::dsl;`.
//
//   op<"schema">        declare an op (op.hpp); aten::mm, aten::add.Tensor ... in aten.hpp
//   struct f_op : Op<"schema", f_op> {}   a named op: patterns' types carry f_op, not the text
//   "x"_x               named placeholder (leaf.hpp)          _            anything
//   slot<"d", T>        typed slot (slot_types.hpp lists T)   "d"_kw = e   keyword argument
//   1, 0.5, true, "tanh", DType::Float ...                    constants
//   e.where(pred)       predicate on what e matched           a | b, any_of(a, b)  alternatives
//   list(a, b), each(e) list patterns, variadic operands      multi(r1, r2)  several roots
//   call.users<N>() .any_users() .exact_kwargs() .commutative() .named<"n">()   (call.hpp)
//   extra_check(p, f)   check on the whole match (match.hpp); extra_check(p, check<"name">(f), ...)
//                       in named parts, the failing one named by explain()
//   single_use(p)       every op call below the root has one user (unless it says users<N>())
//   match(p, g, node) -> std::optional<Match<P>>, explain(p, g, node), root_ops(p)
//   on_gpu, contiguous, in_format<F>, has_dtype<T>, tagged<Tag>, users_tagged<Tag> ...
//                       predicates on metadata and op tags for where() (meta_checks.hpp)
#include "explain.hpp"
#include "match.hpp"
#include "meta_checks.hpp"
#include "op.hpp"

namespace ctmatch::dsl {

using pattern::any_of;
using pattern::contiguous;
using pattern::has_dtype;
using pattern::in_format;
using pattern::on_device;
using pattern::on_gpu;
using pattern::tagged;
using pattern::users_tagged;
using pattern::check;
using pattern::DType;
using pattern::each;
using pattern::explain;
using pattern::extra_check;
using pattern::FloatList;
using pattern::IntList;
using pattern::list;
using pattern::match;
using pattern::single_use;
using pattern::match_into;
using pattern::Match;
using pattern::multi;
using pattern::op;
using pattern::Op;
using pattern::root_ops;
using pattern::TensorList;
using pattern::operator|;

/// `_`: matches anything, binds nothing.
inline constexpr pattern::Ignore _{};

/// `slot<"dtype", DType>`: binds the argument as a DType.
template <pattern::fixed_string S, class T>
inline constexpr pattern::Slot<pattern::name<S>, T> slot{};

inline namespace literals {
/// `"a"_x`: a named placeholder.
template <pattern::fixed_string S>
constexpr pattern::Placeholder<pattern::name<S>> operator""_x() {
  return {};
}
/// `"dtype"_kw = element`: a keyword argument.
template <pattern::fixed_string S>
constexpr pattern::KwName<pattern::name<S>> operator""_kw() {
  return {};
}
}  // namespace literals

}  // namespace ctmatch::dsl
