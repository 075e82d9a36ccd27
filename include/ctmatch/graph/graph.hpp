#pragma once
// Graph: owns its nodes in an arena with stable ids (an erased node's id is never reused),
// keeps them in a doubly linked list in topological order, and keeps every node's users.
// All mutation goes through Graph, so users, names and order stay consistent; a Transaction
// (transaction.hpp) journals mutations (journal.hpp) and undoes them unless committed, so a
// failed rewrite leaves the graph exactly as it was.
#include <algorithm>
#include <cassert>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "error.hpp"
#include "journal.hpp"
#include "large_allocator.hpp"
#include "name_index.hpp"
#include "node.hpp"
#include "node_name.hpp"
#include "user_slots.hpp"

namespace ctmatch {

/// What a new node is made of.
struct NodeSpec {
  NodeKind kind = NodeKind::CallFunction;
  OpId op = no_op;
  std::string name;    // empty: a fresh name derived from the op (`mm`, `mm_1`, ...)
  std::string target;  // for kinds other than call_function
  NodeArgs args;
  std::vector<Kwarg> kwargs;
  /// Optional: where each parameter of op's schema is written (argument index, -(kwarg index
  /// + 1), or Node::from_default), for a caller that knows it in advance (a declarative
  /// replacement's layout is fixed at compile time): creation then checks it against the
  /// arguments instead of binding them by name. Empty: bound by name.
  std::span<const std::int16_t> layout = {};
  /// Optional, with `layout`: a signature that Graph::layout_fits found `layout` to fit for
  /// arguments like these (as many positional ones, kwargs of the same names in the same
  /// order). A caller that builds such arguments again and again (a declarative replacement)
  /// checks once and passes the result: while it is still op's signature, creation takes the
  /// layout as it is (debug builds compare it with binding by name).
  const OpSignature* layout_fits = nullptr;
  /// Set by a caller that made the name from parts it checked (a pass's name counter: a base
  /// checked once, then `_K`): creation then takes it as a node name without looking again.
  bool name_is_node_name = false;
};

class Graph {
 public:
  Graph() = default;
  /// A copy keeps the source's spare arena capacity, so that a pass on the copy does not
  /// start by moving every node to a larger arena.
  Graph(const Graph& o)
      : annotations(o.annotations), source_offsets(o.source_offsets), names_(o.names_), name_chars_(o.name_chars_), next_suffix_(o.next_suffix_), head_(o.head_),
        tail_(o.tail_), live_(o.live_), mutating_(o.mutating_), ids_in_order_(o.ids_in_order_),
        user_slots_(o.user_slots_), first_args_bound_(o.first_args_bound_), first_args_(o.first_args_) {
    nodes_.reserve(o.nodes_.capacity());
    nodes_ = o.nodes_;
    call_ops_.reserve(o.call_ops_.capacity());
    call_ops_ = o.call_ops_;
  }
  Graph& operator=(const Graph&) = default;
  Graph(Graph&&) noexcept = default;
  Graph& operator=(Graph&&) noexcept = default;

