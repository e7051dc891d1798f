#!/usr/bin/env bash
# Installs every Debian 12 package attn-graph needs to build and test. Idempotent and
# non-interactive: packages already present are not touched, and apt runs only when one is missing.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libigraph-dev
  # igraph's CMake package names the .so links of its dependencies; these -dev packages ship them.
  libarpack2-dev libglpk-dev libplfit-dev libgmp-dev libblas-dev liblapack-dev libxml2-dev
  libblis-dev libblis-openmp-dev   # the default CBLAS provider (see docs/blas.md)
  libcmocka-dev
  # robustness CI steps: libFuzzer targets (clang, with LLVM's OpenMP) and memcheck
  clang libclang-rt-14-dev libomp-dev valgrind
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "deps.sh: missing packages ${missing[*]}; run as root to install them" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
