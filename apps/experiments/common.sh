# Shared helpers of the experiment scripts (sourced, not run).
# Environment:
#   AG_BUILD_DIR  build directory holding apps/attn-graph (default: <repo>/build)
#   AG_THREADS    --threads for every run (default 1)
#   AG_LOG_DIR    where each run's stderr, per-epoch CSV (--log) and JSON test line go
#                 (default: a fresh temp dir)
#   AG_MODEL_DIR  if set, the first run's model is saved there (see graphs/models/README.md)
#   AG_SEEDS      number of seeds where the protocol uses seeds (each script has its default)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
AG=${AG_BUILD_DIR:-$repo/build}/apps/attn-graph
[ -x "$AG" ] || { echo "$0: $AG not found: build first (cmake -S . -B build && cmake --build build)" >&2; exit 1; }
THREADS=${AG_THREADS:-1}
LOGDIR=${AG_LOG_DIR:-$(mktemp -d)}
mkdir -p "$LOGDIR"
# Spinning OpenMP threads starve each other on a loaded machine.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
RESULTS="$LOGDIR/results.jsonl"
: > "$RESULTS"

# run NAME ARGS...: one training run; its JSON test line is appended to $RESULTS (tagged with NAME).
run() {
    name=$1; shift
    t0=$(date +%s)
    line=$("$AG" train "$@" --threads "$THREADS" --log "$LOGDIR/$name.csv" --json 2> "$LOGDIR/$name.log")
    t1=$(date +%s)
    # One write() per line on an O_APPEND file, so that runs ending together (esol.sh runs several
    # at a time) cannot interleave their lines; tee -a split a line from its newline.
    echo "$line" | python3 -c '
import json, os, sys
d = json.loads(sys.stdin.read()); d["run"] = sys.argv[1]; d["seconds"] = int(sys.argv[2])
out = (json.dumps(d) + "\n").encode()
fd = os.open(sys.argv[3], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
os.write(fd, out); os.close(fd)
sys.stderr.write(out.decode())' "$name" $((t1 - t0)) "$RESULTS"
}

# summary DATASET METRIC [FILTER [EXTRA]]: mean and sample std of METRIC over the runs whose name
# starts with FILTER; EXTRA names a second metric added as EXTRA_mean and EXTRA_std.
summary() {
    python3 - "$RESULTS" "$1" "$2" "${3:-}" "${4:-}" <<'PY'
import json, math, sys
path, ds, metric, prefix, extra = sys.argv[1:6]
def stats(m):
    vals = []
    for l in open(path):
        d = json.loads(l)
        if d["run"].startswith(prefix) and d.get(m) is not None:
            vals.append(float(d[m]))
    n = len(vals)
    mean = sum(vals) / n
    std = math.sqrt(sum((v - mean) ** 2 for v in vals) / (n - 1)) if n > 1 else 0.0
    return round(mean, 4), round(std, 4), n
mean, std, n = stats(metric)
out = {"dataset": ds, "metric": metric, "mean": mean, "std": std, "runs": n}
if extra:
    out[extra + "_mean"], out[extra + "_std"], _ = stats(extra)
print(json.dumps(out))
PY
}

# task_summary DATASET METRIC [FILTER]: one JSON line per task of a model of several tasks (the
# "tasks" array of train's test line): METRIC's mean and sample std over the runs whose name starts
# with FILTER, over the runs where the task has it (a task with one class in a test part has none).
task_summary() {
    python3 - "$RESULTS" "$1" "$2" "${3:-}" <<'PY'
import json, math, sys
path, ds, metric, prefix = sys.argv[1:5]
vals = {}
for l in open(path):
    d = json.loads(l)
    if not d["run"].startswith(prefix):
        continue
    for t in d.get("tasks", []):
        if t.get(metric) is not None:
            vals.setdefault(t["name"], []).append(float(t[metric]))
for name, v in vals.items():
    n = len(v)
    mean = sum(v) / n
    std = math.sqrt(sum((x - mean) ** 2 for x in v) / (n - 1)) if n > 1 else 0.0
    print(json.dumps({"dataset": ds, "task": name, "metric": metric, "mean": round(mean, 4),
                      "std": round(std, 4), "runs": n}))
PY
}
