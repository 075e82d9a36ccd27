#pragma once
// Kwargs: the keyword arguments a template is called with, in insertion order (Inductor's
// kwargs dicts keep order, and `ctmatch-tune` prints them in that order). Per-config kwargs
// (BLOCK_M, ..., GROUP_M) and extra kwargs (alpha, beta) are both Kwargs.
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "gemm_config.hpp"

namespace ctmatch::tune {

using KwargValue = std::variant<std::monostate, bool, std::int64_t, double, std::string>;

class Kwargs {
 public:
  using Entry = std::pair<std::string, KwargValue>;

  Kwargs() = default;
  Kwargs(std::initializer_list<Entry> entries) {
    for (const auto& e : entries) set(e.first, e.second);
  }

  /// Sets `name`, replacing its value in place if present, appending otherwise
  /// (Python's `{**a, **b}` order).
  Kwargs& set(std::string_view name, KwargValue value) {
    for (auto& e : entries_)
      if (e.first == name) {
        e.second = std::move(value);
        return *this;
      }
    entries_.emplace_back(std::string(name), std::move(value));
    return *this;
  }
  /// Typed convenience: bools stay bools, integers become int64, floating point double,
  /// anything string-like a string.
  template <class V>
    requires(!std::is_same_v<std::decay_t<V>, KwargValue>)
  Kwargs& set(std::string_view name, V&& value) {
    using D = std::decay_t<V>;
    if constexpr (std::is_same_v<D, bool>) return set(name, KwargValue(value));
    else if constexpr (std::is_integral_v<D>) return set(name, KwargValue(static_cast<std::int64_t>(value)));
    else if constexpr (std::is_floating_point_v<D>) return set(name, KwargValue(static_cast<double>(value)));
    else return set(name, KwargValue(std::string(std::forward<V>(value))));
  }

  /// `{**this, **overrides}`.
  [[nodiscard]] Kwargs merged(const Kwargs& overrides) const {
    Kwargs out = *this;
    for (const auto& e : overrides.entries_) out.set(e.first, e.second);
    return out;
  }

  [[nodiscard]] const KwargValue* find(std::string_view name) const {
    for (const auto& e : entries_)
      if (e.first == name) return &e.second;
    return nullptr;
  }
  [[nodiscard]] bool contains(std::string_view name) const { return find(name) != nullptr; }
  [[nodiscard]] std::optional<std::int64_t> get_int(std::string_view name) const {
    const KwargValue* v = find(name);
    if (v == nullptr || !std::holds_alternative<std::int64_t>(*v)) return std::nullopt;
    return std::get<std::int64_t>(*v);
  }
  [[nodiscard]] std::optional<double> get_double(std::string_view name) const {
    const KwargValue* v = find(name);
    if (v == nullptr) return std::nullopt;
    if (std::holds_alternative<double>(*v)) return std::get<double>(*v);
    if (std::holds_alternative<std::int64_t>(*v)) return static_cast<double>(std::get<std::int64_t>(*v));
    return std::nullopt;
  }

  [[nodiscard]] std::size_t size() const { return entries_.size(); }
  [[nodiscard]] bool empty() const { return entries_.empty(); }
  [[nodiscard]] auto begin() const { return entries_.begin(); }
  [[nodiscard]] auto end() const { return entries_.end(); }
  friend bool operator==(const Kwargs&, const Kwargs&) = default;

 private:
  std::vector<Entry> entries_;
};

/// A GemmConfig as Inductor's template kwargs, in Inductor's names; SPLIT_K only when K is
/// split, PINGPONG only when set and CLUSTER_M only past 1 (Inductor's lists do none of them),
/// so that every other config prints as Inductor's.
inline Kwargs to_kwargs(const GemmConfig& c) {
  Kwargs k;
  k.set("BLOCK_M", c.block_m).set("BLOCK_N", c.block_n).set("BLOCK_K", c.block_k);
  k.set("num_stages", c.num_stages).set("num_warps", c.num_warps).set("GROUP_M", c.group_m);
  if (c.split_k != 1) k.set("SPLIT_K", c.split_k);
  if (c.pingpong) k.set("PINGPONG", true);
  if (c.cluster_m != 1) k.set("CLUSTER_M", c.cluster_m);
  return k;
}

/// The GemmConfig named by kwargs, if all six keys are present as ints (SPLIT_K, optional,
/// defaults to 1; PINGPONG, optional, a bool defaulting to false; CLUSTER_M, optional, an int
/// defaulting to 1).
inline std::optional<GemmConfig> gemm_config_of(const Kwargs& k) {
  auto bm = k.get_int("BLOCK_M"), bn = k.get_int("BLOCK_N"), bk = k.get_int("BLOCK_K");
  auto st = k.get_int("num_stages"), wa = k.get_int("num_warps"), gm = k.get_int("GROUP_M");
  if (!bm || !bn || !bk || !st || !wa || !gm) return std::nullopt;
  const auto sk = k.find("SPLIT_K") ? k.get_int("SPLIT_K") : std::optional<std::int64_t>(1);
  if (!sk) return std::nullopt;
  bool pingpong = false;
  if (const KwargValue* pp = k.find("PINGPONG")) {
    if (!std::holds_alternative<bool>(*pp)) return std::nullopt;
    pingpong = std::get<bool>(*pp);
  }
  const auto cm = k.find("CLUSTER_M") ? k.get_int("CLUSTER_M") : std::optional<std::int64_t>(1);
  if (!cm) return std::nullopt;
  return GemmConfig{int(*bm), int(*bn), int(*bk), int(*st), int(*wa), int(*gm), int(*sk), pingpong, int(*cm)};
}

/// A value as text: ints and bools as C++/JSON literals, doubles with enough digits, strings quoted.
inline std::string to_string(const KwargValue& v) {
  struct Visit {
    std::string operator()(std::monostate) const { return "null"; }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", d);
      std::string s = buf;
      if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
      return s;
    }
    std::string operator()(const std::string& s) const {
      std::string out = "\"";
      for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
      }
      return out + "\"";
    }
  };
  return std::visit(Visit{}, v);
}

/// `BLOCK_M=64, BLOCK_N=32, ...`.
inline std::string to_string(const Kwargs& k) {
  std::string out;
  for (const auto& [name, value] : k) {
    if (!out.empty()) out += ", ";
    out += name + "=" + to_string(value);
  }
  return out;
}

}  // namespace ctmatch::tune
