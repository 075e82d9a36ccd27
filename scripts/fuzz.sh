#!/usr/bin/env bash
# The fuzz campaign: MUTANTS mutants per format (default 10000; FX text and torch.export JSON),
# spread over the real graphs of tests/data, through the whole tool in process (readers,
# writers, both drivers with both rule sets: tests/fuzz/pipeline.hpp), in both builds — the
# g++ Release one (build/) and the clang ASan + UBSan one (build-asan/), built here if needed.
# The sanitizer build (Debug, every check on) takes the graphs under 64 KB only: a mutant of a
# 130 KB graph costs it about a second.
#   bash scripts/fuzz.sh [MUTANTS] [SEED]      (FUZZ_BUILDS="build-asan" for one build)
# A bug stops the run; the input that found it is in ctmatch-fuzz-bug.txt in the working
# directory. With the same MUTANTS and SEED a run repeats exactly.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
mutants=${1:-10000}
seed=${2:-1}
fx=(tests/data/*.fx.txt)
json=(tests/data/*.export.json)
if [ ! -f build/CMakeCache.txt ]; then cmake --preset default -G Ninja >/dev/null; fi
if [ ! -f build-asan/CMakeCache.txt ]; then cmake --preset sanitize -G Ninja -DCMAKE_CXX_COMPILER=clang++ >/dev/null; fi
for b in ${FUZZ_BUILDS:-build build-asan}; do
  cmake --build "$b" --target fuzz_campaign
  for format in fx json; do
    if [ "$format" = fx ]; then files=("${fx[@]}"); else files=("${json[@]}"); fi
    if [ "$b" = build-asan ]; then
      small=()
      for f in "${files[@]}"; do [ "$(stat -c %s "$f")" -lt 65536 ] && small+=("$f"); done
      files=("${small[@]}")
    fi
    per=$(( (mutants + ${#files[@]} - 1) / ${#files[@]} ))
    echo "== $b, $format: $per mutants of each of ${#files[@]} graphs"
    start=$(date +%s)
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      "$b/tests/fuzz/fuzz_campaign" --mutants "$per" --seed "$seed" "${files[@]}"
    echo "   $(( $(date +%s) - start )) s"
  done
done
