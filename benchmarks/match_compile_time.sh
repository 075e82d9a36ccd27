#!/bin/sh
# Compile time of pattern translation units (bench_match's companion; figures in RESULTS.md).
#   benchmarks/match_compile_time.sh [CXX] [REPO]
# Builds, with CXX -std=c++20 -O2 -c, three TUs:
#   base.cpp    the headers only (ctmatch/pattern.hpp, the graph layer), no pattern matched
#   eight.cpp   the eight benchmark patterns (match_patterns.hpp), each matched and explained
#   hundred.cpp 100 generated patterns (10 shapes x 10 name sets: every pattern its own type),
#               each matched
# and prints the wall and user+sys seconds of each.
set -eu
CXX=${1:-g++}
REPO=${2:-$(cd "$(dirname "$0")/.." && pwd)}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT

cat > "$DIR/base.cpp" <<'CPP'
#include <ctmatch/pattern.hpp>
int main() { return 0; }
CPP

cat > "$DIR/eight.cpp" <<'CPP'
#include "match_patterns.hpp"
using namespace match_bench;
template <class P>
std::size_t count(const P& p, const Graph& g) {
  Match<P> m;
  std::size_t n = 0;
  for (const Node& node : g.nodes()) n += match_into(p, g, node.id(), m);
  n += explain(p, g, g.first()).failures.size();
  return n;
}
std::size_t all(const Graph& g) {
  return count(view_view, g) + count(permute_identity, g) + count(to_copy_pair, g) + count(mm_bias, g) +
         count(attention, g) + count(gelu_tanh, g) + count(layer_norm, g) + count(mm_scale_cast, g);
}
CPP

{
  echo '#include <ctmatch/pattern.hpp>'
  echo 'using namespace ctmatch; using namespace ctmatch::dsl;'
  echo 'template <class P> std::size_t count(const P& p, const Graph& g) {'
  echo '  Match<P> m; std::size_t n = 0;'
  echo '  for (const Node& node : g.nodes()) n += match_into(p, g, node.id(), m);'
  echo '  return n; }'
  echo 'std::size_t all(const Graph& g) { std::size_t n = 0;'
  i=0
  while [ $i -lt 100 ]; do
    s=$((i % 10))
    x="\"x$i\"_x"; y="\"y$i\"_x"; v="\"v$i\""
    case $s in
      0) p="aten::view(aten::view($x, _).users<1>(), $y)" ;;
      1) p="aten::permute(aten::permute($x, slot<$v, IntList>).users<1>(), _)" ;;
      2) p="aten::_to_copy(aten::_to_copy($x, \"dtype\"_kw = slot<$v, DType>).exact_kwargs(), \"dtype\"_kw = _)" ;;
      3) p="aten::add.Tensor(aten::mm($x, $y).users<1>(), \"b$i\"_x).commutative()" ;;
      4) p="aten::_softmax(aten::add.Tensor(aten::mul.Tensor($x, slot<$v, double>), $y), -1, false)" ;;
      5) p="aten::gelu($x, \"approximate\"_kw = slot<$v, std::string_view>)" ;;
      6) p="getitem(aten::native_layer_norm($x, _, slot<$v, Value>, _, slot<\"e$i\", double>).users<1>(), 0)" ;;
      7) p="aten::bmm($x, $y) | aten::mm($x, $y)" ;;
      8) p="aten::cat(slot<$v, TensorList>, slot<\"d$i\", std::int64_t>.where([](std::int64_t d) { return d >= 0; }))" ;;
      9) p="aten::expand(aten::clone($x, \"memory_format\"_kw = slot<$v, std::optional<MemoryFormat>>), slot<\"s$i\", IntList>)" ;;
    esac
    echo "  { constexpr auto p = $p; n += count(p, g); }"
    i=$((i + 1))
  done
  echo '  return n; }'
} > "$DIR/hundred.cpp"

for tu in base eight hundred; do
  /usr/bin/time -f "$tu: %e s wall, %U s user + %S s sys" \
    "$CXX" -std=c++20 -O2 -I"$REPO/include" -I"$REPO/benchmarks" -c "$DIR/$tu.cpp" -o "$DIR/$tu.o"
done
