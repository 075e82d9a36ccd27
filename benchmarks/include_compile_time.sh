#!/bin/sh
# What one #include and a pass of rules cost to compile (the figures of RESULTS.md's compile
# time rows; targets: the include alone <= 3 s, a 12-rule pass <= 12 s, -O2, 2-core VM).
#   benchmarks/include_compile_time.sh [CXX] [REPO]
# Builds, with CXX -std=c++20 -O2 -c, and prints the wall and user+sys seconds and the peak
# memory of each:
#   parse.cpp    #include <ctmatch/ctmatch.hpp> and nothing used: what the include alone costs
#   include.cpp  ctmatch.hpp and io.hpp, read one graph file, print its size
#   dsl.cpp      the DSL and the drivers only (pattern.hpp, rewrite.hpp), one rule swept
#   twelve.cpp   a pass of 12 rules (the 9 bench rules and 3 default ones) over the graph it is
#                given: a downstream compiler's pass file (its graph comes from elsewhere, so it
#                does not compile the readers: include.cpp shows what they cost)
# then -ftime-report of include.cpp and twelve.cpp (the phases over 3% of the time).
set -eu
CXX=${1:-g++}
REPO=${2:-$(cd "$(dirname "$0")/.." && pwd)}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT

printf '#include <ctmatch/ctmatch.hpp>\nint main() { return 0; }\n' > "$DIR/parse.cpp"

cat > "$DIR/include.cpp" <<'CPP'
#include <ctmatch/ctmatch.hpp>
#include <ctmatch/io.hpp>
#include <cstdio>
int main(int argc, char** argv) {
  if (argc < 2) return 2;
  ctmatch::Graph g = ctmatch::io::read_graph_file(argv[1]);
  std::printf("%zu\n", g.size());
  return 0;
}
CPP

cat > "$DIR/dsl.cpp" <<'CPP'
#include <ctmatch/pattern.hpp>
#include <ctmatch/rewrite.hpp>
using namespace ctmatch::dsl;
constexpr auto rule = rewrite<"view_view">(aten::view(aten::view("x"_x, _).users<1>(), "size"_x), aten::view("x"_x, "size"_x));
std::size_t run(ctmatch::Graph& g) { return ctmatch::sweep(g, ctmatch::rule_set(rule)).total_matches(); }
CPP

# The rules' own headers, as a pass file includes what it uses: not rules/builtin.hpp (ctmatch-opt's
# table of every built-in set by name, the Inductor ports among them: +2.5 s).
cat > "$DIR/twelve.cpp" <<'CPP'
#include <ctmatch/ctmatch.hpp>
#include <ctmatch/rules/bench.hpp>
#include <ctmatch/rules/default.hpp>
std::size_t run_pass(ctmatch::Graph& g) {
  using namespace ctmatch::rules::bench_detail;
  namespace d = ctmatch::rules::default_detail;
  auto rules = ctmatch::rule_set(view_view, permute_identity, to_copy_pair, mm_bias, mm_bias_swapped, attention,
                                 gelu_tanh, layer_norm, mm_scale_cast, d::view_noop, d::permute_noop, d::expand_noop);
  static_assert(decltype(rules)::size == 12);
  return ctmatch::sweep(g, rules).total_matches();
}
CPP

INC="-I$REPO/include"
echo "compiler: $($CXX --version | head -1)"
for tu in parse include dsl twelve; do
  /usr/bin/time -f "%e %U %S %M" -o "$DIR/$tu.time" $CXX -std=c++20 -O2 $INC -c "$DIR/$tu.cpp" -o "$DIR/$tu.o"
  read -r wall user sys mem < "$DIR/$tu.time"
  echo "$tu.cpp: wall ${wall} s, user+sys $(echo "$user + $sys" | bc) s, peak $((mem / 1024)) MB"
done
for tu in include twelve; do
  echo "-- -ftime-report, $tu.cpp (phases over 3% of wall)"
  # (g++ 12's -ftime-report stops with an internal compiler error on some TUs: said, not hidden.)
  $CXX -std=c++20 -O2 $INC -c "$DIR/$tu.cpp" -o "$DIR/$tu.o" -ftime-report > "$DIR/$tu.report" 2>&1 || true
  if grep -q "internal compiler error" "$DIR/$tu.report"; then
    echo "   ($CXX -ftime-report: internal compiler error on this TU)"
    continue
  fi
  awk '/^ [a-zA-Z]/ && /%\)/ { line = $0; n = split(line, f, "("); pct = f[n]; sub(/%.*/, "", pct);
       if (pct + 0 >= 3) print line }' "$DIR/$tu.report" | sort -t'(' -k4 -rn | head -12
done
