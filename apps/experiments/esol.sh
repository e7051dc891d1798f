#!/bin/sh
# ESOL: regression of logS; test RMSE on random_split of split.csv over AG_SEEDS model seeds
# (default 3), then one run on scaffold_split.
# usage: apps/experiments/esol.sh DATASETS_DIR
[ $# -eq 1 ] || { echo "usage: $0 DATASETS_DIR" >&2; exit 2; }
D=$1
. "$(dirname "$0")/common.sh"
SEEDS=${AG_SEEDS:-3}
# Chosen on the validation RMSE of the random split (see docs/results.md).
ARGS="--labels $D/esol/labels.csv --target logS --split $D/esol/split.csv --normalize standard
      --rw-pe 8 --edge-mode bias --readout sum --epochs 300 --patience 50 --no-train-metric --quiet"
for s in $(seq 1 "$SEEDS"); do
    out=
    [ "$s" = 1 ] && [ -n "${AG_MODEL_DIR:-}" ] && out="-o $AG_MODEL_DIR/esol.safetensors"
    run "random-seed$s" $ARGS --split-column random_split --seed "$s" $out
done
run "scaffold-seed1" $ARGS --split-column scaffold_split --seed 1
summary esol-scaffold rmse scaffold >&2
summary esol rmse random
