// The epilogues' fp32 -> float8 conversion (cuda/fp8.hpp), on the host: torch's semantics at
// the edges (round to nearest even, no saturation: e4m3fn's NaN past 464, e5m2's inf from
// 61440), the exact inverse on every one of the 256 codes, and bit for bit the table torch's
// own .to() produced on the GPU (tests/data/fp8_torch_casts.txt).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>

#include <ctmatch/cuda/fp8.hpp>

#include "test_data.hpp"

using namespace ctmatch::cuda;

namespace {
std::uint8_t e4(float f) { return fp8_e4m3fn_from_float(f).bits; }
std::uint8_t e5(float f) { return fp8_e5m2_from_float(f).bits; }
float from_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
constexpr float pinf = std::numeric_limits<float>::infinity();
constexpr float qnan = std::numeric_limits<float>::quiet_NaN();
}  // namespace

TEST_CASE("float8_e4m3fn: rounding, the largest finite value, NaN past it") {
  CHECK(e4(0.0f) == 0x00);
  CHECK(e4(-0.0f) == 0x80);
  CHECK(e4(1.0f) == 0x38);
  CHECK(e4(-1.0f) == 0xb8);
  CHECK(e4(448.0f) == 0x7e);
  CHECK(e4(464.0f) == 0x7e);   // the tie between 448 and 480 goes to the even 448
  CHECK(e4(464.5f) == 0x7f);   // past it: 480 does not exist, NaN
  CHECK(e4(1e6f) == 0x7f);
  CHECK(e4(-1e6f) == 0xff);
  CHECK(e4(pinf) == 0x7f);
  CHECK(e4(-pinf) == 0xff);
  CHECK(e4(qnan) == 0x7f);
  CHECK(e4(1.0625f) == 0x38);  // tie between 1 and 1.125: to even (1)
  CHECK(e4(1.1875f) == 0x3a);  // tie between 1.125 and 1.25: to even (1.25)
  CHECK(e4(std::ldexp(1.0f, -9)) == 0x01);         // the least subnormal
  CHECK(e4(std::ldexp(1.0f, -10)) == 0x00);        // half of it: tie to even (0)
  CHECK(e4(std::ldexp(1.5f, -10)) == 0x01);
  CHECK(e4(std::ldexp(7.0f, -9)) == 0x07);         // the largest subnormal
  CHECK(e4(std::ldexp(1.0f, -6)) == 0x08);         // the least normal
}

TEST_CASE("float8_e5m2: rounding, pinf from 61440, NaN kept") {
  CHECK(e5(1.0f) == 0x3c);
  CHECK(e5(57344.0f) == 0x7b);
  CHECK(e5(61439.0f) == 0x7b);
  CHECK(e5(61440.0f) == 0x7c);  // the tie past the largest finite value rounds up to pinf
  CHECK(e5(-1e9f) == 0xfc);
  CHECK(e5(pinf) == 0x7c);
  CHECK(e5(-pinf) == 0xfc);
  CHECK(e5(qnan) == 0x7f);
  CHECK(e5(-qnan) == 0xff);
  CHECK(e5(std::ldexp(1.0f, -16)) == 0x01);  // the least subnormal
  CHECK(e5(std::ldexp(1.0f, -14)) == 0x04);  // the least normal
}

TEST_CASE("every code converts to fp32 and back to itself") {
  for (int c = 0; c < 256; ++c) {
    const auto b = static_cast<std::uint8_t>(c);
    const float f4 = to_float(fp8_e4m3fn{b});
    const float f5 = to_float(fp8_e5m2{b});
    INFO("code ", c);
    if ((c & 0x7f) == 0x7f) CHECK(std::isnan(f4));
    else CHECK(e4(f4) == b);
    if ((c & 0x7f) > 0x7c) CHECK(std::isnan(f5));
    else CHECK(e5(f5) == b);
  }
  CHECK(to_float(fp8_e4m3fn{0x7e}) == 448.0f);
  CHECK(to_float(fp8_e5m2{0x7b}) == 57344.0f);
  CHECK(to_float(fp8_e5m2{0x7c}) == pinf);
}

TEST_CASE("bit for bit what torch's .to() gave on the GPU") {
  std::istringstream in(read_test_data("fp8_torch_casts.txt"));
  std::string line;
  int rows = 0, nonfinite = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    unsigned x = 0, a = 0, b = 0;
    REQUIRE(std::sscanf(line.c_str(), "%x %x %x", &x, &a, &b) == 3);
    const float f = from_bits(x);
    INFO("input ", f, " (bits ", line, ")");
    CHECK(e4(f) == a);
    CHECK(e5(f) == b);
    nonfinite += !std::isfinite(f);
    ++rows;
  }
  CHECK(rows > 1000);
  CHECK(nonfinite >= 4);
}
