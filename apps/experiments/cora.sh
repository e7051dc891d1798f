#!/bin/sh
# Cora: Planetoid split (140/500/1000) of split.json, GAT, test accuracy over AG_SEEDS seeds (default 10).
# usage: apps/experiments/cora.sh DATASETS_DIR
[ $# -eq 1 ] || { echo "usage: $0 DATASETS_DIR" >&2; exit 2; }
D=$1
. "$(dirname "$0")/common.sh"
SEEDS=${AG_SEEDS:-10}
# GAT paper model and optimiser (preset gat), row-normalised bag of words; early stopping on the
# validation loss with patience 100 (chosen over validation accuracy on the validation part).
for s in $(seq 1 "$SEEDS"); do
    out=
    [ "$s" = 1 ] && [ -n "${AG_MODEL_DIR:-}" ] && out="-o $AG_MODEL_DIR/cora.safetensors"
    run "seed$s" "$D/cora/cora.gml" --label-attr subject --node-table "$D/cora/cora.content" \
        --vertex-attrs none --split "$D/cora/split.json" --preset gat --normalize l1 \
        --metric loss --patience 100 --epochs 1000 --no-train-metric --seed "$s" --quiet $out
done
summary cora accuracy
