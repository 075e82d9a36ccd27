#!/usr/bin/env bash
# One GPU machine call's worth of work for the CUDA part: configure and build the CUDA targets
# (every generated config instantiated), run the `cuda` tests, then bench_gemm and the
# reference script gemm_anchor.py side by side. Logs and JSON go to $OUT (default ./gpu-out).
#
#   tools/gpu-check.sh [ANCHOR_SCRIPT]       # e.g. .gpu/gemm_anchor.py; skipped when absent
#
# CTMATCH_CUDA_FULL_CONFIGS=OFF builds the reduced config sets (about a minute instead of
# several); CTMATCH_MEMCHECK=1 then runs the kernel tests under compute-sanitizer's memcheck
# (every reduced config of both templates and the epilogues; slow with the full sets).
# CTMATCH_GPU_QUICK=1 builds and runs only test_epilogues and bench_gemm (memcheck, when asked,
# of test_epilogues alone): a few minutes, for a call that may be cut short.
#
# Needs the staged dependencies in ./.deps (see the device notes in benchmarks/RESULTS.md).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
anchor=${1:-}
jobs=$(nproc)
build=build-gpu
full=${CTMATCH_CUDA_FULL_CONFIGS:-ON}

{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
  nvcc --version | tail -2
  cmake --version | head -1
} >"$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

echo "== configure + build (full configs: $full, -j$jobs)"
t0=$(date +%s)
cmake -S . -B $build -G Ninja -DCMAKE_PREFIX_PATH="$PWD/.deps" -DCMAKE_BUILD_TYPE=Release \
  -DCTMATCH_BUILD_TESTS=ON -DCTMATCH_CUDA=ON -DCTMATCH_CUDA_FULL_CONFIGS=$full >"$OUT/build.log" 2>&1 || {
  tail -30 "$OUT/build.log"; exit 1; }
# (seed_end_to_end and ctmatch-tune are left out: with the full set they instantiate every
# config several times (seed_end_to_end once per output dtype of the fused epilogue,
# ctmatch-tune once per input dtype), which takes far longer than the tests; build them with
# the reduced set.)
# What is built, tested and (with CTMATCH_MEMCHECK) run under memcheck: everything, or with
# CTMATCH_GPU_QUICK the epilogues alone. The memcheck list is expanded as globs when it runs.
if [ "${CTMATCH_GPU_QUICK:-0}" = 1 ]; then
  targets=(test_epilogues bench_gemm)
  tests=(-R '^test_epilogues$')
  kernels="$build/tests/cuda/test_epilogues"
else
  targets=(ctmatch_cuda_tests bench_gemm)
  tests=(-L "cuda|cuda_plan" -E example_)
  kernels="$build/tests/cuda/test_wgmma_configs_* $build/tests/cuda/test_mm_configs_* $build/tests/cuda/test_epilogues"
fi
cmake --build $build -j "$jobs" --target "${targets[@]}" >>"$OUT/build.log" 2>&1
build_rc=$?
echo "build rc=$build_rc in $(( $(date +%s) - t0 )) s"
# per-target compile times (ninja log: start ms, end ms, mtime, output)
awk 'NR>1 {printf "%8.1f s  %s\n", ($2-$1)/1000, $4}' $build/.ninja_log | sort -rn | head -20 >"$OUT/compile_times.txt"
cat "$OUT/compile_times.txt"
grep -E "warning|error" "$OUT/build.log" | head -20

echo "== tests: ${tests[*]}"
(cd $build && ctest "${tests[@]}" --output-on-failure --timeout 300 -V) >"$OUT/ctest.log" 2>&1
echo "ctest rc=$?"
grep -E "tests passed|tests failed|Failed|\[doctest\] (test cases|assertions)" "$OUT/ctest.log" | tail -30

echo "== bench_gemm"
if [ -x $build/benchmarks/bench_gemm ]; then
  (cd "$OUT" && timeout 300 "$OLDPWD/$build/benchmarks/bench_gemm" "$OUT/bench_gemm.json") 2>&1 | tee "$OUT/bench_gemm.log"
fi

if [ "${CTMATCH_MEMCHECK:-0}" = 1 ]; then
  echo "== compute-sanitizer memcheck"
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for t in $kernels; do
    [ -x "$t" ] || continue
    log="$OUT/memcheck_$(basename "$t").log"
    timeout 300 "$sanitizer" --tool memcheck --error-exitcode 9 "$t" >"$log" 2>&1
    rc=$?
    echo "$(basename "$t"): rc=$rc $(grep -E "ERROR SUMMARY" "$log" | tail -1)"
  done
fi

if [ -n "$anchor" ] && [ -f "$anchor" ]; then
  echo "== $anchor"
  PYTHONUNBUFFERED=1 OUT="$OUT" timeout 300 python3 "$anchor" 2>&1 | grep -v Warning | tee "$OUT/gemm_anchor.log"
fi
exit $build_rc
