#pragma once
// FixedString: a string literal usable as a template argument. Template uids, devices and op
// names are FixedStrings so that a registry made of types can compare them at compile time
// (duplicate uid or duplicate heuristic key = static_assert), and a uid's text lives in the type.
#include <algorithm>
#include <cstddef>
#include <string_view>

namespace ctmatch::tune {

template <std::size_t N>
struct FixedString {
  char data[N] = {};
  constexpr FixedString(const char (&s)[N]) { std::copy_n(s, N, data); }  // NOLINT: implicit on purpose
  [[nodiscard]] constexpr std::string_view view() const { return {data, N - 1}; }
  [[nodiscard]] constexpr std::size_t size() const { return N - 1; }
  constexpr operator std::string_view() const { return view(); }  // NOLINT
  template <std::size_t M>
  friend constexpr bool operator==(const FixedString& a, const FixedString<M>& b) {
    return a.view() == b.view();
  }
};

/// "Any device" / "any op" in a heuristic key, as Inductor's `None`.
inline constexpr FixedString any = "";

/// A template uid is `backend::name`: a non-empty backend prefix (letters, digits, `_`), `::`,
/// and a non-empty name. The prefix says which backend owns the kernel: `aten` (extern library
/// calls), `cuda` (ctmatch's CUDA templates), `host` (the CPU templates), or a user's own.
constexpr bool is_valid_uid(std::string_view uid) {
  const auto sep = uid.find("::");
  if (sep == std::string_view::npos || sep == 0 || sep + 2 >= uid.size()) return false;
  auto word = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  for (std::size_t i = 0; i < sep; ++i)
    if (!word(uid[i])) return false;
  for (std::size_t i = sep + 2; i < uid.size(); ++i)
    if (!word(uid[i]) && uid[i] != '.') return false;
  return true;
}

/// The backend prefix of a uid (`cuda` for `cuda::mm`).
constexpr std::string_view uid_backend(std::string_view uid) {
  const auto sep = uid.find("::");
  return sep == std::string_view::npos ? std::string_view{} : uid.substr(0, sep);
}

}  // namespace ctmatch::tune
