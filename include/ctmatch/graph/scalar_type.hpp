#pragma once
// ScalarType: every PyTorch dtype, numbered as c10 numbers them (c10/core/ScalarType.h).
// Readers translate other numberings (torch.export's serde enum) at the boundary.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ctmatch {

enum class ScalarType : std::uint8_t {
  Byte = 0, Char, Short, Int, Long, Half, Float, Double, ComplexHalf, ComplexFloat, ComplexDouble,
  Bool, QInt8, QUInt8, QInt32, BFloat16, QUInt4x2, QUInt2x4, Bits1x8, Bits2x4, Bits4x2, Bits8,
  Bits16, Float8_e5m2, Float8_e4m3fn, Float8_e5m2fnuz, Float8_e4m3fnuz, UInt16, UInt32, UInt64,
  UInt1, UInt2, UInt3, UInt4, UInt5, UInt6, UInt7, Int1, Int2, Int3, Int4, Int5, Int6, Int7,
  Float8_e8m0fnu, Float4_e2m1fn_x2,
};
inline constexpr std::size_t scalar_type_count = 46;

namespace detail {
struct ScalarTypeInfo {
  std::string_view torch_name;  // as `torch.X` prints, without the `torch.` prefix
  std::uint8_t itemsize;        // bytes per element (sub-byte types round up to 1)
};
inline constexpr std::array<ScalarTypeInfo, scalar_type_count> scalar_type_info{{
    {"uint8", 1}, {"int8", 1}, {"int16", 2}, {"int32", 4}, {"int64", 8}, {"float16", 2},
    {"float32", 4}, {"float64", 8}, {"complex32", 4}, {"complex64", 8}, {"complex128", 16},
    {"bool", 1}, {"qint8", 1}, {"quint8", 1}, {"qint32", 4}, {"bfloat16", 2}, {"quint4x2", 1},
    {"quint2x4", 1}, {"bits1x8", 1}, {"bits2x4", 1}, {"bits4x2", 1}, {"bits8", 1}, {"bits16", 2},
    {"float8_e5m2", 1}, {"float8_e4m3fn", 1}, {"float8_e5m2fnuz", 1}, {"float8_e4m3fnuz", 1},
    {"uint16", 2}, {"uint32", 4}, {"uint64", 8}, {"uint1", 1}, {"uint2", 1}, {"uint3", 1},
    {"uint4", 1}, {"uint5", 1}, {"uint6", 1}, {"uint7", 1}, {"int1", 1}, {"int2", 1},
    {"int3", 1}, {"int4", 1}, {"int5", 1}, {"int6", 1}, {"int7", 1}, {"float8_e8m0fnu", 1},
    {"float4_e2m1fn_x2", 1},
}};
}  // namespace detail

/// `float32` for ScalarType::Float (print as `torch.` + name).
constexpr std::string_view torch_name(ScalarType t) {
  return detail::scalar_type_info[static_cast<std::size_t>(t)].torch_name;
}
constexpr std::size_t itemsize(ScalarType t) {
  return detail::scalar_type_info[static_cast<std::size_t>(t)].itemsize;
}
constexpr bool is_floating_point(ScalarType t) {
  switch (t) {
    case ScalarType::Half: case ScalarType::Float: case ScalarType::Double:
    case ScalarType::BFloat16: case ScalarType::Float8_e5m2: case ScalarType::Float8_e4m3fn:
    case ScalarType::Float8_e5m2fnuz: case ScalarType::Float8_e4m3fnuz:
    case ScalarType::Float8_e8m0fnu: return true;
    default: return false;
  }
}
constexpr bool is_complex(ScalarType t) {
  return t == ScalarType::ComplexHalf || t == ScalarType::ComplexFloat || t == ScalarType::ComplexDouble;
}

/// Parses a torch dtype name without `torch.` (`float32`), and the aliases torch accepts
/// (`float`, `half`, `double`, `long`, `int`, `short`, `cfloat`, `cdouble`, `chalf`).
constexpr std::optional<ScalarType> parse_scalar_type(std::string_view s) {
  for (std::size_t i = 0; i < scalar_type_count; ++i)
    if (detail::scalar_type_info[i].torch_name == s) return static_cast<ScalarType>(i);
  struct Alias { std::string_view name; ScalarType type; };
  constexpr Alias aliases[] = {
      {"float", ScalarType::Float},   {"half", ScalarType::Half},
      {"double", ScalarType::Double}, {"long", ScalarType::Long},
      {"int", ScalarType::Int},       {"short", ScalarType::Short},
      {"cfloat", ScalarType::ComplexFloat}, {"cdouble", ScalarType::ComplexDouble},
      {"chalf", ScalarType::ComplexHalf},
  };
  for (auto a : aliases)
    if (a.name == s) return a.type;
  return std::nullopt;
}

}  // namespace ctmatch
