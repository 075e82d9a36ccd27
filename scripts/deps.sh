#!/usr/bin/env bash
# Installs, from Debian 12 packages, whatever ctmatch needs that is missing. Sourced by the
# other scripts; does nothing when everything is there. With CTMATCH_DEPS_PYTHON=1 (the test
# command) also what the Python package and its tests need: python3-dev, pybind11-dev,
# python3-torch (torch.fx and make_fx; recommended packages are left out), and libtorch-dev
# (torch's C++ headers, for ctmatch._ctmatch_torch).
set -euo pipefail
ctmatch_packages=(cmake ninja-build g++ clang-14 libclang-rt-14-dev libboost1.81-dev
                  libboost-json1.81-dev libsimdjson-dev libzip-dev doctest-dev libbenchmark-dev)
if [ "${CTMATCH_DEPS_PYTHON:-0}" = 1 ]; then
  ctmatch_packages+=(python3-dev pybind11-dev python3-torch libtorch-dev)
fi
missing=()
for p in "${ctmatch_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "ctmatch: installing ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The CUDA toolkit is optional: its parts build when nvcc is found.
if [ -z "${CUDACXX:-}" ] && ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi
