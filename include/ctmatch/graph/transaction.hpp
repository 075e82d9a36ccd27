#pragma once
// Graph::Transaction: all or nothing for a group of mutations (a rewrite). It opens the
// graph's journal (journal.hpp); commit() keeps the changes, anything else (rollback(), the
// destructor, an exception unwinding) undoes them newest first with Graph::undo, so a failed
// rewrite leaves the graph exactly as it was. Included by graph.hpp after Graph.
#include "graph.hpp"

namespace ctmatch {

class Graph::Transaction {
 public:
  explicit Transaction(Graph& g) : g_(g) {
    if (g_.journal_.on) throw GraphError("nested graph transactions are not supported");
    g_.journal_.on = true;
    g_.journal_.clear();
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit() {
    g_.journal_.clear();
    g_.journal_.on = false;
    done_ = true;
  }
  void rollback() {
    g_.journal_.on = false;
    g_.undo();
    done_ = true;
  }
  ~Transaction() {
    if (!done_) rollback();
  }

 private:
  Graph& g_;
  bool done_ = false;
};

inline void Graph::undo() {
  for (auto it = journal_.entries.rbegin(); it != journal_.entries.rend(); ++it) {
    Node& n = nodes_[it->id];
    switch (it->type) {
      case Entry::Created:  // its uses are undone by their own entries, which come after it
        pop_newest();        // created nodes are the newest: undone newest first
        break;
      case Entry::Erased:
        n.alive_ = true;
        if (n.kind_ == NodeKind::CallFunction) call_ops_[n.id_] = n.op_;
        mutating_ += is_mutating(n);
        ++live_;
        if (find(n.name()) != n.id_) names_.insert(n.name(), n.id_, is_live());  // a rehash dropped it
        n.prev_ = it->a;
        n.next_ = it->b;
        if (n.prev_ == no_node) head_ = n.id_; else nodes_[n.prev_].next_ = n.id_;
        if (n.next_ == no_node) tail_ = n.id_; else nodes_[n.next_].prev_ = n.id_;
        break;
      case Entry::UserAdded:
        pop_user(n.id_);
        break;
      case Entry::UserRemoved:
        n.users_.insert_at(it->a, it->b);
        user_slots_.erase(n.id_);  // the users after it moved
        break;
      case Entry::UserSwapped:  // the last user goes back to the end, the dropped one to its slot
        n.users_.push_back(n.users_[it->a]);
        n.users_[it->a] = it->b;
        if (UserSlots* slots = user_slots_of(n.id_, n.users_.size() > indexed_users)) {
          slots->set(n.users_.back(), static_cast<std::uint32_t>(n.users_.size() - 1));
          slots->set(it->b, it->a);
        }
        break;
      case Entry::ArgsChanged:
        uncount_mutating(n);
        n.args_ = std::move(journal_.saved_args[it->a].args);
        n.kwargs_ = std::move(journal_.saved_args[it->a].kwargs);
        n.signature_ = bind(n.kind_, n.op_, n.args_, n.kwargs_, n.arg_where_);  // bound before: cannot throw
        mutating_ += is_mutating(n);
        break;
      case Entry::UsersChanged:
        n.users_ = journal_.saved_users[it->a];
        user_slots_.erase(n.id_);
        break;
    }
  }
  journal_.clear();
}

}  // namespace ctmatch
