#pragma once
// NameIndex: the graph's name -> node table. An open-addressing hash table (linear probing,
// power-of-two capacity, at most half full) of 8-byte slots {hash, node id}; the name itself
// stays in the node, and a lookup compares against it through a callback. Compared with an
// unordered_map<std::string, NodeId> it allocates nothing per insert, copies no string, looks
// up a string_view without building a std::string, and copies with one memcpy when the graph
// is copied. Erasing a node does not touch it: lookups skip entries of nodes that are no
// longer live, and the next rehash drops them (a rewrite erases several nodes; each would
// otherwise cost a hash and a probe). Exact removal shifts the following entries back.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "large_allocator.hpp"
#include "value.hpp"

namespace ctmatch {

/// A word-at-a-time multiplicative hash (names are short: two or three 8-byte words), finished
/// with a multiply-shift mix so that the low bits (the slot) are spread even for names that
/// differ only in a trailing counter.
inline std::uint64_t name_hash(std::string_view s) {
  constexpr std::uint64_t k = 0x9E3779B97F4A7C15ull;
  std::uint64_t h = 0x243F6A8885A308D3ull ^ (s.size() * k);
  const char* p = s.data();
  std::size_t n = s.size();
  auto step = [&](std::uint64_t w) { h = (((h << 5) | (h >> 59)) ^ w) * k; };
  for (; n >= 8; p += 8, n -= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    step(w);
  }
  if (n) {
    std::uint64_t w = 0;
    std::memcpy(&w, p, n);
    step(w);
  }
  h ^= h >> 32;
  h *= 0xD6E8FEB86659FD93ull;
  return h ^ (h >> 29);
}

/// splitmix64's finalizer: a 64-bit mix whose sums fingerprint multisets (the verifier's).
inline std::uint64_t mix64(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

class NameIndex {
 public:
  /// Entries held, including those of erased nodes not purged yet.
  std::size_t size() const { return count_; }

  /// The live node called `name` or no_node. name_of(NodeId) gives a node's name, live(NodeId)
  /// whether it is live: entries of erased nodes are skipped.
  template <class NameOf, class Live>
  NodeId find(std::string_view name, const NameOf& name_of, const Live& live) const {
    return find_hashed(name, tag(name_hash(name)), name_of, live);
  }

  /// Adds `id` under `name` unless a live node already has that name; returns that node, or
  /// no_node when `id` was added. One hash for the check and the insertion.
  template <class NameOf, class Live>
  NodeId insert_unique(std::string_view name, NodeId id, const NameOf& name_of, const Live& live) {
    std::uint32_t h = tag(name_hash(name));
    if (NodeId other = find_hashed(name, h, name_of, live); other != no_node) return other;
    add(h, id, live);
    return no_node;
  }

  /// Adds `id` under `name` (no live node may have that name already).
  template <class Live>
  void insert(std::string_view name, NodeId id, const Live& live) {
    add(tag(name_hash(name)), id, live);
  }

  /// Removes the entry of `id`, listed under `name`. Returns whether it was there. (A graph
  /// need not call this when it erases a node: find() skips entries of nodes that are not live,
  /// and the next rehash drops them.)
  bool erase(std::string_view name, NodeId id) {
    if (slots_.empty()) return false;
    std::uint32_t h = tag(name_hash(name));
    std::size_t i = h & mask();
    for (; slots_[i].id != id; i = (i + 1) & mask())
      if (slots_[i].id == no_node) return false;
    // Backward-shift deletion: move later entries of the probe run into the hole when their
    // home slot does not lie (cyclically) between the hole and their position.
    std::size_t hole = i;
    for (std::size_t j = (i + 1) & mask(); slots_[j].id != no_node; j = (j + 1) & mask()) {
      std::size_t home = slots_[j].hash & mask();
      bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
      if (!stays) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole] = Slot{};
    --count_;
    return true;
  }

  /// Asks the cache for the slot where `name` would go, to be written. (Forced inline: see
  /// Graph::prefetch_name.)
  [[gnu::always_inline]] void prefetch(std::string_view name) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[tag(name_hash(name)) & mask()], 1);
  }

  /// What check() expects the live nodes' entries to sum to: the sum of entry_fingerprint
  /// over every live node.
  static std::uint64_t entry_fingerprint(std::string_view name, NodeId id) {
    return mix64((std::uint64_t{tag(name_hash(name))} << 32) | id);
  }

