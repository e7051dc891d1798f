#!/bin/sh
# LastFM Asia: a user's country (18 classes) from the friendship graph alone (the dataset has no
# node features), on split.json (60/20/20); test accuracy and macro-F1 over AG_SEEDS seeds
# (default 3). Not in the issues' table: the structure-only command of docs/cli.md, measured,
# then Correct and Smooth (--smooth 0.7 --correct 0.95: of 16 pairs of weights, the best mean
# validation accuracy over seeds 1-5; docs/results.md). Each run's log keeps the model's own test
# figure ("before smoothing"); LASTFM_SMOOTH='' gives the model alone.
# usage: apps/experiments/lastfm.sh DATASETS_DIR
[ $# -eq 1 ] || { echo "usage: $0 DATASETS_DIR" >&2; exit 2; }
D=$1
. "$(dirname "$0")/common.sh"
SEEDS=${AG_SEEDS:-3}
SMOOTH=${LASTFM_SMOOTH---smooth 0.7 --correct 0.95}
for s in $(seq 1 "$SEEDS"); do
    run "seed$s" "$D/lastfm-asia/lastfm_asia.gml" --label-attr label --vertex-attrs none --degree \
        --lap-pe 16 --rw-pe 16 --split "$D/lastfm-asia/split.json" --no-train-metric --seed "$s" $SMOOTH
done
summary lastfm-asia accuracy "" macro_f1
