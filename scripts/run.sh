#!/usr/bin/env bash
# The main job: install what is missing, build, and run ctmatch-opt on its embedded sample
# graph (seed_mlp). It builds in build-tool/ (preset `tool`), apart from the test command's
# build/ and build-asan/, so that neither command changes what the other builds.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
cmake --preset tool -G Ninja >/dev/null
cmake --build build-tool --target ctmatch-opt
./build-tool/tools/ctmatch-opt "$@"
