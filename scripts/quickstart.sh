#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds attn-graph and runs the main job on shipped graphs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
echo
echo "== attn-graph info on a shipped molecule and a shipped social graph"
./build/apps/attn-graph info graphs/molecules/aspirin.gml graphs/social/karate.gml
