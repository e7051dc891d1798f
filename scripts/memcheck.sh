#!/usr/bin/env bash
# Runs every test program under valgrind memcheck, on a plain -O1 -g build without sanitizers
# (build-valgrind/). Any invalid access, use of uninitialised memory or definite/indirect leak
# fails the script. tests/valgrind.supp documents the only suppressions (BLIS 0.9's own reads).
# Usage: scripts/memcheck.sh [JOBS]
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${1:-$(nproc)}
build=build-valgrind

# Too slow under valgrind, and covered elsewhere:
# - gemm: about 350 s under valgrind (large products in BLIS, run at every transposition); it is
#   BLAS wrapping and kernels checked under ASan+UBSan and against naive loops in the normal run.
# - memory_limit: compares the memory estimate with the peak resident size of a child process,
#   which valgrind's own allocator and shadow memory make meaningless (and the child exits on
#   purpose without freeing); its allocations are checked under ASan.
skip="gemm memory_limit"
# Tests that compare what the library computes in-process with what the attn-graph program, run as
# a child, computes (api: the same weights through both): under valgrind the test sees valgrind's
# CPU, which has no AVX-512, so the library's target_clones and BLIS take other kernels than a
# native child would, and the last bits can differ (seen on an AMD EPYC Zen 4). Their children run
# under valgrind too, on the same CPU (and get checked as well).
trace_children="api"

echo "== build for valgrind (-O1 -g, no sanitizers)"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=None -DCMAKE_C_FLAGS="-O1 -g" -DAG_WERROR=ON >/dev/null
cmake --build "$build" -j"$jobs" >/dev/null

run_one() {
  local exe=$1 name
  name=$(basename "$exe")
  name=${name#test_}
  local log="$build/memcheck-$name.log" start=$SECONDS trace=no
  case " $trace_children " in *" $name "*) trace=yes ;; esac
  if CMOCKA_MESSAGE_OUTPUT=STDOUT OMP_WAIT_POLICY=passive valgrind -q --error-exitcode=99 --leak-check=full \
      --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
      --trace-children="$trace" --suppressions=tests/valgrind.supp "$exe" >"$log" 2>&1; then
    echo "memcheck $name: ok ($((SECONDS - start)) s)"
  else
    echo "memcheck $name: FAILED ($((SECONDS - start)) s), log $log:"
    grep -E "^==[0-9]+==|FAILED|\[  ERROR" "$log" | head -40
    return 1
  fi
}
export -f run_one
export build trace_children

# The longest under valgrind start first, so that the short ones fill the other core: started in
# alphabetical order, train began last and ran alone for its last minutes. A name here that is no
# longer a test fails the run (valgrind finds no program), so the list cannot go stale unseen.
first="attention_determinism train attention_grad determinism vnode api cli_train attention model"

echo "== tests under valgrind memcheck (skipped: $skip)"
programs=()
for name in $first; do programs+=("$build/tests/test_$name"); done
for exe in "$build"/tests/test_*; do
  name=${exe##*/test_}
  case " $skip $first " in *" $name "*) continue ;; esac
  programs+=("$exe")
done
printf '%s\n' "${programs[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one {}'