  // ---- reading ----
  const Node& operator[](NodeId id) const { return nodes_[id]; }
  /// Mutable access is for metadata and annotations; structure changes go through Graph.
  Node& operator[](NodeId id) { return nodes_[id]; }
  /// Number of live nodes (placeholders and output included, as torch's len(graph.nodes)).
  std::size_t size() const { return live_; }
  /// Ids range over [0, id_bound()): arrays indexed by NodeId use this size.
  std::size_t id_bound() const { return nodes_.size(); }
  /// Whether `id` names a live node of this graph (any id, in range or not).
  bool live(NodeId id) const { return id < nodes_.size() && nodes_[id].alive_; }
  /// Per node id, the op of a live call_function node, else no_op. A scan over every node for
  /// candidate roots reads this array, 4 bytes a node, not a cache line of each node.
  std::span<const OpId> live_call_ops() const { return call_ops_; }
  /// Number of live nodes that write one of their arguments (is_mutating).
  std::size_t num_mutating() const { return mutating_; }
  /// Whether ids increase along the node list, so that id order is node order. True until a
  /// node is inserted before another (a pass's new nodes usually are); it stays false then.
  bool ids_in_order() const { return ids_in_order_; }
  NodeId first() const { return head_; }
  NodeId last() const { return tail_; }
  NodeId next(NodeId id) const { return nodes_[id].next_; }
  NodeId prev(NodeId id) const { return nodes_[id].prev_; }
  /// The live node called `name`, or no_node.
  NodeId find(std::string_view name) const {
    return names_.find(name, name_of(), is_live());
  }
  /// Whether the nodes take more memory than a core's caches are likely to hold (8 MiB, some
  /// 44k nodes), so that a pass does better to ask for what it will touch ahead of time
  /// (prefetch_rewrite_of, prefetch_name). In a smaller graph these hints cost more
  /// instructions than the misses they would save.
  bool outgrows_cache() const { return nodes_.size() * sizeof(Node) > (std::size_t{8} << 20); }
  /// Asks the cache, ahead of a rewrite that replaces or erases node `id`, for what that
  /// touches outside the node's first lines: each input's first line (liveness, links) and
  /// users list, the boxes of its arguments, its kwargs, its neighbours in the list (unlinking
  /// it), its users (taking its uses) and its metadata. In a large graph these lie anywhere (a
  /// weight's placeholder is at the start), and a rewrite would otherwise wait for each in turn.
  void prefetch_rewrite_of(NodeId id) const {
    const Node& n = nodes_[id];
    auto input = [&](NodeId in) __attribute__((always_inline)) {  // see prefetch_name
      __builtin_prefetch(&nodes_[in], 1);
      __builtin_prefetch(&nodes_[in].users_, 1);
    };
    if (n.prev_ != no_node) __builtin_prefetch(&nodes_[n.prev_], 1);
    if (n.next_ != no_node) __builtin_prefetch(&nodes_[n.next_], 1);
    for (NodeId u : n.users_) __builtin_prefetch(&nodes_[u], 1);
    for (const Value& v : n.args_) {
      v.for_each_node(input);
      v.prefetch_box();
    }
    if (!n.kwargs_.empty()) __builtin_prefetch(n.kwargs_.data());
    if (const NodeDetails* d = n.details_.get()) __builtin_prefetch(d, 1);  // the root's metadata goes to its replacement
  }
  /// Asks the cache for the name index's slot of `name`, to be written: a pass that numbers its
  /// new nodes knows the next name one node ahead. Forced inline, as every small function that
  /// only prefetches (NameIndex::prefetch, Value::prefetch_box): g++ 12 may take a call to such
  /// a function for one without effect and drop it (a prefetching lambda in the sweep's loop
  /// vanished so, and 1M nodes ran 40% slower).
  [[gnu::always_inline]] void prefetch_name(std::string_view name) const { names_.prefetch(name); }
  /// The name index's check for verify (see NameIndex::check): `nodes` live nodes, their
  /// entry fingerprints summed, `listed(id)` whether id is one of them.
  template <class Listed>
  std::string check_name_index(std::size_t nodes, std::uint64_t fingerprint, const Listed& listed) const {
    return names_.check(nodes, fingerprint, listed, name_of());
  }
  /// Makes room for `n` nodes in all (ids included) without moving the arena.
  void reserve(std::size_t n) {
    nodes_.reserve(n);
    call_ops_.reserve(n);
    names_.reserve(n);
  }
  /// The room a reader leaves in a graph of `n` nodes it has just read: a quarter more, so that
  /// the first pass over it does not start by moving every node to a larger arena (a sweep
  /// usually adds far fewer nodes than it erases). Capacity never touched costs address space,
  /// not memory.
  static std::size_t room_for(std::size_t n) { return n + n / 4 + 16; }
  /// Whether a comes before b in the node order (both live). O(1).
  bool comes_before(NodeId a, NodeId b) const { return nodes_[a].order_ < nodes_[b].order_; }

  /// Forward iteration over live nodes: for (const Node& n : g.nodes()).
  template <class G, class N>
  class Range {
   public:
    struct iterator {
      G* g;
      NodeId id;
      N& operator*() const { return (*g)[id]; }
      N* operator->() const { return &(*g)[id]; }
      iterator& operator++() { id = g->next(id); return *this; }
      bool operator==(const iterator& o) const { return id == o.id; }
    };
    explicit Range(G* g) : g_(g) {}
    iterator begin() const { return {g_, g_->first()}; }
    iterator end() const { return {g_, no_node}; }
   private:
    G* g_;
  };
  Range<const Graph, const Node> nodes() const { return Range<const Graph, const Node>(this); }
  Range<Graph, Node> nodes() { return Range<Graph, Node>(this); }