  /// The verifier's check of the table: that every live node can be found under its name and
  /// that no two live nodes share a name. `nodes` live nodes whose entry_fingerprints sum to
  /// `fingerprint`; live(id) tells whether `id` is one of them (without touching the node,
  /// e.g. a bitmap), name_of(id) its name. Returns what is wrong, or "".
  /// Looking each node's name up would probe the table at random: a cache miss per node past
  /// some 100k nodes. This walks the slots in order instead: every live entry must be reachable
  /// from its home slot (no empty slot in between), the live entries must be as many as the
  /// nodes and carry the same fingerprint (the multiset {(hash of name, id)}, summed through a
  /// 64-bit mix: a wrong, missing or extra entry changes it but with odds of 2^-64), and two
  /// entries of one name lie in one probe run, where equal hashes are compared by name.
  template <class Live, class NameOf>
  std::string check(std::size_t nodes, std::uint64_t fingerprint, const Live& live, const NameOf& name_of) const {
    if (slots_.empty()) return nodes == 0 ? std::string() : "the name table is empty";
    const std::size_t n = slots_.size();
    std::size_t start = 0;  // an empty slot: no probe run wraps past the walk's start
    while (start < n && slots_[start].id != no_node) ++start;
    if (start == n) return "the name table has no empty slot";
    std::size_t found = 0;
    std::uint64_t sum = 0;
    std::size_t run_begin = 1;  // walk position of the current probe run's first slot
    std::vector<Slot> run;      // its live entries
    std::string problem;
    for (std::size_t k = 1; k <= n && problem.empty(); ++k) {
      const Slot& s = slots_[(start + k) & mask()];
      if (s.id == no_node) {
        if (run.size() > 1) problem = same_names(run, name_of);
        run.clear();
        run_begin = k + 1;
        continue;
      }
      if ((((start + k) - (s.hash & mask())) & mask()) > k - run_begin)
        return "the name table's entry of node " + std::to_string(s.id) + " cannot be reached from its slot";
      if (!live(s.id)) continue;  // an erased node's entry, dropped at the next rehash
      ++found;
      sum += mix64((std::uint64_t{s.hash} << 32) | s.id);
      run.push_back(s);
    }
    if (!problem.empty()) return problem;
    if (found != nodes)
      return "the name table holds " + std::to_string(found) + " live entries for " + std::to_string(nodes) + " nodes";
    if (sum != fingerprint) return "the name table does not list every node under its name";
    return {};
  }

  /// Makes room for `n` names without rehashing.
  void reserve(std::size_t n) {
    std::size_t want = 16;
    while (want < 2 * n) want *= 2;
    if (want > slots_.size()) rehash(want, [](NodeId) { return true; });
  }

  void clear() {
    slots_.clear();
    count_ = 0;
  }

 private:
  struct Slot {
    std::uint32_t hash = 0;
    NodeId id = no_node;
  };
  static std::uint32_t tag(std::uint64_t h) { return static_cast<std::uint32_t>(h); }
  std::size_t mask() const { return slots_.size() - 1; }

  /// Two live entries of one probe run with the same name, as check()'s message, or "".
  template <class NameOf>
  static std::string same_names(std::vector<Slot>& run, const NameOf& name_of) {
    std::sort(run.begin(), run.end(), [](const Slot& a, const Slot& b) { return a.hash < b.hash; });
    for (std::size_t i = 0; i < run.size(); ++i)
      for (std::size_t j = i + 1; j < run.size() && run[j].hash == run[i].hash; ++j)
        if (name_of(run[i].id) == name_of(run[j].id))
          return "two live nodes are called " + std::string(name_of(run[i].id));
    return {};
  }
  template <class NameOf, class Live>
  NodeId find_hashed(std::string_view name, std::uint32_t h, const NameOf& name_of, const Live& live) const {
    if (slots_.empty()) return no_node;
    for (std::size_t i = h & mask(); slots_[i].id != no_node; i = (i + 1) & mask())
      if (slots_[i].hash == h && live(slots_[i].id) && name_of(slots_[i].id) == name) return slots_[i].id;
    return no_node;
  }
  template <class Live>
  void add(std::uint32_t h, NodeId id, const Live& live) {
    if (2 * (count_ + 1) > slots_.size()) {
      // Drop the entries of erased nodes; size the table for the live ones, at most half full
      // until as many more names again come in.
      std::size_t kept = 0;
      for (const Slot& s : slots_) kept += s.id != no_node && live(s.id);
      std::size_t cap = 16;
      while (cap < 4 * (kept + 1)) cap *= 2;
      rehash(cap, live);
    }
    place(Slot{h, id});
    ++count_;
  }
  void place(Slot s) {
    std::size_t i = s.hash & mask();
    while (slots_[i].id != no_node) i = (i + 1) & mask();
    slots_[i] = s;
  }
  template <class Live>
  void rehash(std::size_t capacity, const Live& live) {
    LargeVector<Slot> old = std::move(slots_);
    slots_.assign(capacity, Slot{});
    count_ = 0;
    for (const Slot& s : old)
      if (s.id != no_node && live(s.id)) {
        place(s);
        ++count_;
      }
  }

  friend struct GraphSurgery;  // tests of the verifier break invariants with it (not defined here)
  LargeVector<Slot> slots_;
  std::size_t count_ = 0;
};

}  // namespace ctmatch
