#!/usr/bin/env bash
# The main job: install what is missing, build, and run ctmatch-opt on its embedded sample
# graph (seed_mlp).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
cmake --preset default -G Ninja -DCTMATCH_CUDA=OFF >/dev/null
cmake --build build --target ctmatch-opt
./build/tools/ctmatch-opt "$@"
