#!/bin/sh
# MUTAG: the 10 folds of folds.csv (test = fold K, train = the other nine); mean test accuracy.
# usage: apps/experiments/mutag.sh DATASETS_DIR
[ $# -eq 1 ] || { echo "usage: $0 DATASETS_DIR" >&2; exit 2; }
D=$1
. "$(dirname "$0")/common.sh"
# The folds have no validation part, so training runs a fixed number of epochs (see docs/results.md
# for how it was chosen).
ARGS="--labels $D/mutag/labels.csv --target label --folds $D/mutag/folds.csv
      --vertex-attrs element --edge-attrs bond_type --degree --rw-pe 8 --edge-mode bias
      --readout ${MUTAG_READOUT:-sum} --epochs ${MUTAG_EPOCHS:-89} --quiet"
for k in 0 1 2 3 4 5 6 7 8 9; do
    out=
    [ "$k" = 0 ] && [ -n "${AG_MODEL_DIR:-}" ] && out="-o $AG_MODEL_DIR/mutag.safetensors"
    run "fold$k" $ARGS --fold "$k" --seed 1 $out
done
summary mutag accuracy
