#!/usr/bin/env bash
# Builds and runs every test: first with g++ (Release, CUDA parts compiled when nvcc is
# found, the Python package and its tests with Debian's python3 and python3-torch), then again
# with clang++ under AddressSanitizer + UndefinedBehaviorSanitizer.
# Tests labelled `cuda` need a GPU and are left out here (the label exactly: `cuda_plan` tests
# run); run them with `ctest -L "^cuda$"`.
set -euo pipefail
cd "$(dirname "$0")/.."
CTMATCH_DEPS_PYTHON=1 source scripts/deps.sh
jobs=$(nproc)

echo "== g++ build and tests"
# CTMATCH_CUDA=AUTO given, not taken from the cache: a build/ configured otherwise before (by
# hand, or by an older first command) still compiles the CUDA parts where nvcc is.
cmake --preset default -G Ninja -DCTMATCH_CUDA=AUTO -DCTMATCH_PYTHON=ON >/dev/null
cmake --build build -j "$jobs"
ctest --test-dir build -LE "^cuda$" -j "$jobs" --output-on-failure

echo "== clang++ with AddressSanitizer + UndefinedBehaviorSanitizer"
cmake --preset sanitize -G Ninja -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build build-asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan -LE "^cuda$|^compile_fail$" -j "$jobs" --output-on-failure
