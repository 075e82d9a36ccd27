#!/usr/bin/env bash
# One GPU machine call's worth of work for the torch op on ctmatch's kernels (ctmatch.seedlib):
#   tools/gpu-torch-op.sh build   configure and build the CUDA tests, the Python package with
#                                 its CUDA module, seed_end_to_end; run ctest -L cuda (the
#                                 kernels, the epilogues with fp8 outputs, the Python cuda tests
#                                 (writing torch's fp8 table), the torch.compile example) and
#                                 the host fp8 and lowering tests
#   tools/gpu-torch-op.sh bench   the torch.compile example with fp8 outputs, then
#                                 benchmarks/python/bench_mm_scale_cast.py (every anchor shape)
#   tools/gpu-torch-op.sh all     in one call: only the Python modules built, their cuda tests,
#                                 the torch.compile example (bf16 and fp8), the benchmark
# Logs and JSON go to $OUT (default ./gpu-out). The configs are the reduced sets (the full ones
# take longer to compile than a call lasts). Needs the staged dependencies in ./.deps.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
py=$(command -v python3)
build=build-gpu-sys
export PYTHONPATH=$PWD/$build/python PYTHONDONTWRITEBYTECODE=1
# A g++ whose own libstdc++ is static only (this machine's /opt/gcc) would link libstdc++.a into
# the Python modules, beside the process's libstdc++.so that other libraries bring in: the two
# copies' locale facets do not match and the first ostringstream crashes. Build with the system
# compiler (as torch's extensions are built), for nvcc's host side too.
if [ -x /usr/bin/g++ ]; then export CC=/usr/bin/gcc CXX=/usr/bin/g++ CUDAHOSTCXX=/usr/bin/g++; fi

case "${1:-build}" in
build)
  {
    date -u
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
    "$py" -c "import sys, torch; print(sys.version.split()[0], 'torch', torch.__version__)"
  } 2>&1 | tee "$OUT/env.txt"
  t0=$(date +%s)
  cmake -S . -B $build -G Ninja -DCMAKE_PREFIX_PATH="$PWD/.deps" -DCMAKE_BUILD_TYPE=Release -DCTMATCH_CUDA=ON \
    -DCTMATCH_CUDA_FULL_CONFIGS=OFF -DCTMATCH_BUILD_TESTS=ON -DCTMATCH_BUILD_BENCHMARKS=OFF -DCTMATCH_PYTHON=ON \
    -DPython3_EXECUTABLE="$py" -Dpybind11_DIR="$("$py" -m pybind11 --cmakedir)" >"$OUT/build.log" 2>&1 ||
    { tail -30 "$OUT/build.log"; exit 1; }
  cmake --build $build -j "$(nproc)" --target ctmatch_cuda_tests _ctmatch _ctmatch_cuda seed_end_to_end \
    test_fp8 test_gemm_problem >>"$OUT/build.log" 2>&1 || { grep -E "error" -A5 "$OUT/build.log" | head -60; exit 1; }
  echo "built in $(( $(date +%s) - t0 )) s"
  grep -c "warning" "$OUT/build.log" | sed 's/^/warnings: /'
  export CTMATCH_FP8_TABLE_OUT=$OUT/fp8_torch_casts.txt
  (cd $build && ctest -L cuda -E "test_mm_configs|test_wgmma_configs" --output-on-failure --timeout 400 -V) \
    >"$OUT/ctest.log" 2>&1
  echo "ctest rc=$?"
  grep -E "tests passed|tests failed|Failed|\(Failed\)|SEGFAULT|Passed|ctmatch program|relative error|time \(median|OK$|MISMATCH|\.\.\. (ok|FAIL|ERROR)" \
    "$OUT/ctest.log" | tail -40
  for m in $build/python/ctmatch/_ctmatch*.so; do echo "$m: $(ldd "$m" | grep -c libstdc++) libstdc++.so"; done
  if [ -s "$OUT/fp8_torch_casts.txt" ]; then
    mkdir -p tests/data && cp "$OUT/fp8_torch_casts.txt" tests/data/
    $build/tests/cuda/test_fp8 2>&1 | tail -4
  fi
  $build/tests/lower/test_gemm_problem 2>&1 | tail -3
  ;;
