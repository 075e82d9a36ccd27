#pragma once
// OpTag and OpTags: the tags torch puts on an op overload (`torch.Tag`, tags.yaml), which
// Inductor's passes consult (a pointwise user, a view, a random op, an op that needs its
// input strides kept). They belong to the op, not to a node: the registry holds them per op
// (OpRegistry::tags), the built-in table for ATen ops (schema/builtin_tags.hpp), and from
// Python each OpOverload's `.tags`.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace ctmatch {

enum class OpTag : std::uint8_t {
  core,
  data_dependent_output,
  dynamic_output_shape,
  flexible_layout,
  generated,
  inplace_view,
  maybe_aliasing_or_mutating,
  needs_contiguous_strides,
  needs_exact_strides,
  needs_fixed_stride_order,
  nondeterministic_bitwise,
  nondeterministic_seeded,
  pointwise,
  pt2_compliant_tag,
  reduction,
  view_copy,
  cudagraph_unsafe,
};
inline constexpr std::size_t op_tag_count = 17;

constexpr std::string_view tag_name(OpTag t) {
  constexpr std::string_view names[op_tag_count] = {
      "core", "data_dependent_output", "dynamic_output_shape", "flexible_layout", "generated",
      "inplace_view", "maybe_aliasing_or_mutating", "needs_contiguous_strides",
      "needs_exact_strides", "needs_fixed_stride_order", "nondeterministic_bitwise",
      "nondeterministic_seeded", "pointwise", "pt2_compliant_tag", "reduction", "view_copy",
      "cudagraph_unsafe"};
  return names[static_cast<std::size_t>(t)];
}

constexpr std::optional<OpTag> parse_tag(std::string_view s) {
  for (std::size_t i = 0; i < op_tag_count; ++i)
    if (tag_name(static_cast<OpTag>(i)) == s) return static_cast<OpTag>(i);
  return std::nullopt;
}

/// A set of tags, one bit each.
struct OpTags {
  std::uint32_t bits = 0;
  constexpr OpTags() = default;
  constexpr OpTags(std::initializer_list<OpTag> ts) {
    for (OpTag t : ts) bits |= bit(t);
  }
  constexpr bool has(OpTag t) const { return bits & bit(t); }
  constexpr bool empty() const { return bits == 0; }
  constexpr OpTags& operator|=(OpTags o) {
    bits |= o.bits;
    return *this;
  }
  friend constexpr bool operator==(OpTags, OpTags) = default;

  /// `pointwise,core`: tag names separated by commas; nullopt at an unknown name.
  static constexpr std::optional<OpTags> parse(std::string_view s) {
    OpTags out;
    while (!s.empty()) {
      auto comma = s.find(',');
      auto t = parse_tag(s.substr(0, comma));
      if (!t) return std::nullopt;
      out.bits |= bit(*t);
      s = comma == std::string_view::npos ? std::string_view{} : s.substr(comma + 1);
    }
    return out;
  }
  /// The names in enum order, separated by commas.
  std::string str() const {
    std::string out;
    for (std::size_t i = 0; i < op_tag_count; ++i)
      if (has(static_cast<OpTag>(i))) {
        if (!out.empty()) out += ',';
        out += tag_name(static_cast<OpTag>(i));
      }
    return out;
  }

 private:
  static constexpr std::uint32_t bit(OpTag t) { return std::uint32_t{1} << static_cast<unsigned>(t); }
};

}  // namespace ctmatch
