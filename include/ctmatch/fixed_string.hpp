#pragma once
// fixed_string: a string literal usable as a template argument. It is the one shared utility
// below every layer: pattern names and op schemas (op<"aten::mm(...)">, "a"_x) and tune's
// template uids ("cuda::mm") are template arguments, so a name is part of a type, compared and
// resolved at compile time, never at run time.
#include <cstddef>
#include <string_view>

namespace ctmatch {

template <std::size_t N>
struct fixed_string {
  char data[N]{};  // N counts the terminating '\0'
  constexpr fixed_string(const char (&s)[N]) {  // NOLINT: implicit on purpose ("x" as an argument)
    for (std::size_t i = 0; i < N; ++i) data[i] = s[i];
  }
  /// From a compile-time view of N - 1 characters (a name inside a parsed schema, to put it
  /// into a type, as an error type names its culprit).
  constexpr explicit fixed_string(std::string_view s) {
    for (std::size_t i = 0; i + 1 < N && i < s.size(); ++i) data[i] = s[i];
  }
  [[nodiscard]] constexpr std::string_view view() const { return {data, N - 1}; }
  [[nodiscard]] constexpr std::size_t size() const { return N - 1; }
  constexpr operator std::string_view() const { return view(); }  // NOLINT
  template <std::size_t M>
  friend constexpr bool operator==(const fixed_string& a, const fixed_string<M>& b) {
    return a.view() == b.view();
  }
};
template <std::size_t N>
fixed_string(const char (&)[N]) -> fixed_string<N>;

}  // namespace ctmatch