all)
  t0=$(date +%s)
  cmake -S . -B $build -G Ninja -DCMAKE_PREFIX_PATH="$PWD/.deps" -DCMAKE_BUILD_TYPE=Release -DCTMATCH_CUDA=ON \
    -DCTMATCH_CUDA_FULL_CONFIGS=OFF -DCTMATCH_BUILD_TESTS=ON -DCTMATCH_BUILD_BENCHMARKS=OFF -DCTMATCH_PYTHON=ON \
    -DPython3_EXECUTABLE="$py" -Dpybind11_DIR="$("$py" -m pybind11 --cmakedir)" >"$OUT/build.log" 2>&1 ||
    { tail -30 "$OUT/build.log"; exit 1; }
  cmake --build $build -j "$(nproc)" --target _ctmatch _ctmatch_cuda >>"$OUT/build.log" 2>&1 ||
    { grep -E "error" -A5 "$OUT/build.log" | head -60; exit 1; }
  echo "built in $(( $(date +%s) - t0 )) s"
  for m in $build/python/ctmatch/_ctmatch*.so; do echo "$m: $(ldd "$m" | grep -c libstdc++) libstdc++.so"; done
  "$py" -m unittest discover -s tests/python/cuda -p "test_*.py" -v 2>&1 | grep -v Warning | tail -12 | tee "$OUT/python_cuda_tests.txt"
  for dt in bfloat16 float8_e4m3fn; do
    "$py" examples/python/cuda/fused_kernel.py --dtype $dt 2>&1 | grep -E "^(model|ctmatch|inductor|time|OK|MISMATCH)|Error|error" |
      tee "$OUT/fused_$dt.txt"
  done
  left=$(( 560 - ($(date +%s) - t0) ))
  echo "bench with ${left} s left"
  PYTHONUNBUFFERED=1 OUT="$OUT" timeout $left "$py" benchmarks/python/bench_mm_scale_cast.py --dtypes float16 float8_e4m3fn \
    2>&1 | grep -v Warning | grep "^{" | tee "$OUT/bench_mm_scale_cast.log"
  ;;
quick)
  t0=$(date +%s)
  cmake -S . -B $build -G Ninja -DCMAKE_PREFIX_PATH="$PWD/.deps" -DCMAKE_BUILD_TYPE=Release -DCTMATCH_CUDA=ON \
    -DCTMATCH_BUILD_TESTS=OFF -DCTMATCH_BUILD_BENCHMARKS=OFF -DCTMATCH_BUILD_TOOLS=OFF -DCTMATCH_BUILD_EXAMPLES=OFF \
    -DCTMATCH_PYTHON=ON -DPython3_EXECUTABLE="$py" -Dpybind11_DIR="$("$py" -m pybind11 --cmakedir)" >"$OUT/build.log" 2>&1 ||
    { tail -30 "$OUT/build.log"; exit 1; }
  cmake --build $build -j "$(nproc)" --target _ctmatch _ctmatch_cuda >>"$OUT/build.log" 2>&1 || { grep error -A5 "$OUT/build.log" | head; exit 1; }
  echo "built in $(( $(date +%s) - t0 )) s; libstdc++.so linked: $(ldd $build/python/ctmatch/_ctmatch_cuda*.so | grep -c libstdc++)"
  "$py" -m unittest discover -s tests/python/cuda -p "test_*.py" -v 2>&1 | grep -v Warning | tail -12 | tee "$OUT/python_cuda_tests.txt"
  "$py" examples/python/cuda/fused_kernel.py --dtype float8_e4m3fn --reps 10 2>&1 |
    grep -E "^(model|ctmatch|inductor|time|OK|MISMATCH)|Error|error" | tee "$OUT/fused_fp8.txt"
  ;;
bench)
  "$py" examples/python/cuda/fused_kernel.py --dtype float8_e4m3fn 2>&1 | grep -v Warning | tee "$OUT/fused_fp8.txt"
  PYTHONUNBUFFERED=1 OUT="$OUT" timeout 420 "$py" benchmarks/python/bench_mm_scale_cast.py 2>&1 | grep -v Warning |
    tee "$OUT/bench_mm_scale_cast.log"
  ;;
esac