  // ---- building ----
  /// Creates a node at the end, or just before `before`. Throws GraphError on a duplicate
  /// name, a name that is not a node name (is_node_name), a reference to a node that is not live, or arguments that do not fit the op's
  /// signature; nothing is changed then.
  NodeId create(NodeSpec spec, NodeId before = no_node) {
    NodeId id = try_create(spec, before);
    if (id == no_node) throw GraphError("duplicate node name '" + spec.name + "'");
    return id;
  }
  /// create() for a caller that picks names itself (a pass numbering its new nodes): when a
  /// live node already has spec.name, returns no_node and changes nothing, `spec` included;
  /// other errors throw as in create(). The name is hashed and looked up once, for the check
  /// and the insertion, where asking find() first and then create() would do it twice.
  NodeId try_create(NodeSpec& spec, NodeId before = no_node) {
    if (spec.name.empty()) spec.name = fresh_name(spec);
    if (!spec.name_is_node_name && !is_node_name(spec.name))
      throw GraphError(invalid_node_name_message(spec.name));
    for (const Value& v : spec.args) check_refs(v);
    for (const Kwarg& k : spec.kwargs) check_refs(k.value);
    if (before != no_node && !live(before)) throw GraphError("insertion point is not a live node");
    Node::ArgWhere where;
    const OpSignature* sig = spec.layout.empty() ? bind(spec.kind, spec.op, spec.args, spec.kwargs, where)
                                                 : bind_layout(spec, where);  // may throw

    NodeId id = static_cast<NodeId>(nodes_.size());
    // The name check and its insertion in one probe; the index entry waits for the node.
    if (names_.insert_unique(spec.name, id, name_of(), is_live()) != no_node) return no_node;
    // Nothing below throws but allocation failure.
    Node& n = nodes_.emplace_back(Node::Key{}, id, spec.kind, spec.op, sig, name_chars_.add(spec.name),
                                  std::move(spec.target), std::move(spec.args), std::move(spec.kwargs), where);
    call_ops_.push_back(spec.kind == NodeKind::CallFunction ? spec.op : no_op);
    if (!sig && spec.kind == NodeKind::CallFunction) note_unbound(spec.op);
    mutating_ += is_mutating(n);
    link(id, before);
    ++live_;
    journal(Entry{Entry::Created, id});
    add_uses(id);
    return id;
  }
  /// The op's signature when `layout` (see NodeSpec::layout) fits it and arguments of this
  /// shape: positional ones in place, every kwarg placed once under its parameter's name,
  /// defaults present for the rest. A compare or two per parameter, no search. Else nullptr.
  static const OpSignature* layout_fits(NodeKind kind, OpId op, std::span<const std::int16_t> layout,
                                        std::size_t num_args, std::span<const Kwarg> kwargs) {
    const OpSignature* sig =
        kind == NodeKind::CallFunction && op != no_op ? OpRegistry::global().signature(op) : nullptr;
    const std::size_t n = layout.size();
    bool fits = sig && n == sig->params.size() && num_args <= n && kwargs.size() <= 64;
    std::uint64_t placed = 0;  // kwargs placed, as bits
    std::size_t num_placed = 0;
    for (std::size_t i = 0; fits && i < n; ++i) {
      std::int16_t w = layout[i];
      if (i < num_args) {
        fits = w == static_cast<std::int16_t>(i) && !sig->params[i].kwarg_only;
      } else if (w == Node::from_default) {
        fits = sig->params[i].default_value.has_value();
      } else {
        std::size_t k = static_cast<std::size_t>(-(w + 1));
        fits = w < 0 && k < kwargs.size() && !((placed >> k) & 1u) && kwargs[k].name == sig->params[i].name;
        placed |= std::uint64_t{1} << (k & 63);
        ++num_placed;
      }
    }
    return fits && num_placed == kwargs.size() ? sig : nullptr;
  }
  NodeId placeholder(std::string name) {
    NodeSpec s{NodeKind::Placeholder, no_op, name, name, {}, {}};
    return create(std::move(s));
  }
  NodeId call(OpId op, NodeArgs args, std::vector<Kwarg> kwargs = {},
              NodeId before = no_node, std::string name = {}) {
    return create(NodeSpec{NodeKind::CallFunction, op, std::move(name), {}, std::move(args),
                           std::move(kwargs)},
                  before);
  }
  NodeId output(std::vector<Value> results) {
    return create(NodeSpec{NodeKind::Output, no_op, "output", "output",
                           {Value::tuple(std::move(results))}, {}});
  }

