#pragma once
// Op interning. Every op target (`aten.mm.default`, `operator.getitem`) is interned once, process
// wide, to a small integer OpId, so matching and dispatch compare integers, never strings.
// An op may carry a signature (filled from its schema by the schema layer): with it, positional,
// keyword and omitted-default forms of an argument resolve to the same argument in O(1).
//
// Names are spelled as torch.export and FX spell targets, without the `torch.ops.` prefix:
// `aten.add.Tensor`, `aten.mm.default`, `seedlib.scale_cast.default`, `operator.getitem`.
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "op_tags.hpp"
#include "value.hpp"

namespace ctmatch {

using OpId = std::uint32_t;
inline constexpr OpId no_op = std::numeric_limits<OpId>::max();

/// What the graph needs to know of an op's schema: its parameters in order, which are
/// keyword-only, their defaults, and whether the op mutates or has side effects.
struct OpSignature {
  struct Param {
    std::string name;
    bool kwarg_only = false;
    std::optional<Value> default_value;  // nullopt: the argument is required
  };
  std::vector<Param> params;
  std::size_t num_returns = 1;
  bool is_mutable = false;  // some argument is written (`Tensor(a!)`): a match must not span it
  bool is_impure = false;   // has side effects: dead-code elimination keeps it
  /// Whether a parameter is called `out` (set when the signature is registered): a node bound
  /// to a signature without one cannot carry an `out=` kwarg, and a pass need not look.
  bool has_out_param = false;

  /// Index of the parameter called `name`, or -1.
  int find(std::string_view name) const {
    for (std::size_t i = 0; i < params.size(); ++i)
      if (params[i].name == name) return static_cast<int>(i);
    return -1;
  }
};

class OpRegistry {
 public:
  static OpRegistry& global() {
    static OpRegistry r;
    return r;
  }

  OpId intern(std::string_view name) {
    std::lock_guard lock(mutex_);
    auto it = ids_.find(std::string(name));
    if (it != ids_.end()) return it->second;
    OpId id = static_cast<OpId>(entries_.size());
    entries_.push_back(Entry{std::string(name), nullptr});
    ids_.emplace(entries_.back().name, id);
    if (id < fast_ops) fast_names_[id].store(&entries_.back().name, std::memory_order_release);
    return id;
  }
  /// The id of `name` if it was interned, else no_op. Never interns.
  OpId find(std::string_view name) const {
    std::lock_guard lock(mutex_);
    auto it = ids_.find(std::string(name));
    return it == ids_.end() ? no_op : it->second;
  }
  /// The op's name. For the first `fast_ops` ops it is one atomic load, no lock (a pass names
  /// its new nodes after their ops).
  std::string_view name(OpId id) const {
    if (id < fast_ops)
      if (const std::string* n = fast_names_[id].load(std::memory_order_acquire)) return *n;
    std::lock_guard lock(mutex_);
    return entries_.at(id).name;
  }
  /// The op's signature, or nullptr when its schema is unknown. Stable for the process.
  /// Every node creation asks for it: for the first `fast_ops` ops it is one atomic load, no lock.
  const OpSignature* signature(OpId id) const {
    if (id < fast_ops) return fast_signatures_[id].load(std::memory_order_acquire);
    std::lock_guard lock(mutex_);
    return id < entries_.size() ? entries_[id].signature : nullptr;
  }
  /// Sets the op's signature once; a second, different one is ignored (first wins) and
  /// reported by returning false.
  bool set_signature(OpId id, OpSignature sig) {
    std::lock_guard lock(mutex_);
    Entry& e = entries_.at(id);
    if (e.signature) return false;
    sig.has_out_param = sig.find("out") >= 0;
    signatures_.push_back(std::make_unique<OpSignature>(std::move(sig)));
    e.signature = signatures_.back().get();
    if (id < fast_ops) fast_signatures_[id].store(e.signature, std::memory_order_release);
    signatures_set_.fetch_add(1, std::memory_order_release);
    return true;
  }
  /// The op's tags (torch.Tag): empty when none were given. One atomic load for the first
  /// `fast_ops` ops, as signature() is.
  OpTags tags(OpId id) const {
    if (id < fast_ops) return from_bits(fast_tags_[id].load(std::memory_order_acquire));
    std::lock_guard lock(mutex_);
    return id < entries_.size() ? entries_[id].tags : OpTags{};
  }
  /// Adds `t` to the op's tags (they only accumulate: an overload's tags are fixed in torch).
  void add_tags(OpId id, OpTags t) {
    std::lock_guard lock(mutex_);
    Entry& e = entries_.at(id);
    e.tags |= t;
    if (id < fast_ops) fast_tags_[id].store(e.tags.bits, std::memory_order_release);
  }
  /// How many signatures have been set so far: a graph whose nodes were made before some op's
  /// signature was known compares it with the count it last bound at (Graph::bind_late).
  std::uint64_t signatures_set() const { return signatures_set_.load(std::memory_order_acquire); }
  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
  }

 private:
  OpRegistry() = default;
  struct Entry {
    std::string name;
    const OpSignature* signature;
    OpTags tags{};
  };
  static OpTags from_bits(std::uint32_t b) {
    OpTags t;
    t.bits = b;
    return t;
  }
  static constexpr OpId fast_ops = 4096;
  mutable std::mutex mutex_;
  std::atomic<const OpSignature*> fast_signatures_[fast_ops] = {};  // set once each, read lock-free
  std::atomic<const std::string*> fast_names_[fast_ops] = {};         // likewise: into entries_
  std::atomic<std::uint32_t> fast_tags_[fast_ops] = {};               // OpTags::bits, or-ed in
  std::deque<Entry> entries_;  // deque: names stay put while more ops are interned
  std::unordered_map<std::string, OpId> ids_;
  std::vector<std::unique_ptr<OpSignature>> signatures_;
  std::atomic<std::uint64_t> signatures_set_{0};
};

inline OpId intern_op(std::string_view name) { return OpRegistry::global().intern(name); }
inline std::string_view op_name(OpId id) { return OpRegistry::global().name(id); }
inline OpTags op_tags(OpId id) { return id == no_op ? OpTags{} : OpRegistry::global().tags(id); }

}  // namespace ctmatch
