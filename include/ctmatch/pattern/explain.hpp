#pragma once
// explain(p, g, node): why a pattern does (not) match at a node.
//
//   auto e = explain(rule, g, g.find("add_3"));
//   if (!e.matched) std::cout << e.to_string();
//   // pattern node #1 (aten.mm.default) at 'addmm', argument 'self': op: expected
//   //   aten.mm.default, found aten.addmm.default
//
// It runs the same matcher as match(), instantiated with the recording sink (failure.hpp):
// every failure names the pattern node (its index in Match's node order and its op), the graph
// node it was tried on, the argument, what was expected and what was found (op, arity, type,
// value, users, exact kwargs, check). match() itself is compiled with a sink that records
// nothing, so explanations cost nothing unless explain() is called.
#include <string>
#include <vector>

#include "match.hpp"

namespace ctmatch::pattern {

struct Explanation {
  bool matched = false;
  std::vector<MatchFailure> failures;  // in the order they happened (one per branch tried)

  std::string to_string() const {
    if (matched) return "matched\n";
    std::string s;
    for (const MatchFailure& f : failures) s += f.to_string() + "\n";
    if (s.empty()) s = "no match\n";
    return s;
  }
};

template <class P>
Explanation explain(const P& p, const Graph& g, NodeId id) {
  Explainer sink(g);
  Match<P> m;
  Explanation e;
  e.matched = detail::run(p, g, id, m, sink);
  if (!e.matched) e.failures = std::move(sink.failures);
  return e;
}

}  // namespace ctmatch::pattern
