#pragma once
// RuleSet: rules fixed at compile time (a type list), tried in declaration order, dispatched
// by the op of the candidate node through a table indexed by op id, kept with the set.
//
//   auto rules = ctmatch::rule_set(ViewView{}, PermuteIdentity{}, MmBias{}, MmBiasSwapped{});
//   ctmatch::PassStats st = ctmatch::sweep(graph, rules);
//
// Rules can be switched off by name at run time (`enable_only`), for tools that take a rule
// list on the command line; the table then leaves them out. Two sets concatenate with
// `rule_set(a, b)` when both arguments are sets.
#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../graph/graph.hpp"
#include "rule.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ctmatch {

namespace detail {
template <std::size_t I, class R>
struct RuleSlot {
  R rule;
};
template <class Seq, class... R>
struct RuleStorage;
template <std::size_t... I, class... R>
struct RuleStorage<std::index_sequence<I...>, R...> : RuleSlot<I, R>... {
  RuleStorage() = default;
  explicit RuleStorage(R... r) : RuleSlot<I, R>{std::move(r)}... {}
};
}  // namespace detail

/// Which rules to try at a node of a given op: a table indexed by op id. Ops are interned at
/// run time, so it cannot be built at compile time; a RuleSet builds it when it is made and
/// when rules are switched on or off, and a driver uses it as long as the rules still name the
/// root ops it was built from (current_for), else builds its own for the run. Compressed rows:
/// the rules of op `o` are entries_[begin_[o] .. begin_[o + 1]), in declaration order.
class DispatchTable {
 public:
  DispatchTable() = default;
  template <class Set>
  explicit DispatchTable(const Set& set) {
    build(set);
  }
  template <class Set>
  void build(const Set& set) {
    source_.clear();
    set.for_each([&](const auto& r, std::size_t) {
      for (OpId op : std::span<const OpId>(r.root_ops())) source_.push_back(op);
    });
    std::vector<std::pair<OpId, std::uint16_t>> pairs;
    pairs.reserve(source_.size());
    std::vector<pattern::FirstTest> tests;
    OpId bound = 0;
    set.for_each([&](const auto& r, std::size_t i) {
      tests.push_back(ctmatch::first_test(r));
      if (!set.enabled(i)) return;
      for (OpId op : std::span<const OpId>(r.root_ops())) {
        if (std::find(pairs.begin(), pairs.end(), std::pair{op, static_cast<std::uint16_t>(i)}) != pairs.end())
          continue;  // a rule listing one op twice is still tried once
        pairs.emplace_back(op, static_cast<std::uint16_t>(i));
        if (op != no_op && op + 1 > bound) bound = op + 1;
      }
    });
    begin_.assign(bound + 1, 0);
    for (auto [op, i] : pairs)
      if (op != no_op) ++begin_[op + 1];
    for (OpId o = 0; o < bound; ++o) begin_[o + 1] += begin_[o];
    entries_.resize(begin_[bound]);
    first_tests_.resize(begin_[bound]);
    std::vector<std::uint32_t> fill(begin_.begin(), begin_.end() - 1);
    for (auto [op, i] : pairs)  // pairs are in declaration order: rows stay in it
      if (op != no_op) {
        first_tests_[fill[op]] = tests[i];
        entries_[fill[op]++] = i;
      }
    rooted_.assign(bound + 1, 0);  // the last entry stands for every op from `bound` on
    few_count_ = 0;
    for (OpId o = 0; o < bound; ++o) {
      rooted_[o] = begin_[o] != begin_[o + 1];
      if (rooted_[o] && few_count_ <= max_few) {
        if (few_count_ < max_few) few_[few_count_] = o;
        ++few_count_;
      }
    }
    if (few_count_ > max_few) few_count_ = 0;
  }
  /// Whether the rules of `set` still name the root ops this table was built from. A rule may
  /// compute its root ops when asked (looking up an op that was not interned yet when the table
  /// was built gives no_op, and a real id later); comparing costs a few instructions per rule,
  /// building a table costs allocations. (Which rules are enabled is the set's business: it
  /// rebuilds its table when that changes.)
  template <class Set>
  bool current_for(const Set& set) const {
    bool same = true;
    std::size_t k = 0;
    set.for_each([&](const auto& r, std::size_t) {
      for (OpId op : std::span<const OpId>(r.root_ops())) {
        same = same && k < source_.size() && source_[k] == op;
        ++k;
      }
    });
    return same && k == source_.size();
  }
  /// Rule indices whose root op is `op`, in declaration order.
  std::span<const std::uint16_t> rules_for(OpId op) const {
    if (op >= begin_.size() - 1) return {};
    return {entries_.data() + begin_[op], entries_.data() + begin_[op + 1]};
  }
  /// The first tests (pattern/first_test.hpp) of the rules rules_for(op) lists, in its order.
  std::span<const pattern::FirstTest> first_tests_for(OpId op) const {
    if (op >= begin_.size() - 1) return {};
    return {first_tests_.data() + begin_[op], first_tests_.data() + begin_[op + 1]};
  }
  bool has_rules(OpId op) const { return rooted_[std::min<std::size_t>(op, rooted_.size() - 1)]; }
  /// Writes the ids whose op has rules, in id order, to `out` (room for one id more than there
  /// are) and returns the end. `ops` is per node id (Graph::live_call_ops), or a part of it
  /// starting at id `first`. A byte per op and no branch: every id is written and kept only if
  /// it is a candidate, so the spare entry. A set rooted at max_few ops or fewer compares the
  /// ids with them instead (candidates_of_few).
  NodeId* candidates(std::span<const OpId> ops, NodeId first, NodeId* out) const {
#if defined(__SSE2__)
    if (few_count_ != 0) return candidates_of_few(ops, first, out);
#endif
    const std::uint8_t* rooted = rooted_.data();
    const OpId last = static_cast<OpId>(rooted_.size() - 1);
    for (std::size_t i = 0; i < ops.size(); ++i) {
      *out = first + static_cast<NodeId>(i);
      out += rooted[std::min(ops[i], last)];
    }
    return out;
  }

