#pragma once
// DType: the element types the GEMM tuner distinguishes, with their sizes (the config
// generator's shared-memory filter needs bytes per element) and Inductor's names.
#include <cstdint>
#include <optional>
#include <string_view>

namespace ctmatch::tune {

enum class DType : std::uint8_t { f32, f16, bf16, f64, i8, f8e4m3fn, f8e5m2 };

constexpr int dtype_size(DType t) {
  switch (t) {
    case DType::f32: return 4;
    case DType::f16: return 2;
    case DType::bf16: return 2;
    case DType::f64: return 8;
    case DType::i8: return 1;
    case DType::f8e4m3fn: return 1;
    case DType::f8e5m2: return 1;
  }
  return 0;
}

constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
    case DType::f64: return "f64";
    case DType::i8: return "i8";
    case DType::f8e4m3fn: return "f8e4m3fn";
    case DType::f8e5m2: return "f8e5m2";
  }
  return "?";
}

constexpr std::optional<DType> parse_dtype(std::string_view s) {
  if (s == "f32" || s == "float32") return DType::f32;
  if (s == "f16" || s == "float16") return DType::f16;
  if (s == "bf16" || s == "bfloat16") return DType::bf16;
  if (s == "f64" || s == "float64") return DType::f64;
  if (s == "i8" || s == "int8") return DType::i8;
  if (s == "f8e4m3fn" || s == "float8_e4m3fn") return DType::f8e4m3fn;
  if (s == "f8e5m2" || s == "float8_e5m2") return DType::f8e5m2;
  return std::nullopt;
}

}  // namespace ctmatch::tune
