#pragma once
// UserSlots: where each user sits in a long users list (see Graph's "long users lists"), a flat
// open-addressing table of NodeId -> slot. Flat, because a placeholder read by a million nodes
// gets one the first time a pass drops one of its users: built in one allocation, not a
// million (as a node-based std::unordered_map would be), and on huge pages once large. A
// user's home is its id modulo a prime: a pass that walks the users in id order walks the table
// in order too (a scrambling hash would make every step a cache miss), and ids in any
// power-of-two stride still spread.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "large_allocator.hpp"
#include "value.hpp"

namespace ctmatch {

class UserSlots {
 public:
  std::size_t size() const { return count_; }

  /// Room for `n` users without growing.
  void reserve(std::size_t n) {
    if (2 * n > entries_.size()) grow(2 * n);
  }

  /// The slot of `user`, or nullptr.
  const std::uint32_t* find(NodeId user) const {
    if (entries_.empty()) return nullptr;
    for (std::size_t i = home(user);; i = next(i)) {
      if (entries_[i].user == user) return &entries_[i].slot;
      if (entries_[i].user == no_node) return nullptr;
    }
  }

  /// Records `user` at `slot` (replacing what was recorded for it).
  void set(NodeId user, std::uint32_t slot) {
    if (2 * (count_ + 1) > entries_.size()) grow(2 * entries_.size());
    std::size_t i = home(user);
    while (entries_[i].user != no_node && entries_[i].user != user) i = next(i);
    count_ += entries_[i].user == no_node;
    entries_[i] = {user, slot};
  }

  /// Forgets `user`; false when it was not there. Later entries of its probe run move back into
  /// the hole (no tombstones: a table that sees a million drops stays as fast as a new one).
  bool erase(NodeId user) {
    if (entries_.empty()) return false;
    std::size_t i = home(user);
    while (entries_[i].user != user) {
      if (entries_[i].user == no_node) return false;
      i = next(i);
    }
    for (std::size_t j = next(i);; j = next(j)) {
      if (entries_[j].user == no_node) break;
      const std::size_t h = home(entries_[j].user);
      // entries_[j] may fill the hole at i unless its home lies cyclically in (i, j].
      const bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
      if (stays) continue;
      entries_[i] = entries_[j];
      i = j;
    }
    entries_[i] = Entry{};
    --count_;
    return true;
  }

 private:
  struct Entry {
    NodeId user = no_node;
    std::uint32_t slot = 0;
  };
  std::size_t home(NodeId user) const {
    // user % size, by Lemire's multiply-shift (no division; exact for 32-bit operands).
    const std::uint64_t low = magic_ * user;
    return static_cast<std::size_t>((static_cast<unsigned __int128>(low) * entries_.size()) >> 64);
  }
  std::size_t next(std::size_t i) const { return i + 1 == entries_.size() ? 0 : i + 1; }
  static bool is_prime(std::size_t n) {
    for (std::size_t d = 3; d * d <= n; d += 2)
      if (n % d == 0) return false;
    return true;
  }
  /// Grows to the first odd prime of at least `at_least` (17 at the smallest) entries.
  void grow(std::size_t at_least) {
    std::size_t capacity = std::max<std::size_t>(at_least, 17) | 1;
    while (!is_prime(capacity)) capacity += 2;
    LargeVector<Entry> old = std::move(entries_);
    entries_.assign(capacity, Entry{});
    magic_ = ~std::uint64_t{0} / capacity + 1;
    count_ = 0;
    for (const Entry& e : old)
      if (e.user != no_node) set(e.user, e.slot);
  }

  LargeVector<Entry> entries_;
  std::size_t count_ = 0;
  std::uint64_t magic_ = 0;  // 2^64 / entries_.size(), rounded up (see home)
};

}  // namespace ctmatch