 private:
#if defined(__SSE2__)
  /// candidates() for a set rooted at a few ops (a late pass: one): eight ids compared with
  /// each at a time and only the hits written. Most nodes are not candidates, and the scan
  /// was most of such a pass (gpt2's late pass: 0.9 of 2.4 us).
  NodeId* candidates_of_few(std::span<const OpId> ops, NodeId first, NodeId* out) const {
    __m128i keys[max_few];
    for (std::size_t k = 0; k < few_count_; ++k) keys[k] = _mm_set1_epi32(static_cast<int>(few_[k]));
    std::size_t i = 0;
    for (; i + 8 <= ops.size(); i += 8) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ops.data() + i));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ops.data() + i + 4));
      __m128i hit_a = _mm_cmpeq_epi32(a, keys[0]), hit_b = _mm_cmpeq_epi32(b, keys[0]);
      for (std::size_t k = 1; k < few_count_; ++k) {
        hit_a = _mm_or_si128(hit_a, _mm_cmpeq_epi32(a, keys[k]));
        hit_b = _mm_or_si128(hit_b, _mm_cmpeq_epi32(b, keys[k]));
      }
      auto mask = static_cast<unsigned>(_mm_movemask_ps(_mm_castsi128_ps(hit_a)) |
                                        (_mm_movemask_ps(_mm_castsi128_ps(hit_b)) << 4));
      for (; mask != 0; mask &= mask - 1) *out++ = first + static_cast<NodeId>(i + std::countr_zero(mask));
    }
    for (; i < ops.size(); ++i) {
      *out = first + static_cast<NodeId>(i);
      out += std::find(few_, few_ + few_count_, ops[i]) != few_ + few_count_;
    }
    return out;
  }
#endif

  static constexpr std::size_t max_few = 4;
  OpId few_[max_few] = {};   // the root ops, when there are at most max_few of them
  std::size_t few_count_ = 0;  // how many (0: more than max_few, or none)
  std::vector<std::uint32_t> begin_ = std::vector<std::uint32_t>(1, 0);  // no rows: no rules
  std::vector<std::uint16_t> entries_;
  std::vector<pattern::FirstTest> first_tests_;  // beside entries_: each entry's rule's first test
  std::vector<std::uint8_t> rooted_ = std::vector<std::uint8_t>(1, 0);  // per op: has rules
  std::vector<OpId> source_;  // every rule's root ops, enabled or not, in declaration order
};

template <Rule... R>
class RuleSet {
 public:
  using rules_list = boost::mp11::mp_list<R...>;
  static constexpr std::size_t size = sizeof...(R);

  RuleSet()
    requires(size > 0 && (std::default_initializable<R> && ...))
      : enabled_(size, 1) {
    table_.build(*this);
  }
  explicit RuleSet(R... r) : storage_(std::move(r)...), enabled_(size, 1) { table_.build(*this); }

