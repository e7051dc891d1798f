#!/bin/sh
# Karate club: only vertices 0 and 33 labelled; accuracy on the other 32 vertices, over seeds.
# usage: apps/experiments/karate.sh DATASETS_DIR
[ $# -eq 1 ] || { echo "usage: $0 DATASETS_DIR" >&2; exit 2; }
D=$1
. "$(dirname "$0")/common.sh"
SEEDS=${AG_SEEDS:-10}
for s in $(seq 1 "$SEEDS"); do
    out=
    [ "$s" = 1 ] && [ -n "${AG_MODEL_DIR:-}" ] && out="-o $AG_MODEL_DIR/karate.safetensors"
    run "seed$s" "$D/karate/karate.gml" --label-attr club --train-nodes 0,33 \
        --preset gat --epochs 100 --seed "$s" --normalize none --quiet $out
done
summary karate accuracy
