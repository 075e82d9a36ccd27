#pragma once
// Value: one argument of a node, as a compact tagged value. It holds every kind of argument a
// PyTorch FX / torch.export graph can carry: none, bool, int, double, string, ScalarType,
// Device, Layout, MemoryFormat, a reference to another node, a symbolic int, and lists
// (or tuples) of these.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "device.hpp"
#include "layout.hpp"
#include "scalar_type.hpp"

namespace ctmatch {

using NodeId = std::uint32_t;
inline constexpr NodeId no_node = std::numeric_limits<NodeId>::max();

struct None {
  friend constexpr bool operator==(None, None) { return true; }
};
/// A use of another node's result.
struct NodeRef {
  NodeId id = no_node;
  friend constexpr bool operator==(NodeRef, NodeRef) = default;
};
/// A symbolic integer (`s0`, `s0 + 1`), kept as its expression text.
struct SymInt {
  std::string expr;
  friend bool operator==(const SymInt&, const SymInt&) = default;
};

class Value;
/// A list (`[a, b]`) or tuple (`(a, b)`): FX distinguishes them, so we keep which it was.
struct List {
  std::vector<Value> items;
  bool tuple = false;
  friend bool operator==(const List& a, const List& b);
};

class Value {
 public:
  enum class Kind : std::uint8_t {
    None, Bool, Int, Double, String, ScalarType, Device, Layout, MemoryFormat, Node, SymInt, List
  };

  Value() = default;
  Value(None) {}
  Value(bool b) : v_(b) {}
  Value(std::int64_t i) : v_(i) {}
  Value(int i) : v_(std::int64_t{i}) {}
  Value(double d) : v_(d) {}
  Value(std::string s) : v_(std::move(s)) {}
  Value(std::string_view s) : v_(std::string(s)) {}
  Value(const char* s) : v_(std::string(s)) {}
  Value(ScalarType t) : v_(t) {}
  Value(Device d) : v_(d) {}
  Value(Layout l) : v_(l) {}
  Value(MemoryFormat m) : v_(m) {}
  Value(NodeRef r) : v_(r) {}
  Value(SymInt s) : v_(std::move(s)) {}
  Value(List l) : v_(std::move(l)) {}

  static Value list(std::vector<Value> items) { return Value(List{std::move(items), false}); }
  static Value tuple(std::vector<Value> items) { return Value(List{std::move(items), true}); }

  Kind kind() const { return static_cast<Kind>(v_.index()); }
  bool is_none() const { return kind() == Kind::None; }
  bool is_node() const { return kind() == Kind::Node; }
  bool is_list() const { return kind() == Kind::List; }

  /// Pointer to the held alternative, or nullptr when the value holds another kind.
  template <class T>
  const T* get_if() const { return std::get_if<T>(&v_); }
  template <class T>
  T* get_if() { return std::get_if<T>(&v_); }
  template <class T>
  bool is() const { return std::holds_alternative<T>(v_); }

  NodeId node() const { return is_node() ? std::get<NodeRef>(v_).id : no_node; }
  const std::vector<Value>* items() const {
    auto* l = get_if<List>();
    return l ? &l->items : nullptr;
  }

  /// Calls f(NodeId) for every node this value refers to, lists included.
  template <class F>
  void for_each_node(F&& f) const {
    if (auto* r = get_if<NodeRef>()) {
      f(r->id);
    } else if (auto* l = get_if<List>()) {
      for (const Value& v : l->items) v.for_each_node(f);
    }
  }
  /// Rewrites every reference to `from` into `to`; returns whether any was found.
  bool replace_node(NodeId from, NodeId to) {
    if (auto* r = get_if<NodeRef>()) {
      if (r->id != from) return false;
      r->id = to;
      return true;
    }
    bool any = false;
    if (auto* l = get_if<List>())
      for (Value& v : l->items) any |= v.replace_node(from, to);
    return any;
  }

  friend bool operator==(const Value& a, const Value& b) { return a.v_ == b.v_; }

 private:
  std::variant<None, bool, std::int64_t, double, std::string, ScalarType, Device, Layout,
               MemoryFormat, NodeRef, SymInt, List>
      v_;
};

inline bool operator==(const List& a, const List& b) {
  return a.tuple == b.tuple && a.items == b.items;
}

/// The name of a value kind, for messages: "int", "ScalarType", "list".
constexpr std::string_view kind_name(Value::Kind k) {
  constexpr std::string_view names[] = {"None",   "bool",   "int",          "float",
                                        "str",    "ScalarType", "Device", "Layout",
                                        "MemoryFormat", "Node", "SymInt", "list"};
  return names[static_cast<std::size_t>(k)];
}

}  // namespace ctmatch