  template <std::size_t I>
  const auto& get() const {
    using T = boost::mp11::mp_at_c<rules_list, I>;
    return static_cast<const detail::RuleSlot<I, T>&>(storage_).rule;
  }

  /// Calls f(rule, index) for every rule, in declaration order. A fold, not mp_for_each: that
  /// makes a function per rule whose name spells the whole set's type (tens of kB per rule in
  /// a large port), and mangling and emitting those names was a tenth to a fifth of such a
  /// port's compile time.
  template <class F>
  void for_each(F&& f) const {
    [&]<std::size_t... I>(std::index_sequence<I...>) { (f(get<I>(), I), ...); }(std::make_index_sequence<size>{});
  }
  /// Calls f(rule) for rule number `i` (a switch over the indices, no virtual call).
  template <class F>
  decltype(auto) visit(std::size_t i, F&& f) const {
    return boost::mp11::mp_with_index<size>(i, [&](auto I) -> decltype(auto) { return f(get<I>()); });
  }

  std::string_view name(std::size_t i) const {
    return visit(i, [](const auto& r) { return std::string_view(r.name()); });
  }
  /// Names in declaration order, each once.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for_each([&](const auto& r, std::size_t) {
      std::string n(r.name());
      bool seen = false;
      for (const std::string& o : out) seen |= o == n;
      if (!seen) out.push_back(std::move(n));
    });
    return out;
  }

  bool enabled(std::size_t i) const { return enabled_[i] != 0; }
  void set_enabled(std::size_t i, bool on) {
    enabled_.at(i) = on;
    table_.build(*this);
  }
  void enable_all() {
    enabled_.assign(size, 1);
    table_.build(*this);
  }
  /// Keeps only the rules called one of `keep` (every registration of a name). Returns the
  /// names in `keep` that no rule has (empty when all were found).
  std::vector<std::string> enable_only(std::span<const std::string> keep) {
    std::vector<std::string> unknown;
    for (const std::string& k : keep) {
      bool found = false;
      for (std::size_t i = 0; i < size; ++i) found |= name(i) == k;
      if (!found) unknown.push_back(k);
    }
    for (std::size_t i = 0; i < size; ++i) {
      bool on = false;
      for (const std::string& k : keep) on |= name(i) == k;
      enabled_[i] = on;
    }
    table_.build(*this);
    return unknown;
  }

  /// The dispatch table of the enabled rules, built with the set (not once per pass). A driver
  /// checks DispatchTable::current_for before using it.
  const DispatchTable& dispatch_table() const { return table_; }

  template <Rule... S>
  friend class RuleSet;
  template <Rule... A, Rule... B>
  friend RuleSet<A..., B...> concat(const RuleSet<A...>& a, const RuleSet<B...>& b);

 private:
  detail::RuleStorage<std::index_sequence_for<R...>, R...> storage_;
  std::vector<std::uint8_t> enabled_;
  DispatchTable table_;  // built from the two above: declared after them
};

template <Rule... R>
RuleSet<R...> rule_set(R... rules) {
  return RuleSet<R...>(std::move(rules)...);
}

/// The rules of `a`, then those of `b` (each keeps its on/off state).
template <Rule... A, Rule... B>
RuleSet<A..., B...> concat(const RuleSet<A...>& a, const RuleSet<B...>& b) {
  RuleSet<A..., B...> out = [&]<std::size_t... I, std::size_t... J>(std::index_sequence<I...>, std::index_sequence<J...>) {
    return RuleSet<A..., B...>(a.template get<I>()..., b.template get<J>()...);
  }(std::index_sequence_for<A...>{}, std::index_sequence_for<B...>{});
  for (std::size_t i = 0; i < sizeof...(A); ++i) out.enabled_[i] = a.enabled_[i];
  for (std::size_t j = 0; j < sizeof...(B); ++j) out.enabled_[sizeof...(A) + j] = b.enabled_[j];
  out.table_.build(out);
  return out;
}

/// The table a driver uses for one run over `set`: the set's own while it is current, else one
/// built into `local` for this run.
template <class Set>
const DispatchTable& dispatch_table_for(const Set& set, std::optional<DispatchTable>& local) {
  if constexpr (requires { set.dispatch_table(); })
    if (set.dispatch_table().current_for(set)) return set.dispatch_table();
  return local.emplace(set);
}

}  // namespace ctmatch
