#pragma once
// BFloat16: a 16-bit storage type (the top half of an IEEE float) for the host kernels' bf16
// inputs. Arithmetic happens in float: convert, compute, round back (round to nearest even).
#include <bit>
#include <cstdint>
#include <type_traits>

namespace ctmatch::tune::host {

struct BFloat16 {
  std::uint16_t bits = 0;

  BFloat16() = default;
  explicit BFloat16(float f) : bits(round(f)) {}
  explicit operator float() const { return std::bit_cast<float>(std::uint32_t{bits} << 16); }
  [[nodiscard]] float to_float() const { return static_cast<float>(*this); }
  friend bool operator==(BFloat16 a, BFloat16 b) { return a.bits == b.bits; }

 private:
  static std::uint16_t round(float f) {
    const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) != 0)  // NaN stays a (quiet) NaN
      return static_cast<std::uint16_t>((u >> 16) | 0x0040u);
    const std::uint32_t lsb = (u >> 16) & 1u;
    return static_cast<std::uint16_t>((u + 0x7fffu + lsb) >> 16);
  }
};

/// Element conversions the kernels use.
inline float to_float(float x) { return x; }
inline float to_float(BFloat16 x) { return x.to_float(); }
template <class T>
T from_float(float x) {
  if constexpr (std::is_same_v<T, BFloat16>) return BFloat16(x);
  else return x;
}

}  // namespace ctmatch::tune::host
