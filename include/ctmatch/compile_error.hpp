#pragma once
// How ctmatch's compile errors name their culprit, shared by the layers that have them
// (pattern/compile_errors.hpp, tune/compile_errors.hpp): each error is a class template over
// the names it is about, whose static_assert is `never<...>`; naming it with report<E>() fires
// it, and the compiler's first lines print the instantiation, names included.

namespace ctmatch::errors {

template <class...>
inline constexpr bool never = false;

/// `errors::report<E>()` makes E's static_assert fire.
template <class E>
constexpr bool report() {
  return sizeof(E) == 0;
}

}  // namespace ctmatch::errors
