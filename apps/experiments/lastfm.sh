#!/bin/sh
# LastFM Asia: a user's country (18 classes) from the friendship graph alone (the dataset has no
# node features), on split.json (60/20/20); test accuracy and macro-F1 over AG_SEEDS seeds
# (default 3). Not in the issues' table: the structure-only command of docs/cli.md, measured.
# usage: apps/experiments/lastfm.sh DATASETS_DIR
[ $# -eq 1 ] || { echo "usage: $0 DATASETS_DIR" >&2; exit 2; }
D=$1
. "$(dirname "$0")/common.sh"
SEEDS=${AG_SEEDS:-3}
for s in $(seq 1 "$SEEDS"); do
    run "seed$s" "$D/lastfm-asia/lastfm_asia.gml" --label-attr label --vertex-attrs none --degree \
        --lap-pe 16 --rw-pe 16 --split "$D/lastfm-asia/split.json" --no-train-metric --seed "$s" --quiet
done
summary lastfm-asia accuracy "" macro_f1
