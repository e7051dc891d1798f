#!/bin/sh
# Twitch-EN: mature-content node classification on split.json (60/20/20); test accuracy and
# ROC-AUC over AG_SEEDS seeds (default 3).
# usage: apps/experiments/twitch.sh DATASETS_DIR
[ $# -eq 1 ] || { echo "usage: $0 DATASETS_DIR" >&2; exit 2; }
D=$1
. "$(dirname "$0")/common.sh"
SEEDS=${AG_SEEDS:-3}
for s in $(seq 1 "$SEEDS"); do
    run "seed$s" "$D/twitch-en/twitch_en.gml" --label-attr label \
        --node-table "$D/twitch-en/features.txt" --vertex-attrs none --split "$D/twitch-en/split.json" \
        --preset gat --epochs 200 --no-train-metric --seed "$s" --quiet
done
summary twitch-en accuracy "" roc_auc
