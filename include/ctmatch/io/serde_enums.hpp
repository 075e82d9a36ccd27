#pragma once
// The enum numbering of torch.export's serialized format (torch/_export/serde/schema.py:
// ScalarType, Layout, MemoryFormat). It differs from c10's numbering, which ctmatch uses
// in memory (graph/scalar_type.hpp, graph/layout.hpp): serde ScalarType counts from 1 (0 is
// UNKNOWN) and puts the newer dtypes at 28 and above; serde Layout puts Strided last (7);
// serde MemoryFormat puts Preserve last (4). The JSON reader and writer translate here, at
// the boundary, and nowhere else.
#include <cstdint>
#include <optional>

#include "../graph/layout.hpp"
#include "../graph/scalar_type.hpp"

namespace ctmatch::io::serde {

namespace detail {
template <class E>
struct Code {
  std::int64_t serde;
  E value;
};
inline constexpr Code<ScalarType> scalar_types[] = {
    {1, ScalarType::Byte},           {2, ScalarType::Char},
    {3, ScalarType::Short},          {4, ScalarType::Int},
    {5, ScalarType::Long},           {6, ScalarType::Half},
    {7, ScalarType::Float},          {8, ScalarType::Double},
    {9, ScalarType::ComplexHalf},    {10, ScalarType::ComplexFloat},
    {11, ScalarType::ComplexDouble}, {12, ScalarType::Bool},
    {13, ScalarType::BFloat16},      {28, ScalarType::UInt16},
    {29, ScalarType::Float8_e4m3fn}, {30, ScalarType::Float8_e5m2},
    {31, ScalarType::Float8_e4m3fnuz}, {32, ScalarType::Float8_e5m2fnuz},
    {33, ScalarType::Float8_e8m0fnu}, {34, ScalarType::UInt32},
    {35, ScalarType::UInt64},
};
inline constexpr Code<Layout> layouts[] = {
    {1, Layout::Sparse},    {2, Layout::SparseCsr}, {3, Layout::SparseCsc}, {4, Layout::SparseBsr},
    {5, Layout::SparseBsc}, {6, Layout::Mkldnn},    {7, Layout::Strided},
};
inline constexpr Code<MemoryFormat> memory_formats[] = {
    {1, MemoryFormat::Contiguous},
    {2, MemoryFormat::ChannelsLast},
    {3, MemoryFormat::ChannelsLast3d},
    {4, MemoryFormat::Preserve},
};
template <class E, std::size_t N>
constexpr std::optional<E> from(const Code<E> (&table)[N], std::int64_t code) {
  for (const auto& c : table)
    if (c.serde == code) return c.value;
  return std::nullopt;
}
template <class E, std::size_t N>
constexpr std::optional<std::int64_t> to(const Code<E> (&table)[N], E value) {
  for (const auto& c : table)
    if (c.value == value) return c.serde;
  return std::nullopt;
}
}  // namespace detail

/// The dtype a serde ScalarType number stands for; nullopt for UNKNOWN (0) and unused numbers.
constexpr std::optional<ScalarType> scalar_type_from_serde(std::int64_t code) {
  return detail::from(detail::scalar_types, code);
}
/// The serde number of a dtype; nullopt for dtypes the serialized format cannot name
/// (quantized and bit types, the sub-byte ints).
constexpr std::optional<std::int64_t> scalar_type_to_serde(ScalarType t) {
  return detail::to(detail::scalar_types, t);
}
constexpr std::optional<Layout> layout_from_serde(std::int64_t code) {
  return detail::from(detail::layouts, code);
}
/// nullopt for Layout::Jagged, which the serialized format has no number for.
constexpr std::optional<std::int64_t> layout_to_serde(Layout l) { return detail::to(detail::layouts, l); }
constexpr std::optional<MemoryFormat> memory_format_from_serde(std::int64_t code) {
  return detail::from(detail::memory_formats, code);
}
constexpr std::optional<std::int64_t> memory_format_to_serde(MemoryFormat m) {
  return detail::to(detail::memory_formats, m);
}

// The numbering, pinned where a wrong table would silently swap dtypes.
static_assert(*scalar_type_from_serde(7) == ScalarType::Float);
static_assert(*scalar_type_from_serde(5) == ScalarType::Long);
static_assert(*scalar_type_from_serde(12) == ScalarType::Bool);
static_assert(*scalar_type_from_serde(13) == ScalarType::BFloat16);
static_assert(!scalar_type_from_serde(0) && !scalar_type_from_serde(14));
static_assert(*layout_from_serde(7) == Layout::Strided);
static_assert(*memory_format_from_serde(1) == MemoryFormat::Contiguous);
static_assert(*memory_format_from_serde(4) == MemoryFormat::Preserve);

}  // namespace ctmatch::io::serde
