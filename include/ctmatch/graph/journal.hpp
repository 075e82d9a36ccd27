#pragma once
// The journal a Graph keeps while a transaction is open: every structural change, newest last,
// so that Graph::undo (transaction.hpp) can take them back. Changes to users lists are
// recorded as the single element added or removed, so journaling a node's creation or erasure
// allocates nothing; the rarer changes of a node's arguments (set_args, and replace_all_uses
// inside a transaction) save copies.
#include <cstdint>
#include <vector>

#include "node.hpp"

namespace ctmatch {

/// One journaled change.
struct JournalEntry {
  enum Type : std::uint8_t { Created, Erased, UserAdded, UserRemoved, UserSwapped, ArgsChanged, UsersChanged } type;
  NodeId id;
  // Erased: the neighbours (prev, next). UserRemoved, UserSwapped: (position, user).
  // ArgsChanged / UsersChanged: (index into saved_args / saved_users, unused).
  std::uint32_t a = 0;
  std::uint32_t b = 0;
};

struct Journal {
  struct SavedArgs {
    NodeArgs args;
    HeapArray<Kwarg> kwargs;
  };

  bool on = false;  // a transaction is open: record
  std::vector<JournalEntry> entries;
  std::vector<SavedArgs> saved_args;
  std::vector<Node::Users> saved_users;

  void record(JournalEntry e) {
    if (on) entries.push_back(e);
  }
  void save_users(NodeId id, const Node::Users& users) {
    if (!on) return;
    entries.push_back(JournalEntry{JournalEntry::UsersChanged, id, static_cast<std::uint32_t>(saved_users.size())});
    saved_users.push_back(users);
  }
  void save_args(NodeId id, const NodeArgs& args, const HeapArray<Kwarg>& kwargs) {
    if (!on) return;
    entries.push_back(JournalEntry{JournalEntry::ArgsChanged, id, static_cast<std::uint32_t>(saved_args.size())});
    saved_args.push_back(SavedArgs{args, kwargs});
  }
  void clear() {
    entries.clear();  // plain entries: keeps its capacity for the next transaction
    saved_args.clear();
    saved_users.clear();
  }
};

}  // namespace ctmatch
