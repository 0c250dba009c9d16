#!/usr/bin/env bash
# Seed 002 figures (issue 16): hard margin against Gilbert, nu-SVM against svm-train -s 1 -t 0 and
# liblinear-train, Saddle-DSVC with k = 1, 2, 4, 8 tasks. Each figure: REPS runs (default 3), the
# median is taken by the reader from the log. Peers run in the same script, alternately with ours.
# Usage: bench/saddle-bench.sh [OUT_DIR] [REPS]    (needs ../shared/datasets; run from the project root)
# WHAT=hard,nu,dsvc selects the figures; BENCH_JAVA_OPTS=-Dgilbert.cpu.limit=S caps Gilbert's CPU seconds (600).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/bin/sodm" --version >/dev/null  # builds the jars and writes their class-data archive when missing: not in a timed run
out="${1:-/tmp/saddle-bench}"
reps="${2:-3}"
data="$root/../shared/datasets"
mkdir -p "$out"
cp="$root/common/target/test-classes:$(ls "$root"/jobs/target/sodm-jobs-*-all.jar | head -n 1)"
log="$out/log.txt"
t() { /usr/bin/time -f "wall=%e user=%U sys=%S" "$@"; }
[ -f "$out/mushrooms" ] || xz -dc "$data/mushrooms/agaricus.txt.train.xz" > "$out/mushrooms"
[ -f "$out/a9a" ] || xz -dc "$data/a9a/a9a.xz" > "$out/a9a"
[ -f "$out/a9a.t" ] || xz -dc "$data/a9a/a9a.t.xz" > "$out/a9a.t"
what="${WHAT:-hard,nu,dsvc}"
for r in $(seq 1 "$reps"); do
  if [[ $what == *hard* ]]; then
    echo "== rep $r hard mushrooms" >> "$log"
    java -Xmx2g ${BENCH_JAVA_OPTS:-} -cp "$cp" org.sodm.saddle.SaddleBench hard "$out/mushrooms" 1e-3 1 >> "$log" 2>&1
    echo "== rep $r hard synthetic n=10000 d=512 gap=0.1" >> "$log"
    java -Xmx2g ${BENCH_JAVA_OPTS:-} -cp "$cp" org.sodm.saddle.SaddleBench hard synthetic:10000:512:0.1 1e-3 1 >> "$log" 2>&1
  fi
  if [[ $what == *nu* ]]; then
    echo "== rep $r nu a9a" >> "$log"
    java -Xmx2g ${BENCH_JAVA_OPTS:-} -cp "$cp" org.sodm.saddle.SaddleBench nu "$out/a9a" "$out/a9a.t" default 1e-3 1 >> "$log" 2>&1
    nu=$(grep "saddle-nu" "$log" | tail -n 1 | sed 's/.* nu=\([0-9.e-]*\) .*/\1/')
    echo "svm-train -s 1 -t 0 -n $nu" >> "$log"
    { t svm-train -q -s 1 -t 0 -n "$nu" "$out/a9a" "$out/a9a.nu.model"; } >> "$log" 2>&1
    svm-predict "$out/a9a.t" "$out/a9a.nu.model" "$out/a9a.nu.pred" >> "$log" 2>&1
    echo "liblinear-train -c 8" >> "$log"
    { t liblinear-train -q -c 8 "$out/a9a" "$out/a9a.ll.model"; } >> "$log" 2>&1
    liblinear-predict "$out/a9a.t" "$out/a9a.ll.model" "$out/a9a.ll.pred" >> "$log" 2>&1
  fi
  if [[ $what == *dsvc* ]]; then
    for k in 1 2 4 8; do
      echo "== rep $r dsvc a9a k=$k" >> "$log"
      rm -rf "$out/dsvc-$k"
      { t env SODM_LOCAL=1 "$root/bin/sodm" train --kernel linear --loss nu --linear-blocks "$k" -o "$out/dsvc-$k" -i "$out/a9a" \
          2>&1 | grep -E "saddle  |done in" ; } >> "$log" 2>&1
      python3 -c "import json,sys; r=json.load(open('$out/dsvc-$k/train-report.json')); print('report k=$k', {x: r.get(x) for x in ['iterations','objective','allreduceRounds','scalarsSent','converged','relativeGap','hullDistanceLower','hullDistanceUpper']})" >> "$log" 2>&1 || true
    done
  fi
done
echo "done" >> "$log"
