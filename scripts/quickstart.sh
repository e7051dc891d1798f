#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds attn-graph and runs it on shipped graphs with the
# shipped models: what a graph holds, then toxicity predictions for a few molecules.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
echo
echo "== attn-graph info: a shipped molecule and a shipped social graph"
./build/apps/attn-graph info graphs/molecules/aspirin.gml graphs/social/karate.gml
echo
echo "== attn-graph label: Karate club factions with the shipped model (first rows)"
./build/apps/attn-graph label graphs/social/karate.gml | head -6
echo
echo "== attn-graph classify: Tox21 toxicity (12 assays) with the shipped default model"
./build/apps/attn-graph classify graphs/molecules/aspirin.gml graphs/molecules/caffeine.gml \
    graphs/molecules/paracetamol.gml
