#pragma once
// Node: one operation of a graph, with its arguments as written (positional args and kwargs in
// file order, so writers reproduce the input) and, when the op's signature is known, an index
// that resolves any schema argument to where it is written or to its default in O(1).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "boxed.hpp"
#include "heap_array.hpp"
#include "inline_vector.hpp"
#include "name_store.hpp"
#include "op.hpp"
#include "small_vector.hpp"
#include "tensor_meta.hpp"
#include "value.hpp"

namespace ctmatch {

enum class NodeKind : std::uint8_t { Placeholder, GetAttr, CallFunction, CallMethod, CallModule, Output };

constexpr std::string_view kind_name(NodeKind k) {
  constexpr std::string_view names[] = {"placeholder", "get_attr",    "call_function",
                                        "call_method", "call_module", "output"};
  return names[static_cast<std::size_t>(k)];
}

/// A node's positional arguments: up to four are kept inside the node (see InlineVector).
using NodeArgs = InlineVector<Value, 4>;

struct Kwarg {
  std::string name;
  Value value;
  friend bool operator==(const Kwarg&, const Kwarg&) = default;
};

/// A key and a text value a reader keeps for its writer (e.g. raw JSON of fields ctmatch does
/// not model, such as stack traces), so that read -> write loses nothing.
struct Annotation {
  std::string key;
  std::string value;
  friend bool operator==(const Annotation&, const Annotation&) = default;
};

/// What most nodes lack, kept out of the node array (see Boxed): tensor metadata (on every node
/// of an exported graph, on none of a graph read from plain FX text), annotations, and the
/// target of nodes other than call_function.
struct NodeDetails {
  TensorMeta meta;
  std::vector<Annotation> annotations;
  std::string target;
};
inline const NodeDetails no_node_details{};

class Graph;

// Aligned to a cache line, so that the part a pass reads (see the layout below) is exactly
// the node's first three lines.
class alignas(64) Node {
  using ArgWhere = SmallVector<std::int16_t, 8>;

 public:
  /// Only the graph makes nodes with contents (Graph::create): this key is its to give.
  class Key {
    friend class Graph;
    Key() = default;
  };
  Node() = default;
  Node(Key, NodeId id, NodeKind kind, OpId op, const OpSignature* sig, const char* name, std::string&& target,
       NodeArgs&& args, std::vector<Kwarg>&& kwargs, const ArgWhere& where)
      : id_(id), op_(op), kind_(kind), signature_(sig), args_(std::move(args)), arg_where_(where),
        kwargs_(std::move(kwargs)), name_(name) {
    if (!target.empty()) details_.edit().target = std::move(target);  // call_function nodes have none
  }

  NodeId id() const { return id_; }
  NodeKind kind() const { return kind_; }
  /// The interned op for call_function nodes; no_op for other kinds.
  OpId op() const { return op_; }
  /// The node's name, kept by its graph (see NameStore); data() is followed by a zero byte.
  std::string_view name() const { return NameStore::view(name_); }
  /// The target as written, for nodes that are not call_function (placeholder's target, the
  /// attribute of get_attr, the method of call_method).
  const std::string& target() const { return details().target; }
  bool alive() const { return alive_; }

  /// Tensor metadata: empty where none was read or set.
  const TensorMeta& meta() const { return details().meta; }
  /// Metadata for writing (its box is made on first use).
  TensorMeta& edit_meta() { return details_.edit().meta; }
  /// Sets the metadata; an empty one on a node without any makes no box.
  void set_meta(TensorMeta m) {
    if (details_.get() || !m.empty()) details_.edit().meta = std::move(m);
  }
  /// What a reader keeps for its writer (see Annotation).
  const std::vector<Annotation>& annotations() const { return details().annotations; }
  std::vector<Annotation>& edit_annotations() { return details_.edit().annotations; }

  std::span<const Value> args() const { return args_; }
  std::span<const Kwarg> kwargs() const { return kwargs_; }
  const Value* kwarg(std::string_view name) const {
    for (const Kwarg& k : kwargs_)
      if (k.name == name) return &k.value;
    return nullptr;
  }