  // ---- arguments before a pass ----
  /// For a caller that mirrors the graph elsewhere (the Python write-back into a torch.fx
  /// graph): from now on, the first change of the arguments of each node that exists now saves
  /// the arguments it had, so that afterwards the nodes that really changed are found by
  /// looking at those few, not at a copy of the whole graph taken before.
  void keep_first_args() {
    first_args_bound_ = static_cast<NodeId>(nodes_.size());
    first_args_.clear();
  }
  /// The arguments saved since keep_first_args(), by node: the nodes whose arguments were set
  /// since (perhaps to what they were: compare), each with its arguments before the first set.
  const std::unordered_map<NodeId, Journal::SavedArgs>& first_args() const { return first_args_; }

  // ---- mutation ----
  /// Replaces a node's arguments; users lists follow.
  void set_args(NodeId id, NodeArgs args, std::vector<Kwarg> kwargs) {
    Node& n = nodes_[id];
    for (const Value& v : args) check_refs(v);
    for (const Kwarg& k : kwargs) check_refs(k.value);
    Node::ArgWhere where;
    const OpSignature* sig = bind(n.kind_, n.op_, args, kwargs, where);  // may throw
    journal_args(id);
    drop_uses(id);
    uncount_mutating(n);
    n.args_ = std::move(args);
    n.kwargs_ = std::move(kwargs);
    n.arg_where_ = where;
    n.signature_ = sig;
    if (!sig && n.kind_ == NodeKind::CallFunction) note_unbound(n.op_);
    mutating_ += is_mutating(n);
    add_uses(id);
  }

  /// Every use of `from` becomes a use of `to`, except in `to` itself (so a new node that
  /// consumes `from` keeps doing so). Returns the number of users rewired. The users' argument
  /// positions do not change, so their schema binding stays; only the references and the two
  /// users lists are updated, in place.
  std::size_t replace_all_uses(NodeId from, NodeId to) {
    if (from == to) return 0;
    if (!live(from) || !live(to)) throw GraphError("replace_all_uses with a node that is not live");
    std::size_t count = 0;
    journal_users(from);
    Node::Users& from_users = nodes_[from].users_;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < from_users.size(); ++i) {
      NodeId u = from_users[i];
      if (u == to) {
        from_users[kept++] = u;
        continue;
      }
      journal_args(u);
      Node& un = nodes_[u];
      // A user of `to` already is in its list: a short list is searched, a long one (perhaps
      // a million users) is not, the user's own few arguments are, keeping this linear in the
      // users moved.
      const Node::Users& to_users = nodes_[to].users_;
      bool uses_to = false;
      if (to_users.size() <= 16) uses_to = std::find(to_users.begin(), to_users.end(), u) != to_users.end();
      else for_each_input(un, [&](NodeId in) { uses_to |= in == to; });
      for (Value& v : un.args_) v.replace_node(from, to);
      for (Kwarg& k : un.kwargs_) k.value.replace_node(from, to);
      if (!uses_to) {
        push_user(to, u);
        journal(Entry{Entry::UserAdded, to});
      }
      ++count;
    }
    from_users.resize(kept);
    user_slots_.erase(from);  // its list is rewritten: positions recorded are stale
    return count;
  }

  /// Erases a node that has no users. Throws GraphError if it has some.
  void erase(NodeId id) {
    Node& n = nodes_[id];
    if (!n.alive_) throw GraphError("erase of a node that is already erased");
    if (!n.users_.empty())
      throw GraphError("cannot erase '" + std::string(n.name()) + "': it still has " +
                       std::to_string(n.users_.size()) + " user(s)");
    journal(Entry{Entry::Erased, id, n.prev_, n.next_});
    drop_uses(id);
    unlink(id);
    n.alive_ = false;  // its name-index entry is now skipped, and dropped at the next rehash
    call_ops_[id] = no_op;
    uncount_mutating(n);
    --live_;
  }

  /// Takes back the creation of `id`, the newest node, which no node uses: it is removed with
  /// its uses and its name, and its id is free again, so the graph is as before its create().
  /// For a caller that made some nodes and then gives them up (a replacement that fails):
  /// removing them newest first restores the graph without a Transaction's journal. Throws
  /// GraphError if `id` is not the newest live node, has users, or a transaction is open.
  void remove_newest(NodeId id) {
    if (journal_.on) throw GraphError("remove_newest inside a transaction");
    if (id + std::size_t{1} != nodes_.size() || !nodes_[id].alive_)
      throw GraphError("remove_newest of a node that is not the newest");
    Node& n = nodes_[id];
    if (!n.users_.empty()) throw GraphError("remove_newest of '" + std::string(n.name()) + "', which has users");
    drop_uses(id);  // it is the last user of each input: each list loses its last entry
    pop_newest();
  }

