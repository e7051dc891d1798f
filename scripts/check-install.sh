#!/usr/bin/env bash
# Installs attn-graph into a temporary prefix and builds every example of docs/examples (and the
# quickstart of the umbrella header) outside the source tree twice: once with find_package(attngraph)
# from C-only CMake projects, once with pkg-config. Runs each and checks its output. Also links one
# example against the static library with `pkg-config --static`.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$(pwd)
build=${AG_INSTALL_BUILD_DIR:-build-install}
jobs=$(nproc)
tmp=$(mktemp -d /tmp/attngraph-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

echo "== configure, build and install into $prefix"
# An existing build directory (scripts/test.sh passes its own) is reused as it is configured.
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DAG_BUILD_TESTS=OFF >/dev/null
fi
cmake --build "$build" -j"$jobs" >/dev/null
cmake --install "$build" --prefix "$prefix" >/dev/null
pcdir=$(dirname "$(find "$prefix" -name attngraph.pc | head -1)")
libdir=$(dirname "$pcdir")
test -f "$libdir/libattngraph.a" && test -e "$libdir/libattngraph.so" && test -f "$prefix/include/attngraph/api.h"
test -f "$libdir/cmake/attngraph/attngraph-config.cmake"
# The shared library exports the public API alone: every symbol it defines is declared in an
# installed header (no internal ag_i_, JSON or CSV helper a program could come to depend on).
nm -D --defined-only "$libdir/libattngraph.so" | awk '{print $3}' > "$tmp/exported.txt"
test "$(wc -l < "$tmp/exported.txt")" -gt 200
while read -r sym; do
  grep -qw -- "$sym" "$prefix"/include/attngraph/*.h || { echo "check-install: $sym is exported but in no installed header"; exit 1; }
done < "$tmp/exported.txt"

# The quickstart is the code between the marks of the installed umbrella header.
mkdir -p "$tmp/examples"
cp -r docs/examples/* "$tmp/examples/"
sed -n '/<quickstart>/,/<\/quickstart>/p' "$prefix/include/attngraph/attngraph.h" | sed '1d;$d' \
  > "$tmp/examples/quickstart/quickstart.c"
test -s "$tmp/examples/quickstart/quickstart.c"
examples="train_model classify_molecule attention_bonds label_social quickstart"

check() { # check NAME FILE PATTERN...: every extended regex must match a line of FILE
  local name=$1 file=$2; shift 2
  for pat in "$@"; do
    if ! grep -Eq -- "$pat" "$file"; then
      echo "check-install: $name: output lacks /$pat/:"; cat "$file"; exit 1
    fi
  done
}

run_all() { # run_all KIND BINDIR: runs every example built in BINDIR/<name>/<name>
  local kind=$1 bin=$2 out=$tmp/out-$1
  mkdir -p "$out"
  "$bin/train_model/train_model" "$out/model.safetensors" > "$out/train.txt"
  check "$kind train_model" "$out/train.txt" '^trained graph-classification: [0-9]+ epochs' \
    '^accuracy on all 16 molecules: (0\.[5-9][0-9]*|1\.000)$' "^saved "
  test -s "$out/model.safetensors"
  "$bin/classify_molecule/classify_molecule" "$out/model.safetensors" > "$out/classify.txt"
  check "$kind classify_molecule" "$out/classify.txt" '^class [01]$' '^p\(0\) = [01]\.[0-9]{4}$' '^p\(1\) = [01]\.[0-9]{4}$'
  "$bin/attention_bonds/attention_bonds" "$out/model.safetensors" > "$out/attention.txt"
  check "$kind attention_bonds" "$out/attention.txt" '^attention of layer 1, 2 heads$' \
    '^bond 0 C[01]-C[01] head 0: [0-9]<-[0-9] [01]\.[0-9]{4}  [0-9]<-[0-9] [01]\.[0-9]{4}$' '^bond 3 .* head 1: ' '^self 3: [01]\.[0-9]{4}$'
  test "$(grep -c '^bond ' "$out/attention.txt")" = 8
  "$bin/label_social/label_social" "$src/graphs/social/karate.gml" "$out/karate-labelled.gml" \
    "$out/karate.safetensors" > "$out/social.txt"
  check "$kind label_social" "$out/social.txt" '^vertex 0: 0, vertex 33: 1$' '^class sizes: [0-9]+ [0-9]+$' '^wrote ' \
    "^agreement with the 'club' attribute: (0\.[89][0-9]{2}|1\.000)$"
  test "$(grep -c 'predicted [01]' "$out/karate-labelled.gml")" = 34
  "$bin/quickstart/quickstart" "$out/model.safetensors" "$src/graphs/molecules/caffeine.gml" > "$out/quick.txt"
  check "$kind quickstart" "$out/quick.txt" '^0: [01]\.[0-9]{4}$' '^1: [01]\.[0-9]{4}$'
  # the node branch of the quickstart, with the social model: the same labels label_social wrote
  "$bin/quickstart/quickstart" "$out/karate.safetensors" "$src/graphs/social/karate.gml" > "$out/quick-nodes.txt"
  check "$kind quickstart (nodes)" "$out/quick-nodes.txt" '^vertex 0: 0$' '^vertex 33: 1$'
  test "$(grep -c '^vertex ' "$out/quick-nodes.txt")" = 34
  grep -o 'predicted [01]' "$out/karate-labelled.gml" | awk '{print $2}' > "$out/written.txt"
  sed 's/^vertex [0-9]*: //' "$out/quick-nodes.txt" | cmp - "$out/written.txt"
  # its node-regression branch: a model of a numeric vertex attribute, trained by the installed program
  sed 's/ club \([01]\)/ club \1 y \1.5/' "$src/graphs/social/karate.gml" > "$out/karate-y.gml"
  "$prefix/bin/attn-graph" train "$out/karate-y.gml" --label-attr y --epochs 3 --threads 1 -q \
    -o "$out/karate-y.safetensors" > /dev/null 2> "$out/train-y.err" || { cat "$out/train-y.err"; exit 1; }
  "$bin/quickstart/quickstart" "$out/karate-y.safetensors" "$out/karate-y.gml" > "$out/quick-values.txt"
  check "$kind quickstart (node values)" "$out/quick-values.txt" '^vertex 0: y -?[0-9]+\.[0-9]{4}$' \
    '^vertex 33: y -?[0-9]+\.[0-9]{4}$'
  test "$(grep -c '^vertex ' "$out/quick-values.txt")" = 34
  echo "   $kind: all examples ran and printed what they should"
}

echo "== examples with find_package(attngraph) (C-only projects)"
for ex in $examples; do
  cmake -S "$tmp/examples/$ex" -B "$tmp/cmake/$ex" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
  cmake --build "$tmp/cmake/$ex" >/dev/null
done
# igraph's headers and OpenMP come through the imported target, not from the example's CMakeLists.
grep -q -- '-fopenmp' "$tmp/cmake/quickstart/compile_commands.json"
grep -q 'igraph' "$tmp/cmake/quickstart/compile_commands.json"
run_all cmake "$tmp/cmake"

echo "== examples with pkg-config"
export PKG_CONFIG_PATH=$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
for ex in $examples; do
  mkdir -p "$tmp/pc/$ex"
  make -s -C "$tmp/examples/$ex" >/dev/null
  mv "$tmp/examples/$ex/$ex" "$tmp/pc/$ex/$ex"
done
LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} run_all pkg-config "$tmp/pc"

echo "== static library with pkg-config --static"
mkdir -p "$tmp/static/classify_molecule" "$tmp/static/train_model"
for ex in train_model classify_molecule; do
  # -l:libattngraph.a picks the archive; the rest of the line is what --static adds (BLAS, libm).
  cc -std=c11 -O2 $(pkg-config --cflags attngraph) -o "$tmp/static/$ex/$ex" "$tmp/examples/$ex/$ex.c" \
    $(pkg-config --static --libs attngraph | sed 's/-lattngraph\b/-l:libattngraph.a/')
  if ldd "$tmp/static/$ex/$ex" | grep -q libattngraph; then
    echo "check-install: $ex: linked the shared library instead of the static one"; exit 1
  fi
done
"$tmp/static/train_model/train_model" "$tmp/static/model.safetensors" > "$tmp/static/train.txt"
"$tmp/static/classify_molecule/classify_molecule" "$tmp/static/model.safetensors" > "$tmp/static/classify.txt"
check "static classify_molecule" "$tmp/static/classify.txt" '^class [01]$'
# The same program and seed give the same model whichever library and build system.
cmp "$tmp/static/classify.txt" "$tmp/out-cmake/classify.txt"
cmp "$tmp/out-pkg-config/classify.txt" "$tmp/out-cmake/classify.txt"
echo "== install check passed"
