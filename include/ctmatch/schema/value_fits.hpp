#pragma once
// Whether an argument value can be what the schema says the argument is: the check both
// readers make on every argument of an op whose schema is known, so that `dtype=%x`,
// `dtype='float32'` or `clamp=2` is refused where it is written instead of being matched and
// rewritten. It follows what torch accepts, loosely where a graph can hold a value ctmatch does
// not model:
// - a node may stand for any value a node can produce (a tensor, a symbolic int, float or
//   bool, a list), so it fits every slot but those of constants only: ScalarType, Layout,
//   MemoryFormat, Device and str;
// - numbers widen as torch lets them: an int fits a float, an int or a float a Scalar, and a
//   number or a bool fits a Tensor (torch.export wraps Python scalars so: `mul.Tensor(x, 0.5)`);
//   a bool is not an int, and a float is not an int;
// - None fits an optional slot (or an optional element of a list) only;
// - a list fits a list type when every element fits the element type; a sized int list
//   (`int[2] stride=1`) also takes one int, which torch repeats;
// - types ctmatch does not model (Generator, Storage, Stream, QScheme, Any) take anything.
#include <string>

#include "../graph/value.hpp"
#include "function_schema.hpp"
#include "print.hpp"

namespace ctmatch::schema {

/// Whether `v` fits one element of type `t` (t.list ignored).
inline bool element_fits(const Type& t, const Value& v) {
  using K = Value::Kind;
  const K k = v.kind();
  switch (t.base) {
    case BaseType::Tensor: return k == K::Node || k == K::Int || k == K::Double || k == K::Bool;
    case BaseType::Int:
    case BaseType::SymInt: return k == K::Int || k == K::SymInt || k == K::Node;
    case BaseType::Float:
    case BaseType::SymFloat: return k == K::Double || k == K::Int || k == K::SymInt || k == K::Node;
    case BaseType::Bool:
    case BaseType::SymBool: return k == K::Bool || k == K::Node;
    case BaseType::Scalar: return k == K::Int || k == K::Double || k == K::Bool || k == K::SymInt || k == K::Node;
    case BaseType::Str:
    case BaseType::Dimname: return k == K::String;
    case BaseType::ScalarType: return k == K::ScalarType;
    case BaseType::Layout: return k == K::Layout;
    case BaseType::MemoryFormat: return k == K::MemoryFormat;
    case BaseType::Device: return k == K::Device;
    case BaseType::Generator:
    case BaseType::Storage:
    case BaseType::Stream:
    case BaseType::QScheme:
    case BaseType::Any: return true;
  }
  return true;
}

/// Whether `v` can be an argument of type `t` (see the header comment).
inline bool value_fits(const Type& t, const Value& v) {
  if (v.is_none()) return t.optional || t.base == BaseType::Any;
  if (!t.list) return element_fits(t, v);
  if (v.is_node()) return true;  // a list a node produced
  const auto* items = v.items();
  if (!items) return t.list_size > 0 && (t.base == BaseType::Int || t.base == BaseType::SymInt) && element_fits(t, v);
  for (const Value& x : *items)
    if (x.is_none() ? !t.elem_optional : !element_fits(t, x)) return false;
  return true;
}

/// The message for a value that does not fit: "OP: argument 'dtype' is ScalarType, got str".
inline std::string misfit_message(std::string_view op, std::string_view arg, const Type& t, const Value& v) {
  std::string got = v.is_node() ? "a node" : std::string(kind_name(v.kind()));
  return std::string(op) + ": argument '" + std::string(arg) + "' is " + to_string(t) + ", got " + got;
}

}  // namespace ctmatch::schema