  /// Erases, last first, every node with no users that is not a placeholder, the output, or
  /// an impure op (side effects). Returns how many were erased.
  std::size_t eliminate_dead_code() {
    std::size_t erased = 0;
    for (NodeId id = tail_; id != no_node;) {
      NodeId p = nodes_[id].prev_;
      const Node& n = nodes_[id];
      bool keep = n.kind_ == NodeKind::Placeholder || n.kind_ == NodeKind::Output ||
                  (n.signature_ && n.signature_->is_impure) || !n.users_.empty() ||
                  n.kind_ == NodeKind::CallModule || n.kind_ == NodeKind::CallMethod;
      if (!keep) {
        erase(id);
        ++erased;
      }
      id = p;
    }
    return erased;
  }

  /// Whether every node is bound to its op's current signature. A node made while its op had
  /// no signature (a graph read before `op<"mylib::f(...)">` registered the schema) is not,
  /// once the signature exists. O(1): the graph remembers the registry's count of signatures
  /// when it last made or bound such a node.
  bool binding_current() const {
    return !may_have_unbound_ || unbound_checked_at_ == OpRegistry::global().signatures_set();
  }
  /// Binds the nodes made before their op's signature was known to it, so that the order of
  /// reading a graph and registering its ops' schemas does not matter. The pass drivers call it
  /// on entry and on exit; O(1) when binding_current(). Throws GraphError, naming the node,
  /// when a node's arguments do not fit the signature registered since; nothing changes then.
  void bind_late() {
    if (binding_current()) return;
    const std::uint64_t at = OpRegistry::global().signatures_set();
    struct Late {
      NodeId id;
      const OpSignature* sig;
      Node::ArgWhere where;
    };
    std::vector<Late> late;
    bool still_unbound = false;
    for (Node& n : nodes()) {
      if (n.kind_ != NodeKind::CallFunction || n.signature_) continue;
      if (!OpRegistry::global().signature(n.op_)) {
        still_unbound = true;
        continue;
      }
      Late l{n.id_, nullptr, {}};
      try {
        l.sig = bind(n.kind_, n.op_, n.args_, n.kwargs_, l.where);
      } catch (const GraphError& e) {
        throw GraphError("node " + std::string(n.name()) + " does not fit the schema registered for its op since it was made: " + e.what());
      }
      late.push_back(std::move(l));
    }
    for (Late& l : late) {  // nothing below throws
      Node& n = nodes_[l.id];
      n.signature_ = l.sig;
      n.arg_where_ = std::move(l.where);
      mutating_ += is_mutating(n);  // the schema may say that the op writes
    }
    may_have_unbound_ = still_unbound;
    unbound_checked_at_ = at;
  }

  /// A name no live node has: `base`, else `base_1`, `base_2`, ... (as FX names nodes). A
  /// counter per base makes a run of fresh names linear, not quadratic, as FX's namespace does.
  std::string unique_name(std::string_view base) const {
    std::string b(base);
    if (find(b) == no_node) return b;
    std::size_t& next = next_suffix_[b];
    for (std::size_t i = std::max<std::size_t>(next, 1);; ++i) {
      std::string c = b + "_" + std::to_string(i);
      if (find(c) == no_node) {
        next = i + 1;
        return c;
      }
    }
  }

  /// Graph-level data a reader keeps for its writer (signature, constants, ...).
  std::vector<Annotation> annotations;
  /// Where each node was read from, by id: its byte offset in the reader's text (the nodes a
  /// pass adds have ids past the end). Empty for a graph not read from text. For messages
  /// about a node after reading, in the form `FILE:LINE:COL` (io::describe_at).
  LargeVector<std::size_t> source_offsets;

  // ---- transactions (transaction.hpp) ----
  /// Journals every structural change from construction on; unless commit() is called, the
  /// destructor undoes them in reverse order. One transaction at a time.
  class Transaction;

 private:
  friend struct GraphSurgery;  // tests of the verifier break invariants with it (not defined here)
  using Entry = JournalEntry;
  // Callbacks for the name index.
  struct NameOf {
    const LargeVector<Node>* nodes;
    std::string_view operator()(NodeId id) const { return (*nodes)[id].name(); }
  };
  struct IsLive {
    const LargeVector<Node>* nodes;
    bool operator()(NodeId id) const { return id < nodes->size() && (*nodes)[id].alive(); }
  };
  NameOf name_of() const { return {&nodes_}; }
  IsLive is_live() const { return {&nodes_}; }

