#pragma once
// Value: one argument of a node, as a compact tagged value. It holds every kind of argument a
// PyTorch FX / torch.export graph can carry: none, bool, int, double, string, ScalarType,
// Device, Layout, MemoryFormat, a reference to another node, a symbolic int, and lists
// (or tuples) of these.
//
// A Value is 16 bytes: a kind tag and an 8-byte payload. Strings, symbolic ints and lists live
// in a heap box shared by every copy (reference counted, atomically: copies of one graph may be
// used from several threads). Copying a Value never allocates, so a rewrite that forwards a
// shape list, or a graph copy, costs a count increment per list; the box is copied only when a
// shared one is written through the mutable get_if (copy on write). A list also records, in the
// Value, whether it is known to hold no node, so that walking references skips its box.
#include <atomic>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
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

  Value() noexcept = default;
  Value(None) noexcept : Value() {}
  Value(bool b) noexcept : kind_(Kind::Bool) { u_.b = b; }
  Value(std::int64_t i) noexcept : kind_(Kind::Int) { u_.i = i; }
  Value(int i) noexcept : Value(std::int64_t{i}) {}
  Value(double d) noexcept : kind_(Kind::Double) { u_.d = d; }
  Value(std::string s) : kind_(Kind::String) { u_.heap = new Box<std::string>(std::move(s)); }
  Value(std::string_view s) : Value(std::string(s)) {}
  Value(const char* s) : Value(std::string(s)) {}
  Value(ScalarType t) noexcept : kind_(Kind::ScalarType) { u_.st = t; }
  Value(Device d) noexcept : kind_(Kind::Device) { u_.dev = d; }
  Value(Layout l) noexcept : kind_(Kind::Layout) { u_.layout = l; }
  Value(MemoryFormat m) noexcept : kind_(Kind::MemoryFormat) { u_.mf = m; }
  Value(NodeRef r) noexcept : kind_(Kind::Node) { u_.ref = r; }
  Value(SymInt s) : kind_(Kind::SymInt) { u_.heap = new Box<SymInt>(std::move(s)); }
  Value(List l) : kind_(Kind::List), no_nodes_(!any_node(l.items)) { u_.heap = new Box<List>(std::move(l)); }

  Value(const Value& o) noexcept : kind_(o.kind_), no_nodes_(o.no_nodes_), u_(o.u_) {
    if (boxed()) u_.heap->count.fetch_add(1, std::memory_order_relaxed);
  }
  Value(Value&& o) noexcept : kind_(o.kind_), no_nodes_(o.no_nodes_), u_(o.u_) { o.kind_ = Kind::None; }
  Value& operator=(const Value& o) noexcept {
    if (o.boxed()) o.u_.heap->count.fetch_add(1, std::memory_order_relaxed);  // first: o may be *this
    release();
    kind_ = o.kind_;
    no_nodes_ = o.no_nodes_;
    u_ = o.u_;
    return *this;
  }
  Value& operator=(Value&& o) noexcept {
    if (this != &o) {
      release();
      kind_ = o.kind_;
      no_nodes_ = o.no_nodes_;
      u_ = o.u_;
      o.kind_ = Kind::None;
    }
    return *this;
  }
  ~Value() { release(); }

  static Value list(std::vector<Value> items) { return Value(List{std::move(items), false}); }
  static Value tuple(std::vector<Value> items) { return Value(List{std::move(items), true}); }

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::None; }
  bool is_node() const { return kind_ == Kind::Node; }
  bool is_list() const { return kind_ == Kind::List; }

  /// Pointer to the held alternative, or nullptr when the value holds another kind.
  template <class T>
  const T* get_if() const {
    if (kind_ != kind_of<T>()) return nullptr;
    return &payload<T>(*this);
  }
  /// The same, writable. A string, symbolic int or list shared with other copies is copied
  /// first, so that writing through the pointer changes this value only. (A list written
  /// through it may come to hold nodes: it is no longer known not to.)
  template <class T>
  T* get_if() {
    if (kind_ != kind_of<T>()) return nullptr;
    if constexpr (is_boxed<T>) make_unique<T>();
    if constexpr (std::is_same_v<T, List>) no_nodes_ = false;
    return &payload<T>(*this);
  }
  template <class T>
  bool is() const { return kind_ == kind_of<T>(); }

  NodeId node() const { return kind_ == Kind::Node ? u_.ref.id : no_node; }
  /// Asks the cache for this value's heap box, if it has one, to be written: copying the value
  /// (a rewrite forwarding a shape list) counts one more reference in it. (Forced inline: see
  /// Graph::prefetch_name.)
  [[gnu::always_inline]] void prefetch_box() const {
    if (boxed()) __builtin_prefetch(u_.heap, 1);
  }
  const std::vector<Value>* items() const {
    auto* l = get_if<List>();
    return l ? &l->items : nullptr;
  }

  /// Calls f(NodeId) for every node this value refers to, lists included. A list known to
  /// hold no node (a shape, a permutation: most lists) is not opened.
  template <class F>
  void for_each_node(F&& f) const {
    if (kind_ == Kind::Node) {
      f(u_.ref.id);
    } else if (kind_ == Kind::List && !no_nodes_) {
      for (const Value& v : payload<List>(*this).items) v.for_each_node(f);
    }
  }
  /// Whether this value refers to `id`, lists included.
  bool refers_to(NodeId id) const {
    if (kind_ == Kind::Node) return u_.ref.id == id;
    if (kind_ == Kind::List && !no_nodes_)
      for (const Value& v : payload<List>(*this).items)
        if (v.refers_to(id)) return true;
    return false;
  }
  /// Rewrites every reference to `from` into `to`; returns whether any was found. A shared
  /// list is copied only when it holds `from`.
  bool replace_node(NodeId from, NodeId to) {
    if (kind_ == Kind::Node) {
      if (u_.ref.id != from) return false;
      u_.ref.id = to;
      return true;
    }
    if (kind_ != Kind::List || no_nodes_) return false;
    return replace_in_list(from, to);
  }

  friend bool operator==(const Value& a, const Value& b) {
    if (a.kind_ != b.kind_) return false;
    switch (a.kind_) {
      case Kind::None: return true;
      case Kind::Bool: return a.u_.b == b.u_.b;
      case Kind::Int: return a.u_.i == b.u_.i;
      case Kind::Double: return a.u_.d == b.u_.d;
      case Kind::ScalarType: return a.u_.st == b.u_.st;
      case Kind::Device: return a.u_.dev == b.u_.dev;
      case Kind::Layout: return a.u_.layout == b.u_.layout;
      case Kind::MemoryFormat: return a.u_.mf == b.u_.mf;
      case Kind::Node: return a.u_.ref == b.u_.ref;
      case Kind::String: return a.u_.heap == b.u_.heap || payload<std::string>(a) == payload<std::string>(b);
      case Kind::SymInt: return a.u_.heap == b.u_.heap || payload<SymInt>(a) == payload<SymInt>(b);
      case Kind::List: return a.u_.heap == b.u_.heap || payload<List>(a) == payload<List>(b);
    }
    return false;
  }

 private:
  /// The reference-counted box of a string, symbolic int or list.
  struct Heap {
    std::atomic<std::uint32_t> count{1};
  };
  template <class T>
  struct Box : Heap {
    explicit Box(T v) : value(std::move(v)) {}
    T value;
  };
  template <class T>
  static constexpr bool is_boxed =
      std::is_same_v<T, std::string> || std::is_same_v<T, SymInt> || std::is_same_v<T, List>;

  template <class T>
  static constexpr Kind kind_of() {
    if constexpr (std::is_same_v<T, None>) return Kind::None;
    else if constexpr (std::is_same_v<T, bool>) return Kind::Bool;
    else if constexpr (std::is_same_v<T, std::int64_t>) return Kind::Int;
    else if constexpr (std::is_same_v<T, double>) return Kind::Double;
    else if constexpr (std::is_same_v<T, std::string>) return Kind::String;
    else if constexpr (std::is_same_v<T, ScalarType>) return Kind::ScalarType;
    else if constexpr (std::is_same_v<T, Device>) return Kind::Device;
    else if constexpr (std::is_same_v<T, Layout>) return Kind::Layout;
    else if constexpr (std::is_same_v<T, MemoryFormat>) return Kind::MemoryFormat;
    else if constexpr (std::is_same_v<T, NodeRef>) return Kind::Node;
    else if constexpr (std::is_same_v<T, SymInt>) return Kind::SymInt;
    else if constexpr (std::is_same_v<T, List>) return Kind::List;
    else static_assert(std::is_same_v<T, void>, "ctmatch: Value holds no such type");
  }

  /// The payload as T; the kind must be T's.
  template <class T>
  static T& payload(Value& v) {
    if constexpr (is_boxed<T>) return static_cast<Box<T>*>(v.u_.heap)->value;
    else if constexpr (std::is_same_v<T, None>) return none_;
    else if constexpr (std::is_same_v<T, bool>) return v.u_.b;
    else if constexpr (std::is_same_v<T, std::int64_t>) return v.u_.i;
    else if constexpr (std::is_same_v<T, double>) return v.u_.d;
    else if constexpr (std::is_same_v<T, ScalarType>) return v.u_.st;
    else if constexpr (std::is_same_v<T, Device>) return v.u_.dev;
    else if constexpr (std::is_same_v<T, Layout>) return v.u_.layout;
    else if constexpr (std::is_same_v<T, MemoryFormat>) return v.u_.mf;
    else return v.u_.ref;
  }
  template <class T>
  static const T& payload(const Value& v) {
    return payload<T>(const_cast<Value&>(v));
  }

  static bool any_node(const std::vector<Value>& items) {
    for (const Value& v : items)
      if (v.kind_ == Kind::Node || (v.kind_ == Kind::List && !v.no_nodes_)) return true;
    return false;
  }
  bool boxed() const { return kind_ == Kind::String || kind_ == Kind::SymInt || kind_ == Kind::List; }
  template <class T>
  void make_unique() {
    if (u_.heap->count.load(std::memory_order_acquire) == 1) return;
    Heap* copy = new Box<T>(payload<T>(*this));
    release();
    u_.heap = copy;
  }
  // replace_node for a list that may hold nodes: out of line, as most values are not lists.
  [[gnu::noinline]] bool replace_in_list(NodeId from, NodeId to) {
    if (!refers_to(from)) return false;
    for (Value& v : get_if<List>()->items) v.replace_node(from, to);
    return true;
  }
  // Inline, so that dropping an unboxed value (most are) is a test, not a call.
  [[gnu::always_inline]] void release() noexcept {
    if (boxed()) release_box();
  }
  [[gnu::noinline]] void release_box() noexcept {
    if (u_.heap->count.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    switch (kind_) {
      case Kind::String: delete static_cast<Box<std::string>*>(u_.heap); break;
      case Kind::SymInt: delete static_cast<Box<SymInt>*>(u_.heap); break;
      default: delete static_cast<Box<List>*>(u_.heap); break;
    }
  }

  Kind kind_ = Kind::None;
  // A list whose items (nested lists included) refer to no node: set when the list is made,
  // cleared when it is written through get_if. It lives in what would be padding: lists of
  // ints are most lists, and walking the graph's references (users lists, rewiring) need not
  // open their boxes, each a cache miss.
  bool no_nodes_ = false;
  union Payload {
    Payload() : i(0) {}
    bool b;
    std::int64_t i;
    double d;
    ScalarType st;
    Device dev;
    Layout layout;
    MemoryFormat mf;
    NodeRef ref;
    Heap* heap;
  } u_;
  static inline None none_{};
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
