#!/bin/sh
# What the Inductor joint-graph port costs to compile (RESULTS.md's "the port's TU" row;
# target: < 60 s and 4 GB with g++ 12 -O2 on the 2-core VM).
#   benchmarks/port_compile_time.sh [CXX] [REPO]
# Builds, with CXX -std=c++20 -O2 -c, a TU that includes ctmatch.hpp, io.hpp and
# rules/inductor_joint.hpp, reads a graph and sweeps inductor_joint(), and prints its wall and
# user+sys seconds and peak memory. The same TU without the rules is include_compile_time.sh's
# include.cpp.
set -eu
CXX=${1:-g++}
REPO=${2:-$(cd "$(dirname "$0")/.." && pwd)}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT

cat > "$DIR/port.cpp" <<'CPP'
#include <ctmatch/ctmatch.hpp>
#include <ctmatch/io.hpp>
#include <ctmatch/rules/inductor_joint.hpp>
#include <cstdio>
int main(int argc, char** argv) {
  if (argc < 2) return 2;
  ctmatch::Graph g = ctmatch::io::read_graph_file(argv[1]);
  std::printf("%zu matches\n", ctmatch::sweep(g, ctmatch::rules::inductor_joint()).total_matches());
  return 0;
}
CPP

echo "compiler: $($CXX --version | head -1)"
/usr/bin/time -f "%e %U %S %M" -o "$DIR/port.time" $CXX -std=c++20 -O2 "-I$REPO/include" -c "$DIR/port.cpp" -o "$DIR/port.o"
read -r wall user sys mem < "$DIR/port.time"
echo "port.cpp: wall ${wall} s, user+sys $(echo "$user + $sys" | bc) s, peak $((mem / 1024)) MB"
