#!/usr/bin/env bash
# Builds attn-graph with -Werror and runs the whole test suite, then builds it again under
# AddressSanitizer + UndefinedBehaviorSanitizer and runs the suite again, then runs the suite under
# valgrind memcheck (scripts/memcheck.sh) and every fuzz target for AG_FUZZ_SECONDS (default 60)
# on its corpus (scripts/fuzz.sh, one target per core at a time). Any of them failing fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
jobs=$(nproc)
# Each stage's start, with the seconds since the script began (CI's budget is 30 minutes).
stage() { echo "== $1 (at ${SECONDS} s)"; }

stage "build (Release, -Wall -Wextra -Werror)"
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Release -DAG_WERROR=ON >/dev/null
cmake --build build-test -j"$jobs"
stage "tests"
ctest --test-dir build-test --output-on-failure -j"$jobs"

stage "build (AddressSanitizer + UndefinedBehaviorSanitizer)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAG_WERROR=ON -DAG_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs"
stage "tests under sanitizers"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs"

stage "install check (examples built against the installed package, CMake and pkg-config)"
AG_INSTALL_BUILD_DIR=build-test bash scripts/check-install.sh

stage "valgrind memcheck"
bash scripts/memcheck.sh "$jobs"

stage "fuzz targets, ${AG_FUZZ_SECONDS:-60} s each"
bash scripts/fuzz.sh "${AG_FUZZ_SECONDS:-60}"
echo "== all passed in ${SECONDS} s"
