#!/usr/bin/env bash
# One GPU machine call's worth of work for the Python package, with the torch (and Inductor)
# installed there: build the module and the example's rules for that interpreter, run the
# Python tests and the seed-question example (under torch.compile), then
# benchmarks/python/bench_fx_pass.py beside Inductor's PatternMatcherPass. Logs and JSON go to
# $OUT (default ./gpu-out).
#
#   tools/gpu-python.sh BENCH_DIR      # BENCH_DIR holds inductor_bench.py and model_zoo.py
#   tools/gpu-python.sh - port         # only the module, then benchmarks/python/port_in_compile.py
#                                      # (ctmatch's inductor_joint inside torch.compile)
#
# Needs the staged dependencies in ./.deps (see the device notes in benchmarks/RESULTS.md).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
bench_dir=${1:?BENCH_DIR}
what=${2:-all}
targets=(_ctmatch _ctmatch_torch seed_question_rules)
[ "$what" = port ] && targets=(_ctmatch _ctmatch_torch)
py=$(command -v python3)
build=build-gpu-python
{
  date -u
  "$py" -c "import sys, torch, pybind11; print(sys.version.split()[0], 'torch', torch.__version__, 'pybind11', pybind11.__version__)"
  lscpu | grep -m1 "Model name"
} 2>&1 | tee "$OUT/python_env.txt"

echo "== configure + build"
t0=$(date +%s)
cmake -S . -B $build -DCMAKE_PREFIX_PATH="$PWD/.deps" -DCMAKE_BUILD_TYPE=Release -DCTMATCH_CUDA=OFF \
  -DCTMATCH_BUILD_TESTS=OFF -DCTMATCH_BUILD_BENCHMARKS=OFF -DCTMATCH_BUILD_TOOLS=OFF -DCTMATCH_BUILD_EXAMPLES=ON \
  -DCTMATCH_PYTHON=ON -DCTMATCH_PYTHON_TORCH_CPP=ON -DPython3_EXECUTABLE="$py" -Dpybind11_DIR="$("$py" -m pybind11 --cmakedir)" \
  >"$OUT/python_build.log" 2>&1 || { tail -30 "$OUT/python_build.log"; exit 1; }
cmake --build $build -j "$(nproc)" --target "${targets[@]}" >>"$OUT/python_build.log" 2>&1 || {
  tail -40 "$OUT/python_build.log"; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
export PYTHONPATH=$PWD/$build/python:$PWD/$bench_dir PYTHONDONTWRITEBYTECODE=1 CTMATCH_EXPECT_TENSOR_IMPL_READER=1

if [ "$what" = port ]; then
  echo "== port_in_compile"
  "$py" benchmarks/python/port_in_compile.py --out "$OUT/port" 2>&1 | grep -v Warning | tail -20
  exit 0
fi

echo "== Python tests"
"$py" -m unittest discover -s tests/python -p "test_*.py" 2>&1 | tail -40 | tee "$OUT/python_tests.txt"
echo "== seed question example"
"$py" examples/python/seed_question.py 2>&1 | tail -20 | tee "$OUT/seed_question.txt"
echo "== bench_fx_pass"
"$py" benchmarks/python/bench_fx_pass.py --models gpt2 bert --compile --out "$OUT/fx_pass.json" 2>&1 \
  | grep -v "^note:" | tail -40 | tee "$OUT/fx_pass.txt"
