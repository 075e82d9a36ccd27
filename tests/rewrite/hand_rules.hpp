#pragma once
// Small ops and hand-written rules (plain C++ implementing the Rule concept) for testing the
// drivers without the pattern DSL, and a structural dump that compares graphs byte for byte.
#include <ctmatch/graph.hpp>
#include <ctmatch/rewrite.hpp>

#include <array>
#include <stdexcept>
#include <string>

namespace rwtest {
using namespace ctmatch;

inline OpId make_op(const char* name, std::vector<OpSignature::Param> params, bool is_mutable = false) {
  OpId op = intern_op(name);
  OpSignature sig;
  sig.params = std::move(params);
  sig.is_mutable = is_mutable;
  OpRegistry::global().set_signature(op, std::move(sig));
  return op;
}
// t.view(Tensor self, SymInt[] size), t.mm(Tensor self, Tensor mat2), ...
inline OpId view_op() { static OpId o = make_op("t.view.default", {{"self", false, {}}, {"size", false, {}}}); return o; }
inline OpId permute_op() { static OpId o = make_op("t.permute.default", {{"self", false, {}}, {"dims", false, {}}}); return o; }
inline OpId mm_op() { static OpId o = make_op("t.mm.default", {{"self", false, {}}, {"mat2", false, {}}}); return o; }
inline OpId add_op() {
  static OpId o = make_op("t.add.Tensor", {{"self", false, {}}, {"other", false, {}}, {"alpha", true, Value(std::int64_t{1})}});
  return o;
}
inline OpId addmm_op() {
  static OpId o = make_op("t.addmm.default", {{"self", false, {}}, {"mat1", false, {}}, {"mat2", false, {}}});
  return o;
}
inline OpId relu_op() { static OpId o = make_op("t.relu.default", {{"self", false, {}}}); return o; }
// t.add_(Tensor(a!) self, Tensor other): writes its first argument.
inline OpId add_inplace_op() {
  static OpId o = make_op("t.add_.Tensor", {{"self", false, {}}, {"other", false, {}}}, true);
  return o;
}
// t.neg.out(Tensor self, *, Tensor(a!) out): the out= form (no is_mutable flag on purpose).
inline OpId neg_out_op() {
  static OpId o = make_op("t.neg.out", {{"self", false, {}}, {"out", true, Value(None{})}});
  return o;
}

inline NodeId input_node(const Graph& g, NodeId n, std::size_t i) {
  const Value* v = g[n].arg(i);
  return v ? v->node() : no_node;
}

/// view(view(x, s1), s2) -> view(x, s2); the inner view must have one user (Inductor's default),
/// unless `Users1` is false — then only the driver's safety check protects shared interiors.
template <bool Users1 = true, bool Shared = false>
struct ViewView {
  static constexpr bool allows_shared_interior = Shared;
  struct match_type {
    MatchedNodes<2> nodes;
    NodeId x = no_node;
    const Value* size = nullptr;
  };
  std::array<OpId, 1> roots{view_op()};
  std::string_view name() const { return "view_view"; }
  std::span<const OpId> root_ops() const { return roots; }
  bool match(const Graph& g, NodeId root, match_type& m, Reason* why) const {
    NodeId inner = input_node(g, root, 0);
    if (inner == no_node || g[inner].op() != view_op()) {
      if (why) why->say("input 0 is not a view");
      return false;
    }
    if (Users1 && g[inner].num_users() != 1) {
      if (why) why->say("inner view has " + std::to_string(g[inner].num_users()) + " users, needs 1");
      return false;
    }
    m.x = input_node(g, inner, 0);
    if (m.x == no_node) return false;
    m.size = g[root].arg(1);
    m.nodes.push(inner);
    m.nodes.push(root);
    return true;
  }
  std::span<const NodeId> matched_nodes(const match_type& m) const { return m.nodes.span(); }
  NodeId replace(RewriteBuilder& b, const match_type& m) const {
    return b.call(view_op(), {NodeRef{m.x}, *m.size});
  }
};

/// permute(permute(x, p1), p2) -> x when p1[p2[i]] == i for every i.
struct PermuteIdentity {
  struct match_type {
    MatchedNodes<2> nodes;
    NodeId x = no_node;
  };
  std::array<OpId, 1> roots{permute_op()};
  std::string_view name() const { return "permute_identity"; }
  std::span<const OpId> root_ops() const { return roots; }
  bool match(const Graph& g, NodeId root, match_type& m, Reason* why) const {
    NodeId inner = input_node(g, root, 0);
    if (inner == no_node || g[inner].op() != permute_op() || g[inner].num_users() != 1) return false;
    auto* p1 = g[inner].arg(1)->items();
    auto* p2 = g[root].arg(1)->items();
    if (!p1 || !p2 || p1->size() != p2->size()) return false;
    for (std::size_t i = 0; i < p2->size(); ++i) {
      auto j = *(*p2)[i].get_if<std::int64_t>();
      if (*(*p1)[static_cast<std::size_t>(j)].get_if<std::int64_t>() != static_cast<std::int64_t>(i)) {
        if (why) why->say("the permutations do not compose to the identity");
        return false;
      }
    }
    m.x = input_node(g, inner, 0);
    m.nodes.push(inner);
    m.nodes.push(root);
    return true;
  }
  std::span<const NodeId> matched_nodes(const match_type& m) const { return m.nodes.span(); }
  NodeId replace(RewriteBuilder&, const match_type& m) const { return m.x; }
};

/// add(mm(a, b), bias) -> addmm(bias, a, b), or with the operands swapped (`Swapped`).
template <bool Swapped>
struct MmBias {
  struct match_type {
    MatchedNodes<2> nodes;
    NodeId a = no_node, b = no_node, bias = no_node;
  };
  std::array<OpId, 1> roots{add_op()};
  std::string_view name() const { return "mm_bias"; }
  std::span<const OpId> root_ops() const { return roots; }
  bool match(const Graph& g, NodeId root, match_type& m, Reason*) const {
    NodeId mm = input_node(g, root, Swapped ? 1 : 0);
    if (mm == no_node || g[mm].op() != mm_op() || g[mm].num_users() != 1) return false;
    if (g[root].kwarg("alpha")) return false;
    m.a = input_node(g, mm, 0);
    m.b = input_node(g, mm, 1);
    m.bias = input_node(g, root, Swapped ? 0 : 1);
    m.nodes.push(mm);
    m.nodes.push(root);
    return m.a != no_node && m.b != no_node && m.bias != no_node;
  }
  std::span<const NodeId> matched_nodes(const match_type& m) const { return m.nodes.span(); }
  NodeId replace(RewriteBuilder& b, const match_type& m) const {
    return b.call(addmm_op(), {NodeRef{m.bias}, NodeRef{m.a}, NodeRef{m.b}});
  }
};

/// relu(x) -> relu(x) rebuilt: matches its own output forever (a fixpoint cap test).
struct ReluAgain {
  struct match_type {
    MatchedNodes<1> nodes;
    NodeId x = no_node;
  };
  std::array<OpId, 1> roots{relu_op()};
  std::string_view name() const { return "relu_again"; }
  std::span<const OpId> root_ops() const { return roots; }
  bool match(const Graph& g, NodeId root, match_type& m, Reason*) const {
    m.x = input_node(g, root, 0);
    m.nodes.push(root);
    return m.x != no_node;
  }
  std::span<const NodeId> matched_nodes(const match_type& m) const { return m.nodes.span(); }
  NodeId replace(RewriteBuilder& b, const match_type& m) const { return b.call(relu_op(), {NodeRef{m.x}}); }
};

/// How a deliberately failing rule fails, after it matched view(view(x)).
enum class Failure { CheckFalse, Throws, Declines, UsesRoot, BadArgs };
template <Failure F>
struct Failing : ViewView<true> {
  std::string_view name() const { return "failing"; }
  bool match(const Graph& g, NodeId root, match_type& m, Reason* why) const {
    if (!ViewView<true>::match(g, root, m, why)) return false;
    if (F == Failure::CheckFalse) {
      if (why) why->say("check returned false");
      return false;
    }
    return true;
  }
  NodeId replace(RewriteBuilder& b, const match_type& m) const {
    NodeId made = b.call(view_op(), {NodeRef{m.x}, *m.size});  // something to roll back
    if (F == Failure::Throws) throw std::runtime_error("builder failed");
    if (F == Failure::Declines) return no_node;
    if (F == Failure::UsesRoot) return b.call(relu_op(), {NodeRef{b.root()}});  // would come before its input
    if (F == Failure::BadArgs) return b.call(mm_op(), {NodeRef{m.x}});           // arity does not fit
    return made;
  }
};

inline std::string dump_value(const Graph& g, const Value& v) {
  switch (v.kind()) {
    case Value::Kind::None: return "None";
    case Value::Kind::Bool: return *v.get_if<bool>() ? "True" : "False";
    case Value::Kind::Int: return std::to_string(*v.get_if<std::int64_t>());
    case Value::Kind::Double: return std::to_string(*v.get_if<double>());
    case Value::Kind::String: return "'" + *v.get_if<std::string>() + "'";
    case Value::Kind::ScalarType: return std::string(torch_name(*v.get_if<ScalarType>()));
    case Value::Kind::Node: return "%" + std::string(g[v.node()].name());
    case Value::Kind::List: {
      std::string s = v.get_if<List>()->tuple ? "(" : "[";
      for (const Value& i : *v.items()) s += dump_value(g, i) + ",";
      return s + (v.get_if<List>()->tuple ? ")" : "]");
    }
    default: return "?";
  }
}
/// Every node in order with id, kind, op, arguments, users (in order) and meta.
inline std::string dump(const Graph& g) {
  std::string s = "size=" + std::to_string(g.size()) + " ids=" + std::to_string(g.id_bound()) + "\n";
  for (const Node& n : g.nodes()) {
    s += std::to_string(n.id()) + " " + std::string(n.name()) + " " + std::string(kind_name(n.kind())) + " ";
    s += n.op() == no_op ? n.target() : std::string(op_name(n.op()));
    s += " (";
    for (const Value& v : n.args()) s += dump_value(g, v) + ", ";
    s += ") {";
    for (const Kwarg& k : n.kwargs()) s += k.name + "=" + dump_value(g, k.value) + ", ";
    s += "} users=[";
    for (NodeId u : n.users()) s += std::string(g[u].name()) + ",";
    s += "]";
    if (n.meta().dtype) s += " dtype=" + std::string(torch_name(*n.meta().dtype));
    if (n.meta().shape) s += " rank=" + std::to_string(n.meta().shape->size());
    s += "\n";
  }
  return s;
}

inline Value ints(std::initializer_list<std::int64_t> v) {
  std::vector<Value> items;
  for (auto i : v) items.emplace_back(i);
  return Value::list(std::move(items));
}

}  // namespace rwtest
