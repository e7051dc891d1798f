#!/bin/sh
# MUTAG: the 10 folds of folds.csv (test = fold K, train = the other nine); mean test accuracy.
# usage: apps/experiments/mutag.sh DATASETS_DIR
# Environment (besides common.sh's):
#   MUTAG_ARGS      the model and training options (default: the configuration of docs/results.md)
#   MUTAG_EPOCHS    epochs per fold (default 100)
#   MUTAG_PROTOCOL  test (default): train on the nine folds, test on fold K, mean test accuracy;
#                   inner: how the configuration was chosen, without any test graph: fold K is left
#                   out entirely, every ninth remaining graph (in file order) is an inner validation
#                   graph and the rest train; prints the mean over the folds of the inner-validation
#                   accuracy after the last epoch (val_accuracy_last) and over the last 10 epochs
#                   (val_accuracy_last10)
[ $# -eq 1 ] || { echo "usage: $0 DATASETS_DIR" >&2; exit 2; }
D=$1
. "$(dirname "$0")/common.sh"
# The folds have no validation part, so training runs a fixed number of epochs (see docs/results.md
# for how the configuration and the epoch count were chosen on inner validation graphs).
MODEL=${MUTAG_ARGS:---preset transformer --degree --rw-pe 8 --edge-mode bias --readout vnode --schedule cosine}
EPOCHS=${MUTAG_EPOCHS:-100}
DATA="--labels $D/mutag/labels.csv --target label --vertex-attrs element --edge-attrs bond_type"
if [ "${MUTAG_PROTOCOL:-test}" = inner ]; then
    for k in 0 1 2 3 4 5 6 7 8 9; do
        python3 - "$D/mutag/folds.csv" "$k" "$LOGDIR/split$k.csv" <<'PY'
import csv, sys
rows, k, out = list(csv.DictReader(open(sys.argv[1]))), sys.argv[2], sys.argv[3]
with open(out, "w") as f:
    f.write("file,part\n")
    t = 0
    for r in rows:
        if r["fold"] == k:
            f.write(r["file"] + ",\n")  # an empty part: the graph is not used at all
            continue
        f.write(r["file"] + "," + ("val" if t % 9 == 8 else "train") + "\n")
        t += 1
PY
        run "inner$k" $DATA --split "$LOGDIR/split$k.csv" --split-column part $MODEL --epochs "$EPOCHS" \
            --patience 0 --no-train-metric --metric accuracy --quiet --seed 1
    done
    python3 - "$LOGDIR" "$EPOCHS" <<'PY'
import csv, json, sys
logdir, epochs = sys.argv[1], int(sys.argv[2])
curves = [[float(r["val_metric"]) for r in csv.DictReader(open(f"{logdir}/inner{k}.csv"))] for k in range(10)]
last = [c[-1] for c in curves]
last10 = [sum(c[-10:]) / len(c[-10:]) for c in curves]
print(json.dumps({"dataset": "mutag", "metric": "inner_val_accuracy", "val_accuracy_last": round(sum(last) / 10, 4),
                  "val_accuracy_last10": round(sum(last10) / 10, 4), "epochs": epochs, "runs": 10}))
PY
    exit 0
fi
for k in 0 1 2 3 4 5 6 7 8 9; do
    out=
    [ "$k" = 0 ] && [ -n "${AG_MODEL_DIR:-}" ] && out="-o $AG_MODEL_DIR/mutag.safetensors"
    run "fold$k" $DATA --folds $D/mutag/folds.csv --fold "$k" $MODEL --epochs "$EPOCHS" --quiet --seed 1 $out
done
summary mutag accuracy
