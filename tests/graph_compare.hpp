#pragma once
// Comparing two graphs, for round-trip and cross-format tests.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <ctmatch/graph.hpp>
#include <ctmatch/graph/value_print.hpp>

/// Same kind and content; node references are equal when they name the same node (the two
/// graphs may number their nodes apart).
inline bool same_value(const ctmatch::Value& a, const ctmatch::Graph& ga, const ctmatch::Value& b,
                       const ctmatch::Graph& gb) {
  using namespace ctmatch;
  if (a.kind() != b.kind()) return false;
  if (a.is_node()) return ga[a.node()].name() == gb[b.node()].name();
  if (a.is_list()) {
    const auto &x = *a.items(), &y = *b.items();
    if (a.get_if<List>()->tuple != b.get_if<List>()->tuple || x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!same_value(x[i], ga, y[i], gb)) return false;
    return true;
  }
  return a == b;
}

/// Checks that two graphs are identical: same nodes in the same order, same kinds, names,
/// targets, ops, args and kwargs (deep, value kinds included, references by name and by id),
/// users, signatures, metadata and annotations, and the graph annotations. One difference fails.
inline void check_same_graph(const ctmatch::Graph& a, const ctmatch::Graph& b) {
  using namespace ctmatch;
  REQUIRE(a.size() == b.size());
  NodeId x = a.first(), y = b.first();
  for (; x != no_node && y != no_node; x = a.next(x), y = b.next(y)) {
    const Node &m = a[x], &n = b[y];
    INFO("node " << m.name());
    CHECK(m.kind() == n.kind());
    CHECK(m.name() == n.name());
    CHECK(m.target() == n.target());
    CHECK(m.op() == n.op());
    CHECK(m.signature() == n.signature());
    REQUIRE(m.args().size() == n.args().size());
    for (std::size_t i = 0; i < m.args().size(); ++i) {
      CHECK(m.args()[i] == n.args()[i]);
      CHECK_MESSAGE(same_value(m.args()[i], a, n.args()[i], b),
                    "arg " << i << ": " << to_string(m.args()[i], &a) << " vs " << to_string(n.args()[i], &b));
    }
    REQUIRE(m.kwargs().size() == n.kwargs().size());
    for (std::size_t i = 0; i < m.kwargs().size(); ++i) {
      CHECK(m.kwargs()[i].name == n.kwargs()[i].name);
      CHECK(m.kwargs()[i].value == n.kwargs()[i].value);
      CHECK_MESSAGE(same_value(m.kwargs()[i].value, a, n.kwargs()[i].value, b), "kwarg " << m.kwargs()[i].name);
    }
    REQUIRE(m.num_users() == n.num_users());
    for (std::size_t i = 0; i < m.num_users(); ++i) CHECK(a[m.users()[i]].name() == b[n.users()[i]].name());
    CHECK(m.meta() == n.meta());
    CHECK(m.annotations() == n.annotations());
  }
  CHECK(x == no_node);
  CHECK(y == no_node);
  CHECK(a.annotations == b.annotations);
}