  void check_refs(const Value& v) const {
    v.for_each_node([&](NodeId r) {
      if (!live(r)) throw GraphError("argument refers to a node that does not exist");
    });
  }

  std::string fresh_name(const NodeSpec& s) const {
    if (s.kind != NodeKind::CallFunction || s.op == no_op) return unique_name(s.target.empty() ? "node" : s.target);
    // `aten.mm.default` -> `mm`, `operator.getitem` -> `getitem`
    std::string_view full = op_name(s.op);
    std::string_view rest = full.substr(full.find('.') + 1);
    return unique_name(rest.substr(0, rest.find('.')));
  }

  /// Resolves schema parameters to where the arguments write them: fills `where` and returns
  /// the signature (nullptr when the op has none). Throws when the arguments do not fit.
  static const OpSignature* bind(NodeKind kind, OpId op, std::span<const Value> args,
                                 std::span<const Kwarg> kwargs, Node::ArgWhere& where) {
    where.clear();
    if (kind != NodeKind::CallFunction || op == no_op) return nullptr;
    const OpSignature* sig = OpRegistry::global().signature(op);
    if (!sig) return nullptr;
    auto fail = [&](const std::string& why) {
      throw GraphError(std::string(op_name(op)) + ": " + why);
    };
    const std::size_t num_params = sig->params.size();
    // The positional arguments bind the leading parameters that are not keyword-only; checked
    // on the parameters they bind (the count of positional parameters is only needed for the
    // error message).
    bool too_many = args.size() > num_params;
    for (std::size_t i = 0; i < args.size() && !too_many; ++i) too_many = sig->params[i].kwarg_only;
    if (too_many) {
      std::size_t positional = 0;
      while (positional < num_params && !sig->params[positional].kwarg_only) ++positional;
      fail("takes at most " + std::to_string(positional) + " positional arguments, got " +
           std::to_string(args.size()));
    }
    where.resize(num_params, Node::from_default);
    for (std::size_t i = 0; i < args.size(); ++i) where[i] = static_cast<std::int16_t>(i);
    std::size_t expect = args.size();  // kwargs usually come in schema order: try the next one first
    for (std::size_t k = 0; k < kwargs.size(); ++k) {
      int p = expect < sig->params.size() && sig->params[expect].name == kwargs[k].name
                  ? static_cast<int>(expect)
                  : sig->find(kwargs[k].name);
      expect = static_cast<std::size_t>(p) + 1;
      if (p < 0) fail("has no argument '" + kwargs[k].name + "'");
      if (where[static_cast<std::size_t>(p)] != Node::from_default)
        fail("argument '" + kwargs[k].name + "' given twice");
      where[static_cast<std::size_t>(p)] = static_cast<std::int16_t>(-static_cast<int>(k) - 1);
    }
    for (std::size_t i = 0; i < where.size(); ++i)
      if (where[i] == Node::from_default && !sig->params[i].default_value)
        fail("missing required argument '" + sig->params[i].name + "'");
    return sig;
  }

  /// bind() for a spec that gives its layout: the layout is taken when it fits (said by the
  /// spec, or checked: layout_fits), otherwise the arguments are bound by name, as usual.
  static const OpSignature* bind_layout(const NodeSpec& s, Node::ArgWhere& where) {
    const OpSignature* sig = s.layout_fits;
    if (!sig || sig != OpRegistry::global().signature(s.op))
      sig = layout_fits(s.kind, s.op, s.layout, s.args.size(), s.kwargs);
    if (!sig) return bind(s.kind, s.op, s.args, s.kwargs, where);
    where.assign(s.layout.data(), s.layout.size());
    assert(same_binding(s, where));
    return sig;
  }
#ifndef NDEBUG
  static bool same_binding(const NodeSpec& s, const Node::ArgWhere& where) {
    Node::ArgWhere by_name;
    bind(s.kind, s.op, s.args, s.kwargs, by_name);
    return by_name.size() == where.size() && std::equal(where.begin(), where.end(), by_name.begin());
  }
#endif

