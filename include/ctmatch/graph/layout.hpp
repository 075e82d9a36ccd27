#pragma once
// Layout and MemoryFormat: how a tensor's elements are arranged, numbered as c10 numbers them.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ctmatch {

enum class Layout : std::uint8_t { Strided = 0, Sparse, SparseCsr, Mkldnn, SparseCsc, SparseBsr, SparseBsc, Jagged };

enum class MemoryFormat : std::uint8_t { Contiguous = 0, Preserve, ChannelsLast, ChannelsLast3d };

inline constexpr std::size_t layout_count = 8;
inline constexpr std::size_t memory_format_count = 4;

/// The name after `torch.` as FX prints it: `strided`, `sparse_coo`, ...
constexpr std::string_view torch_name(Layout l) {
  constexpr std::string_view names[] = {"strided",    "sparse_coo", "sparse_csr", "_mkldnn",
                                        "sparse_csc", "sparse_bsr", "sparse_bsc", "jagged"};
  return names[static_cast<std::size_t>(l)];
}
constexpr std::string_view torch_name(MemoryFormat m) {
  constexpr std::string_view names[] = {"contiguous_format", "preserve_format", "channels_last",
                                        "channels_last_3d"};
  return names[static_cast<std::size_t>(m)];
}
constexpr std::optional<Layout> parse_layout(std::string_view s) {
  for (std::uint8_t i = 0; i <= static_cast<std::uint8_t>(Layout::Jagged); ++i)
    if (torch_name(static_cast<Layout>(i)) == s) return static_cast<Layout>(i);
  return std::nullopt;
}
constexpr std::optional<MemoryFormat> parse_memory_format(std::string_view s) {
  for (std::uint8_t i = 0; i <= static_cast<std::uint8_t>(MemoryFormat::ChannelsLast3d); ++i)
    if (torch_name(static_cast<MemoryFormat>(i)) == s) return static_cast<MemoryFormat>(i);
  return std::nullopt;
}

}  // namespace ctmatch
