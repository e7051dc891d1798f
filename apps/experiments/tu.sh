#!/bin/sh
# Any dataset in the TU format (TUDataset: NAME_A.txt, NAME_graph_indicator.txt,
# NAME_graph_labels.txt, ...; PROTEINS, NCI1, IMDB-BINARY, ... as downloaded), by stratified
# k-fold cross-validation made by the program (--kfold): mean test accuracy over the folds.
# usage: apps/experiments/tu.sh TU_DIR        (the folder holding NAME_A.txt, or the prefix DIR/NAME)
# Environment (besides common.sh's):
#   TU_ARGS   the model and training options (default: MUTAG's configuration of docs/results.md;
#             add --degree or --rw-pe K for datasets without node labels such as IMDB-BINARY)
#   TU_FOLDS  number of folds (default 10)
#   TU_SEED   the seed of the folds and of every run (default 1)
[ $# -eq 1 ] || { echo "usage: $0 TU_DIR" >&2; exit 2; }
DIR=$1
. "$(dirname "$0")/common.sh"
MODEL=${TU_ARGS:---preset transformer --degree --rw-pe 8 --edge-mode bias --readout vnode --schedule cosine --epochs 100}
FOLDS=${TU_FOLDS:-10}
SEED=${TU_SEED:-1}
k=0
while [ "$k" -lt "$FOLDS" ]; do
    run "fold$k" --tu "$DIR" --kfold "$FOLDS" --fold "$k" $MODEL --quiet --seed "$SEED"
    k=$((k + 1))
done
# the dataset's name: NAME of the folder's NAME_A.txt, or of the prefix DIR/NAME
if [ -d "$DIR" ]; then
    NAME=$(basename "$(ls "$DIR"/*_A.txt | head -n 1)" _A.txt)
else
    NAME=$(basename "$DIR")
fi
summary "$NAME" accuracy