  template <class F>
  void for_each_input(const Node& n, F&& f) const {
    for (const Value& v : n.args_) v.for_each_node(f);
    for (const Kwarg& k : n.kwargs_) k.value.for_each_node(f);
  }
  /// Lists `id` as a user of each of its inputs. `id` has no uses recorded when this runs (it
  /// is new, or drop_uses ran), so an input that already lists it got it in this very call, as
  /// its last user: checking the last element is enough, and costs O(1) however many users
  /// the input has.
  [[gnu::flatten]] void add_uses(NodeId id) {
    for_each_input(nodes_[id], [&](NodeId in) {
      Node::Users& u = nodes_[in].users_;
      if (u.empty() || u.back() != id) {
        push_user(in, id);
        journal(Entry{Entry::UserAdded, in});
      }
    });
  }
  [[gnu::flatten]] void drop_uses(NodeId id) {
    for_each_input(nodes_[id], [&](NodeId in) {
      Node::Users& u = nodes_[in].users_;
      if (u.size() > indexed_users / 2) [[unlikely]] {
        if (drop_listed_user(in, id)) return;
      }
      // Search from the end: the user erased is most often a recent one, often the last
      // (then nothing needs to move).
      for (std::size_t i = u.size(); i-- > 0;) {
        if (u[i] == id) {
          if (i + 1 == u.size()) u.pop_back();
          else u.erase_at(i);
          journal(Entry{Entry::UserRemoved, in, static_cast<std::uint32_t>(i), id});
          break;
        }
      }
    });
  }

  // ---- long users lists ----
  // A node with more than `indexed_users` users (a weight read by every layer, an input read by
  // a million nodes) gets a table of where each user sits in its list, so that dropping a user
  // is O(1) instead of a search and a shift over the whole list: a pass that rewrites every
  // user stays linear. Such a list keeps its users in no particular order (a dropped user's
  // slot takes the last one). The table goes when the list shrinks to half that, and is dropped
  // (rebuilt when next needed) wherever a list is rewritten as a whole.
  static constexpr std::size_t indexed_users = 64;
  /// The slot table of `in`, built first when `build` says so; nullptr when it has none.
  UserSlots* user_slots_of(NodeId in, bool build) {
    auto it = user_slots_.find(in);
    if (it != user_slots_.end()) return &it->second;
    if (!build) return nullptr;
    UserSlots& slots = user_slots_[in];
    const Node::Users& u = nodes_[in].users_;
    slots.reserve(u.size());
    for (std::size_t i = 0; i < u.size(); ++i) slots.set(u[i], static_cast<std::uint32_t>(i));
    return &slots;
  }
  /// Appends `user` to `in`'s users, keeping its slot table where it has one. A table is made
  /// only when a user is first dropped: reading a graph never makes one.
  void push_user(NodeId in, NodeId user) {
    Node::Users& u = nodes_[in].users_;
    u.push_back(user);
    if (u.size() > indexed_users / 2) [[unlikely]]  // a table may be kept down to half the threshold
      note_last_user(in);
  }
  /// push_user's rare part, out of line so that the common one stays small enough to inline.
  [[gnu::noinline]] void note_last_user(NodeId in) {
    const Node::Users& u = nodes_[in].users_;
    if (UserSlots* slots = user_slots_of(in, false)) slots->set(u.back(), static_cast<std::uint32_t>(u.size() - 1));
  }
  /// drop_uses for a long list with a slot table (built first when the list is past the
  /// threshold): the user's slot is looked up and the last user moves into it. False when
  /// `in` has no table (the caller searches the list).
  [[gnu::noinline]] bool drop_listed_user(NodeId in, NodeId id) {
    Node::Users& u = nodes_[in].users_;
    UserSlots* slots = user_slots_of(in, u.size() > indexed_users);
    if (!slots) return false;
    const std::uint32_t* at = slots->find(id);
    if (!at) return true;  // an input read twice by `id`: dropped at its first read
    const std::uint32_t i = *at;
    slots->erase(id);
    if (i + std::size_t{1} != u.size()) {
      u[i] = u.back();
      slots->set(u[i], i);
    }
    u.pop_back();
    journal(Entry{Entry::UserSwapped, in, i, id});
    if (u.size() <= indexed_users / 2) user_slots_.erase(in);
    return true;
  }
  /// Takes back push_user's last append.
  void pop_user(NodeId in) {
    Node::Users& u = nodes_[in].users_;
    if (u.size() > indexed_users / 2)
      if (UserSlots* slots = user_slots_of(in, false)) {
        slots->erase(u.back());
        if (u.size() - 1 <= indexed_users / 2) user_slots_.erase(in);
      }
    u.pop_back();
  }

