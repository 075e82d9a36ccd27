#pragma once
// The two 8-bit float output types of the epilogues, float8_e4m3fn and float8_e5m2, and the
// conversion from fp32 that torch's `.to(dtype)` performs (c10's Float8 constructors, on the
// host and on CUDA alike): round to nearest even, and no saturation: e4m3fn has no infinity,
// so every magnitude that rounds past 448 (above 464), inf and NaN become NaN (0x7f with the
// sign); e5m2 rounds past 57344 (from 61440) to inf and keeps NaN a NaN. CUDA's own
// __nv_cvt_float_to_fp8 saturates (or not) differently, so it is not used.
// Plain C++ (host and device): the host tests check it bit for bit against torch's table.
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define CTMATCH_HOST_DEVICE __host__ __device__
#else
#define CTMATCH_HOST_DEVICE
#endif

namespace ctmatch::cuda {

/// Storage of one float8_e4m3fn (1 sign, 4 exponent, 3 mantissa bits; bias 7; NaN = 0x7f).
struct fp8_e4m3fn {
  std::uint8_t bits;
};
/// Storage of one float8_e5m2 (1 sign, 5 exponent, 2 mantissa bits; bias 15; IEEE-like).
struct fp8_e5m2 {
  std::uint8_t bits;
};

namespace detail {
CTMATCH_HOST_DEVICE inline std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
CTMATCH_HOST_DEVICE inline float bits_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// fp32 -> fp8 with M mantissa bits and exponent bias B (e4m3fn: M 3, B 7; e5m2: M 2, B 15).
/// `overflow_bits`: the fp32 magnitude bits from which the result is not finite; below
/// `normal_bits` the result is subnormal, produced by adding a power of two whose ulp is the
/// fp8 subnormal step (fp32 addition rounds to nearest even for us).
template <int M, int B>
CTMATCH_HOST_DEVICE inline std::uint8_t fp8_from_float(float f, std::uint32_t overflow_bits,
                                                       std::uint8_t overflow_result, bool nan_is_distinct) {
  constexpr std::uint32_t normal_bits = std::uint32_t(127 - B + 1) << 23;  // the least fp8 normal
  constexpr std::uint32_t denorm_magic = std::uint32_t(127 - B + 1 + 23 - M) << 23;
  std::uint32_t u = float_bits(f);
  const std::uint32_t sign = u & 0x80000000u;
  u ^= sign;
  std::uint8_t r;
  if (u >= overflow_bits) {
    r = nan_is_distinct && u > 0x7f800000u ? std::uint8_t{0x7f} : overflow_result;
  } else if (u < normal_bits) {
    r = static_cast<std::uint8_t>(float_bits(bits_float(u) + bits_float(denorm_magic)) - denorm_magic);
  } else {
    const std::uint32_t odd = (u >> (23 - M)) & 1u;
    u += (std::uint32_t(B - 127) << 23) + ((1u << (22 - M)) - 1u) + odd;
    r = static_cast<std::uint8_t>(u >> (23 - M));
  }
  return static_cast<std::uint8_t>(r | (sign >> 24));
}

/// fp8 -> fp32, exact.
template <int E, int M, int B>
CTMATCH_HOST_DEVICE inline float fp8_to_float(std::uint8_t v, bool has_inf) {
  const std::uint32_t sign = std::uint32_t(v & 0x80u) << 24;
  const int exp = (v >> M) & ((1 << E) - 1);
  const int man = v & ((1 << M) - 1);
  float mag;
  if (has_inf && exp == (1 << E) - 1) mag = man ? bits_float(0x7fc00000u) : bits_float(0x7f800000u);
  else if (!has_inf && exp == (1 << E) - 1 && man == (1 << M) - 1) mag = bits_float(0x7fc00000u);
  else if (exp == 0) mag = static_cast<float>(man) * bits_float(std::uint32_t(127 - B + 1 - M) << 23);
  else mag = bits_float((std::uint32_t(exp - B + 127) << 23) | (std::uint32_t(man) << (23 - M)));
  return bits_float(float_bits(mag) | sign);
}
}  // namespace detail

/// torch's fp32 -> float8_e4m3fn (c10's threshold 0x43f00000 = 480 catches inf and NaN; the
/// magnitudes in (464, 480) reach NaN's bits by rounding).
CTMATCH_HOST_DEVICE inline fp8_e4m3fn fp8_e4m3fn_from_float(float f) {
  return {detail::fp8_from_float<3, 7>(f, 1087u << 20, 0x7f, false)};
}
/// torch's fp32 -> float8_e5m2 (c10's threshold 0x47800000 = 65536 catches inf and NaN; the
/// magnitudes in [61440, 65536) reach inf's bits by rounding).
CTMATCH_HOST_DEVICE inline fp8_e5m2 fp8_e5m2_from_float(float f) {
  return {detail::fp8_from_float<2, 15>(f, 143u << 23, 0x7c, true)};
}
CTMATCH_HOST_DEVICE inline float to_float(fp8_e4m3fn v) { return detail::fp8_to_float<4, 3, 7>(v.bits, false); }
CTMATCH_HOST_DEVICE inline float to_float(fp8_e5m2 v) { return detail::fp8_to_float<5, 2, 15>(v.bits, true); }

}  // namespace ctmatch::cuda
