#pragma once
// op<"schema">: an op declared from its PyTorch schema string, as a callable pattern builder.
//
//   constexpr auto scale_cast = op<"seedlib::scale_cast(Tensor x, *, ScalarType dtype, "
//                                  "bool clamp=False, float scale=1.0) -> Tensor">;
//   scale_cast("x"_x, "dtype"_kw = slot<"dtype", DType>)      // a Call pattern
//
// The schema is parsed in a constant expression (schema/parse.hpp), so the op's argument
// names, positions, keyword-only markers, types and defaults are known at compile time; a
// schema that does not parse is a static_assert. At run time the op is interned once per op
// type, on first use: its schema is registered (schema/signature.hpp) so that graph nodes
// built or read afterwards bind their arguments to it, and its OpId is what the matcher
// compares (an integer compare per node, never a string).
//
// The template argument object that holds the schema text lives for the whole program, so
// the registry keeps a view of it (register_static_schema), not a copy.
//
// A named op keeps the schema text out of pattern types:
//
//   struct mm_op : Op<"aten::mm(Tensor self, Tensor mat2) -> Tensor", mm_op> {};
//   inline constexpr mm_op mm{};
//
// Calls of `mm` are Call<mm_op, ...>, not Call<Op<"aten::mm(...)">, ...>: a pattern's type
// names each of its ops, and every function instantiated for it carries that type in its
// symbol. With the schema text as the op's identity, a tree of twenty ops makes symbols of
// tens of kilobytes, and the compiler and assembler hash and compare them all (a rule set of
// SDPA trees spent more time on that than on anything else at -O0). Ops that many patterns
// use are declared this way (aten.hpp); `op<"...">` is for the odd one.
//
// The interned name is the one graphs use: `ns.name.overload`, `.default` when the schema has
// no overload (`aten.mm.default`, `aten.add.Tensor`), and `operator.getitem` for the
// `operator` namespace.
#include <array>
#include <atomic>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include "../schema/parse.hpp"
#include "../schema/registry.hpp"
#include "call.hpp"

namespace ctmatch::pattern {

namespace detail {
constexpr std::size_t op_name_length(const schema::FunctionSchema& s) {
  if (s.ns == "operator") return s.ns.size() + 1 + s.name.size();
  return s.ns.size() + 1 + s.name.size() + 1 + (s.overload.empty() ? 7 : s.overload.size());
}
template <std::size_t N>
constexpr std::array<char, N> op_name_chars(const schema::FunctionSchema& s) {
  std::array<char, N> out{};
  std::size_t k = 0;
  auto put = [&](std::string_view t) {
    for (char ch : t)
      if (k < N) out[k++] = ch;
  };
  put(s.ns);
  put(".");
  put(s.name);
  if (s.ns != "operator") {
    put(".");
    put(s.overload.empty() ? std::string_view("default") : s.overload);
  }
  return out;
}

/// Registers the op's schema (the registry throws std::invalid_argument when the op is already
/// registered with another interface: argument indices would disagree) and interns its key.
/// Ops of the `operator` namespace (`operator.getitem`) are FX targets without a registered
/// schema: they are only interned, and their nodes are read as written.
inline OpId register_op(std::string_view text, std::string_view name, const schema::FunctionSchema& s) {
  if (s.ns == "operator") return intern_op(name);
  OpId id = schema::register_static_schema(text);
  if (op_name(id) != name)
    throw std::logic_error("ctmatch: op " + std::string(name) + " registered as " + std::string(op_name(id)));
  return id;
}
}  // namespace detail

template <fixed_string S, class Self = void>
struct Op {
  /// What calls of this op carry: Self for a named op, otherwise this type.
  using type = std::conditional_t<std::is_void_v<Self>, Op, Self>;

  // Static data members of a class template are instantiated on first use: declaring an op
  // (aten.hpp declares dozens) parses nothing until a pattern uses it.
  static constexpr schema::ParseResult parsed = schema::parse_schema(S.view());
  static constexpr const schema::FunctionSchema& schema = parsed.schema;

  static constexpr std::size_t name_length = detail::op_name_length(parsed.schema);
  static constexpr std::array<char, name_length> name_chars =
      detail::op_name_chars<name_length>(parsed.schema);
  /// The interned name: `aten.add.Tensor`.
  static constexpr std::string_view name() {
    static_assert(parsed.ok, "ctmatch: op<\"...\">: the schema string does not parse");
    return {name_chars.data(), name_length};
  }
  /// Whether the op is an FX target without a registered schema (`operator.getitem`).
  static constexpr bool fx_target = parsed.schema.ns == "operator";
  /// The schema text as declared.
  static constexpr std::string_view schema_text() { return S.view(); }

  /// The op's id, interned (and its schema registered) on first use. The fast path is one
  /// relaxed load (no guard variable): registering is idempotent, so two threads racing on
  /// the first use both store the same id.
  static OpId id() {
    static_assert(parsed.ok, "ctmatch: op<\"...\">: the schema string does not parse");
    OpId v = cached_id.load(std::memory_order_relaxed);
    if (v != no_op) [[likely]]
      return v;
    v = detail::register_op(S.view(), name(), parsed.schema);
    cached_id.store(v, std::memory_order_relaxed);
    return v;
  }

  static inline std::atomic<OpId> cached_id{no_op};

  /// Builds a Call pattern (call.hpp).
  template <class... A>
  constexpr auto operator()(const A&... a) const {
    return detail::make_call<type>(a...);
  }
};

/// `op<"aten::mm(Tensor self, Tensor mat2) -> Tensor">` — see the top of this header.
template <fixed_string S>
inline constexpr Op<S> op{};

}  // namespace ctmatch::pattern
