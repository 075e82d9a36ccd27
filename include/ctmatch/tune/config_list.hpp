#pragma once
// ConfigList: a fixed-capacity, ordered list of GemmConfigs that works in constant expressions
// (std::vector cannot leave a constant expression). The config generator returns one, so the
// same function serves a static_assert, a template-argument list and a run-time call.
#include <array>
#include <cstddef>
#include <stdexcept>

#include "gemm_config.hpp"

namespace ctmatch::tune {

template <std::size_t Capacity>
struct ConfigList {
  std::array<GemmConfig, Capacity> items{};
  std::size_t count = 0;

  constexpr void push_back(const GemmConfig& c) {
    if (count == Capacity) throw std::length_error("ctmatch: ConfigList capacity exceeded");
    items[count++] = c;
  }
  [[nodiscard]] constexpr bool contains(const GemmConfig& c) const {
    for (std::size_t i = 0; i < count; ++i)
      if (items[i] == c) return true;
    return false;
  }
  [[nodiscard]] constexpr std::size_t size() const { return count; }
  [[nodiscard]] constexpr bool empty() const { return count == 0; }
  [[nodiscard]] constexpr const GemmConfig& operator[](std::size_t i) const { return items[i]; }
  [[nodiscard]] constexpr const GemmConfig* begin() const { return items.data(); }
  [[nodiscard]] constexpr const GemmConfig* end() const { return items.data() + count; }
};

}  // namespace ctmatch::tune