  /// The op's signature (nullptr when unknown, or when the node's arguments do not fit it).
  const OpSignature* signature() const { return signature_; }
  /// Schema argument `i` wherever it is written (positional or keyword), or its default;
  /// nullptr when there is no signature, `i` is out of range, or a required argument is
  /// missing. O(1).
  const Value* arg(std::size_t i) const {
    if (!signature_ || i >= arg_where_.size()) return nullptr;
    std::int16_t w = arg_where_[i];
    if (w >= 0) return &args_[static_cast<std::size_t>(w)];
    if (w == from_default) {
      const auto& d = signature_->params[i].default_value;
      return d ? &*d : nullptr;
    }
    return &kwargs_[static_cast<std::size_t>(-w - 1)].value;
  }
  /// Whether schema argument `i` is written on the node (not taken from its default).
  bool arg_written(std::size_t i) const {
    return signature_ && i < arg_where_.size() && arg_where_[i] != from_default;
  }
  /// Schema argument by name (linear in the number of parameters; patterns resolve names to
  /// indices at compile time and use arg(i)). Falls back to the kwargs when there is no signature.
  const Value* arg(std::string_view name) const {
    if (signature_) {
      int i = signature_->find(name);
      return i < 0 ? nullptr : arg(static_cast<std::size_t>(i));
    }
    return kwarg(name);
  }

  /// In a binding layout (NodeSpec::layout): the parameter is not written, its default applies.
  static constexpr std::int16_t from_default = INT16_MIN;

  /// Distinct nodes that use this one, in the order they became users.
  std::span<const NodeId> users() const { return {users_.data(), users_.size()}; }
  std::size_t num_users() const { return users_.size(); }

 private:
  friend class Graph;
  friend struct Journal;  // keeps copies of users lists for undo
  friend struct GraphSurgery;  // tests of the verifier break invariants with it (not defined here)
  // Inline capacity: most nodes have at most four users and ops at most eight parameters.
  using Users = SmallVector<NodeId, 4>;

  const NodeDetails& details() const { return details_.get() ? *details_.get() : no_node_details; }

  // Laid out by use: what a pass reads at every node (kind, op, links, signature, then the
  // arguments, up to four of them inside the node) comes first; the binding index, users and
  // kwargs next; the name and the box of details, which matching reads rarely, last: three
  // cache lines in all. (The name and kwargs are one pointer each, see NameStore and
  // HeapArray: a node of 192 bytes, not 256, is a quarter less memory to fill and to read.)
  NodeId id_ = no_node;
  OpId op_ = no_op;
  NodeKind kind_ = NodeKind::CallFunction;
  bool alive_ = true;
  NodeId prev_ = no_node, next_ = no_node;
  const OpSignature* signature_ = nullptr;
  NodeArgs args_;
  std::uint64_t order_ = 0;  // increases along the node list: O(1) "comes before"
  ArgWhere arg_where_;  // per schema parameter: arg index, -(kwarg index + 1), or from_default
  Users users_;
  HeapArray<Kwarg> kwargs_;
  const char* name_ = NameStore::empty();  // in the graph's NameStore
  Boxed<NodeDetails> details_;
};
static_assert(sizeof(Node) <= 192, "a node takes at most three cache lines: see the layout above");

/// Whether the node writes one of its arguments: its schema has `Tensor(a!)`, or it carries a
/// non-None `out=` kwarg, or it is an in-place method such as `add_`.
inline bool is_mutating(const Node& n) {
  if (n.kind() == NodeKind::CallFunction) {
    if (const OpSignature* s = n.signature()) {
      if (s->is_mutable) return true;
      if (!s->has_out_param) return false;  // its kwargs all bind to parameters: none is `out`
    }
    if (n.kwargs().empty()) return false;
  } else if (n.kind() == NodeKind::CallMethod) {
    // In-place tensor methods end in one underscore (`add_`, `copy_`), dunders do not.
    const std::string& t = n.target();
    if (t.size() >= 2 && t.back() == '_' && t[t.size() - 2] != '_') return true;
  } else {
    return false;
  }
  const Value* out = n.kwarg("out");
  return out && !out->is_none();
}

}  // namespace ctmatch
