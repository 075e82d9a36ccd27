#pragma once
// RuleSet: rules fixed at compile time (a type list), tried in declaration order, dispatched
// by the op of the candidate node through a table indexed by op id, built once per run.
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
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../graph/graph.hpp"
#include "rule.hpp"

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

template <Rule... R>
class RuleSet {
 public:
  using rules_list = boost::mp11::mp_list<R...>;
  static constexpr std::size_t size = sizeof...(R);

  RuleSet()
    requires(size > 0 && (std::default_initializable<R> && ...))
      : enabled_(size, 1) {}
  explicit RuleSet(R... r) : storage_(std::move(r)...), enabled_(size, 1) {}

  template <std::size_t I>
  const auto& get() const {
    using T = boost::mp11::mp_at_c<rules_list, I>;
    return static_cast<const detail::RuleSlot<I, T>&>(storage_).rule;
  }

  /// Calls f(rule, index) for every rule, in declaration order.
  template <class F>
  void for_each(F&& f) const {
    boost::mp11::mp_for_each<boost::mp11::mp_iota_c<size>>([&](auto I) { f(get<I>(), std::size_t{I}); });
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
  void set_enabled(std::size_t i, bool on) { enabled_.at(i) = on; }
  void enable_all() { enabled_.assign(size, 1); }
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
    return unknown;
  }

  template <Rule... S>
  friend class RuleSet;
  template <Rule... A, Rule... B>
  friend RuleSet<A..., B...> concat(const RuleSet<A...>& a, const RuleSet<B...>& b);

 private:
  detail::RuleStorage<std::index_sequence_for<R...>, R...> storage_;
  std::vector<std::uint8_t> enabled_;
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
  return out;
}

/// Which rules to try at a node of a given op: a table indexed by op id, built once per run
/// (ops are interned at run time, so it cannot be built at compile time). Compressed rows:
/// the rules of op `o` are entries_[begin_[o] .. begin_[o + 1]), in declaration order.
class DispatchTable {
 public:
  template <class Set>
  explicit DispatchTable(const Set& set) {
    std::vector<std::pair<OpId, std::uint16_t>> pairs;
    std::size_t total = 0;
    set.for_each([&](const auto& r, std::size_t) { total += r.root_ops().size(); });
    pairs.reserve(total);
    OpId bound = 0;
    set.for_each([&](const auto& r, std::size_t i) {
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
    std::vector<std::uint32_t> fill(begin_.begin(), begin_.end() - 1);
    for (auto [op, i] : pairs)  // pairs are in declaration order: rows stay in it
      if (op != no_op) entries_[fill[op]++] = i;
  }
  /// Rule indices whose root op is `op`, in declaration order.
  std::span<const std::uint16_t> rules_for(OpId op) const {
    if (op >= begin_.size() - 1) return {};
    return {entries_.data() + begin_[op], entries_.data() + begin_[op + 1]};
  }
  bool has_rules(OpId op) const { return op < begin_.size() - 1 && begin_[op] != begin_[op + 1]; }

 private:
  std::vector<std::uint32_t> begin_;
  std::vector<std::uint16_t> entries_;
};

}  // namespace ctmatch
