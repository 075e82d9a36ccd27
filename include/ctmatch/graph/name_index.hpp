#pragma once
// NameIndex: the graph's name -> node table. An open-addressing hash table (linear probing,
// power-of-two capacity, at most half full) of 8-byte slots {hash, node id}; the name itself
// stays in the node, and a lookup compares against it through a callback. Compared with an
// unordered_map<std::string, NodeId> it allocates nothing per insert, copies no string, looks
// up a string_view without building a std::string, and copies with one memcpy when the graph
// is copied. Erasing shifts the following entries back (no tombstones), so a long run of
// rewrites that create and erase nodes does not degrade it.
#include <cstdint>
#include <string_view>
#include <vector>

#include "value.hpp"

namespace ctmatch {

/// 64-bit FNV-1a, finished with a multiply-shift mix so that the low bits (the slot) are
/// spread even for names that differ only in a trailing counter.
inline std::uint64_t name_hash(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  h ^= h >> 32;
  h *= 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

class NameIndex {
 public:
  std::size_t size() const { return count_; }

  /// The node called `name` or no_node; name_of(NodeId) gives a node's name.
  template <class NameOf>
  NodeId find(std::string_view name, const NameOf& name_of) const {
    if (slots_.empty()) return no_node;
    std::uint32_t h = tag(name_hash(name));
    for (std::size_t i = h & mask(); slots_[i].id != no_node; i = (i + 1) & mask())
      if (slots_[i].hash == h && name_of(slots_[i].id) == name) return slots_[i].id;
    return no_node;
  }

  /// Adds `id` under `name`, which must not be present.
  void insert(std::string_view name, NodeId id) {
    if (2 * (count_ + 1) > slots_.size()) rehash(slots_.empty() ? 16 : 2 * slots_.size());
    place(Slot{tag(name_hash(name)), id});
    ++count_;
  }

  /// Removes `id`, listed under `name`. Returns whether it was there.
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

  /// Makes room for `n` names without rehashing.
  void reserve(std::size_t n) {
    std::size_t want = 16;
    while (want < 2 * n) want *= 2;
    if (want > slots_.size()) rehash(want);
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

  void place(Slot s) {
    std::size_t i = s.hash & mask();
    while (slots_[i].id != no_node) i = (i + 1) & mask();
    slots_[i] = s;
  }
  void rehash(std::size_t capacity) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(capacity, Slot{});
    for (const Slot& s : old)
      if (s.id != no_node) place(s);
  }

  std::vector<Slot> slots_;
  std::size_t count_ = 0;
};

}  // namespace ctmatch
