#pragma once
// Template uids, devices and op names in tune are fixed_strings, so that a registry made of
// types can compare them at compile time (duplicate uid or duplicate heuristic key =
// static_assert) and a uid's text lives in the type. This header says what a valid uid is.
#include <cstddef>
#include <string_view>

#include "../fixed_string.hpp"

namespace ctmatch::tune {

using ::ctmatch::fixed_string;

/// "Any device" / "any op" in a heuristic key, as Inductor's `None`.
inline constexpr fixed_string any = "";

/// A uid (or a device, an op name) as a type, for compile errors that print it.
template <fixed_string S>
struct uid_name {};

/// Where `::` starts in a uid, or npos. (A plain loop: g++ 12 with -fsanitize=undefined cannot
/// evaluate string_view::find on a template argument's characters in a constant expression.)
constexpr std::size_t uid_separator(std::string_view uid) {
  for (std::size_t i = 0; i + 1 < uid.size(); ++i)
    if (uid[i] == ':' && uid[i + 1] == ':') return i;
  return std::string_view::npos;
}

/// A template uid is `backend::name`: a non-empty backend prefix (letters, digits, `_`), `::`,
/// and a non-empty name. The prefix says which backend owns the kernel: `aten` (extern library
/// calls), `cuda` (ctmatch's CUDA templates), `host` (the CPU templates), or a user's own.
constexpr bool is_valid_uid(std::string_view uid) {
  const auto sep = uid_separator(uid);
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
  const auto sep = uid_separator(uid);
  return sep == std::string_view::npos ? std::string_view{} : uid.substr(0, sep);
}

}  // namespace ctmatch::tune
