#pragma once
// Device: a device type and an optional index, as torch.device prints it (`cpu`, `cuda:0`).
#include <charconv>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ctmatch {

enum class DeviceType : std::uint8_t { CPU, CUDA, Meta, MPS, XPU, HIP, XLA, HPU, PrivateUse1 };

struct Device {
  DeviceType type = DeviceType::CPU;
  std::int16_t index = -1;  // -1: no index (`cuda`, not `cuda:0`)
  friend constexpr bool operator==(const Device&, const Device&) = default;
  friend constexpr auto operator<=>(const Device&, const Device&) = default;
};

constexpr std::string_view device_type_name(DeviceType t) {
  constexpr std::string_view names[] = {"cpu", "cuda", "meta", "mps", "xpu",
                                        "hip", "xla",  "hpu",  "privateuseone"};
  return names[static_cast<std::size_t>(t)];
}

inline std::string to_string(Device d) {
  std::string s(device_type_name(d.type));
  if (d.index >= 0) s += ':' + std::to_string(d.index);
  return s;
}

/// `cpu`, `cuda`, `cuda:1`; nullopt for anything else.
inline std::optional<Device> parse_device(std::string_view s) {
  auto colon = s.find(':');
  std::string_view type = s.substr(0, colon);
  Device d;
  bool known = false;
  for (std::uint8_t i = 0; i <= static_cast<std::uint8_t>(DeviceType::PrivateUse1); ++i)
    if (device_type_name(static_cast<DeviceType>(i)) == type) {
      d.type = static_cast<DeviceType>(i);
      known = true;
    }
  if (!known) return std::nullopt;
  if (colon != std::string_view::npos) {
    auto idx = s.substr(colon + 1);
    int v = 0;
    auto [p, ec] = std::from_chars(idx.data(), idx.data() + idx.size(), v);
    if (ec != std::errc{} || p != idx.data() + idx.size() || idx.empty() || v < 0 || v > 32767)
      return std::nullopt;
    d.index = static_cast<std::int16_t>(v);
  }
  return d;
}

}  // namespace ctmatch
