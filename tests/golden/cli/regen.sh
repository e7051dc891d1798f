#!/bin/sh
# Rewrites every golden file of tests/golden/cli from the current build (see README.md for when
# this is legitimate). Usage, from anywhere:
#   tests/golden/cli/regen.sh [path/to/attn-graph]      (default: build/apps/attn-graph)
# Runs each case of cases.tsv exactly as tests/test_cli_golden.c does: from the repository root,
# with OMP_WAIT_POLICY=passive, and refuses a case that fails or prints on standard error.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cli=${1:-$root/build/apps/attn-graph}
case $cli in /*) ;; *) cli=$(pwd)/$cli ;; esac
[ -x "$cli" ] || { echo "regen.sh: no program at $cli (build first, or give its path)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
n=0
tab=$(printf '\t')
while IFS="$tab" read -r name args; do
    case $name in ''|'#'*) continue ;; esac
    out="$tmp/$name"
    case $args in
    *'{out}'*) words=$(printf '%s' "$args" | sed "s|{out}|$out|g"); dest=$out ;;
    *) words=$args; dest="$tmp/$name.stdout" ;;
    esac
    # shellcheck disable=SC2086 # the arguments are shell words, as in the test
    if [ "$dest" = "$out" ]; then
        OMP_WAIT_POLICY=passive "$cli" $words >/dev/null 2>"$tmp/err" || { echo "regen.sh: $name failed:" >&2; cat "$tmp/err" >&2; exit 1; }
    else
        OMP_WAIT_POLICY=passive "$cli" $words >"$dest" 2>"$tmp/err" || { echo "regen.sh: $name failed:" >&2; cat "$tmp/err" >&2; exit 1; }
    fi
    [ ! -s "$tmp/err" ] || { echo "regen.sh: $name printed on stderr:" >&2; cat "$tmp/err" >&2; exit 1; }
    cp "$dest" "$here/$name"
    n=$((n + 1))
done < "$here/cases.tsv"
echo "regen.sh: wrote $n golden files in $here with $cli; review 'git diff' before committing"