  void link(NodeId id, NodeId before) {
    Node& n = nodes_[id];
    ids_in_order_ = ids_in_order_ && before == no_node;  // a new node has the largest id
    NodeId after = before == no_node ? tail_ : nodes_[before].prev_;
    n.prev_ = after;
    n.next_ = before;
    if (after == no_node) head_ = id; else nodes_[after].next_ = id;
    if (before == no_node) tail_ = id; else nodes_[before].prev_ = id;
    assign_order(id);
  }
  void unlink(NodeId id) {
    Node& n = nodes_[id];
    if (n.prev_ == no_node) head_ = n.next_; else nodes_[n.prev_].next_ = n.next_;
    if (n.next_ == no_node) tail_ = n.prev_; else nodes_[n.next_].prev_ = n.prev_;
  }
  // Order keys leave gaps so that an insertion rarely renumbers.
  static constexpr std::uint64_t order_gap = std::uint64_t{1} << 20;
  void assign_order(NodeId id) {
    Node& n = nodes_[id];
    std::uint64_t lo = n.prev_ == no_node ? 0 : nodes_[n.prev_].order_;
    if (n.next_ == no_node) {
      n.order_ = lo + order_gap;
      return;
    }
    std::uint64_t hi = nodes_[n.next_].order_;
    if (hi - lo >= 2) {
      n.order_ = lo + (hi - lo) / 2;
      return;
    }
    std::uint64_t k = 0;
    for (NodeId i = head_; i != no_node; i = nodes_[i].next_) nodes_[i].order_ = (++k) * order_gap;
  }

  /// Removes the newest node, whose uses are already dropped: out of the list, the name index,
  /// the counts and the arena (remove_newest, and undoing a creation).
  void pop_newest() {
    Node& n = nodes_.back();
    if (!user_slots_.empty()) user_slots_.erase(n.id_);  // its id is free again
    unlink(n.id_);
    names_.erase(n.name(), n.id_);
    name_chars_.pop(n.name_);
    uncount_mutating(n);
    --live_;
    call_ops_.pop_back();
    nodes_.pop_back();
  }

  /// A call_function node was made without a signature: binding_current() must look again
  /// once one is set. Also when it was set just after bind() looked (another thread).
  void note_unbound(OpId op) {
    if (!may_have_unbound_) {
      may_have_unbound_ = true;
      unbound_checked_at_ = OpRegistry::global().signatures_set();
    }
    if (OpRegistry::global().signature(op)) unbound_checked_at_ = ~std::uint64_t{0};
  }
  /// num_mutating() loses `n` (erased, undone, or about to get other arguments).
  void uncount_mutating(const Node& n) {
    if (mutating_ != 0) mutating_ -= is_mutating(n);  // none counted: nothing to look at
  }

  void journal(Entry e) { journal_.record(e); }
  void journal_users(NodeId id) { journal_.save_users(id, nodes_[id].users_); }
  void journal_args(NodeId id) {
    journal_.save_args(id, nodes_[id].args_, nodes_[id].kwargs_);
    if (id < first_args_bound_) [[unlikely]] save_first_args(id);
  }
  [[gnu::noinline]] void save_first_args(NodeId id) {
    first_args_.try_emplace(id, Journal::SavedArgs{nodes_[id].args_, nodes_[id].kwargs_});
  }
  /// Undoes the journal, newest change first (transaction.hpp).
  void undo();

  LargeVector<Node> nodes_;
  NameIndex names_;
  NameStore name_chars_;  // the nodes' names (Node::name)
  mutable std::unordered_map<std::string, std::size_t> next_suffix_;  // unique_name's counters
  NodeId head_ = no_node, tail_ = no_node;
  std::size_t live_ = 0;
  LargeVector<OpId> call_ops_;  // live_call_ops()
  std::size_t mutating_ = 0;     // num_mutating()
  bool ids_in_order_ = true;
  bool may_have_unbound_ = false;           // binding_current()
  std::uint64_t unbound_checked_at_ = 0;   // the registry's signatures_set() then
  Journal journal_;
  std::unordered_map<NodeId, UserSlots> user_slots_;  // the long users lists' slot tables
  NodeId first_args_bound_ = 0;  // keep_first_args(): the nodes below it are watched
  std::unordered_map<NodeId, Journal::SavedArgs> first_args_;
};

}  // namespace ctmatch

// Graph::Transaction and Graph::undo, which need the whole Graph.
#include "transaction.hpp"
