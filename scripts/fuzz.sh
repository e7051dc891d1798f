#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/fuzz_*.c) with clang into build-fuzz/ and runs each for
# SECONDS (default 60) on its seed corpus (tests/fuzz/corpus/<target>), with the token dictionary
# tests/fuzz/<target>.dict where there is one. New inputs go to
# build-fuzz/corpus/<target>, never into the repository; a crash, leak, sanitizer report, timeout
# (10 s per input) or resident memory above 2 GiB fails the script and leaves the input in
# build-fuzz/artifacts/. A single allocation above 2 GiB fails as malloc would on a small machine
# (max_allocation_size_mb + allocator_may_return_null), so the loaders must answer AG_ENOMEM
# where the read limit (ag_graph_read_set_max_memory, the available memory by default) lets a
# size through that this machine's 2 GiB does not. Targets run at the lowest CPU priority, one
# per core at a time (AG_FUZZ_JOBS=N to change).
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (targets without the fuzz_ prefix, e.g. json)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
build=build-fuzz

echo "== build fuzz targets (clang, libFuzzer + ASan + UBSan)"
cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DAG_WERROR=ON -DAG_FUZZ=ON >/dev/null
cmake --build "$build" --target fuzz -j"$(nproc)" >/dev/null

if [ $# -gt 0 ]; then
  targets=("$@")
else
  targets=()
  for src in tests/fuzz/fuzz_*.c; do
    name=$(basename "$src" .c)
    targets+=("${name#fuzz_}")
  done
fi

# Temporary input files go to memory where possible (the model-file target writes and fsyncs).
if [ -d /dev/shm ] && [ -w /dev/shm ]; then export TMPDIR=/dev/shm; fi
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1:max_allocation_size_mb=2048
ASAN_OPTIONS+=:quarantine_size_mb=64
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

mkdir -p "$build/artifacts"
# One target per core at a time (AG_FUZZ_JOBS to change): each runs for its full SECONDS on a core
# of its own, so a 2-core machine does the step in half the wall time with the same fuzzing. Each
# target's summary is printed, in target order, once all have ended.
jobs=${AG_FUZZ_JOBS:-$(nproc)}
fuzz_one() {
  local t=$1 exe="$build/tests/fuzz/fuzz_$1" seeds="tests/fuzz/corpus/$1" work="$build/corpus/$1"
  local log="$build/fuzz_$1.log" out="$build/fuzz_$1.summary"
  local dict=()
  mkdir -p "$work"
  rm -f "$out" "$build/fuzz_$t.failed"
  if [ -f "tests/fuzz/$t.dict" ]; then dict=(-dict="tests/fuzz/$t.dict"); fi
  if nice -n 19 "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      "${dict[@]}" -artifact_prefix="$build/artifacts/$t-" "$work" "$seeds" >"$log" 2>&1; then
    { grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb)|^#[0-9]+.*DONE" "$log" | tr '\n' ' ' || true
      echo "corpus: $(ls "$work" | wc -l) new files"; } >"$out"
  else
    touch "$build/fuzz_$t.failed"
    { echo "fuzz_$t FAILED (log: $log):"
      grep -E "ERROR|SUMMARY|==[0-9]+==|Test unit written" "$log" | head -20 || true; } >"$out"
  fi
}
# The outcome is in the files (wait -n may already have collected a target's exit status).
echo "== ${#targets[@]} fuzz targets, ${seconds}s each, $jobs at a time"
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  fuzz_one "$t" &
done
wait
status=0
for t in "${targets[@]}"; do
  echo "== fuzz_$t: ${seconds}s"
  if [ -f "$build/fuzz_$t.failed" ] || [ ! -f "$build/fuzz_$t.summary" ]; then status=1; fi
  cat "$build/fuzz_$t.summary" 2>/dev/null || echo "fuzz_$t FAILED: it left no summary"
done
exit $status
