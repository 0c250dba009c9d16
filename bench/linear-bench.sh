#!/usr/bin/env bash
# Issue 9 figures: sodm's linear solvers (BQO, local mode) vs liblinear-train on the same data,
# alternating runs (PAIRS pairs), medians. Needs liblinear-tools (apt-get install -y liblinear-tools).
#
# usage: bench/linear-bench.sh NAME TRAIN TEST LOSS [PAIRS] [MAXIT]
#   LOSS hinge (vs liblinear -s 3) or squared-hinge (vs -s 1); C = 1, no bias on both sides;
#   sodm: --kernel linear, BQO, 4 blocks, stop at relative duality gap 1e-3 (eq. 27) or MAXIT iterations.
set -euo pipefail
name=$1 train=$2 test=$3 loss=$4 pairs=${5:-3} maxit=${6:-1000}
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/bin/sodm" --version >/dev/null  # builds the jars and writes their class-data archive when missing: not in a timed run
work=${BENCH_DIR:-/tmp/sodm-linear-bench}/$name
mkdir -p "$work"
unpack() { case "$1" in *.xz) xz -dc "$1" ;; *.bz2) bzip2 -dc "$1" ;; *.gz) gzip -dc "$1" ;; *) cat "$1" ;; esac; }
[ -s "$work/train" ] || unpack "$train" > "$work/train"
[ -s "$work/test" ] || unpack "$test" > "$work/test"
s=$([ "$loss" = hinge ] && echo 3 || echo 1)
now() { date +%s.%N; }
res="$work/results-$loss.tsv"
echo -e "pair\tliblinear_s\tliblinear_acc\tliblinear_obj\tsodm_wall_s\tsodm_train_s\tsodm_acc\tsodm_obj\tsodm_iterations" > "$res"
for p in $(seq 1 "$pairs"); do
  t0=$(now); liblinear-train -s "$s" -c 1 -q "$work/train" "$work/ll.model" >/dev/null; t1=$(now)
  lacc=$(liblinear-predict "$work/test" "$work/ll.model" "$work/ll.out" | sed -n 's/Accuracy = \([0-9.]*\)%.*/\1/p')
  lobj=$(python3 "$root/bench/linear-objective.py" "$work/train" "$work/ll.model" 1 "$loss")
  t2=$(now)
  "$root/bin/sodm" train -i "$work/train" --validation "$work/test" -o "$work/sodm" --kernel linear --loss "$loss" -c 1 \
    --linear-eps 1e-3 --max-iterations "$maxit" --overwrite > "$work/sodm.log" 2>&1
  t3=$(now)
  rep="$work/sodm/train-report.json"
  sacc=$(python3 -c "import json;print('%.2f'%(100*json.load(open('$rep'))['validationAccuracy']))")
  sobj=$(python3 -c "import json;print('%.10g'%json.load(open('$rep'))['objective'])")
  sit=$(python3 -c "import json;print(json.load(open('$rep'))['iterations'])")
  ssec=$(python3 -c "import json;print('%.2f'%json.load(open('$rep'))['seconds'])")
  printf "%d\t%.2f\t%s\t%s\t%.2f\t%s\t%s\t%s\t%s\n" "$p" "$(echo "$t1 - $t0" | bc)" "$lacc" "$lobj" "$(echo "$t3 - $t2" | bc)" "$ssec" "$sacc" "$sobj" "$sit" >> "$res"
  tail -n 1 "$res"
done
python3 - "$res" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
print("medians over %d pairs:" % len(rows), ", ".join("%s %s" % (k, statistics.median(float(r[k]) for r in rows))
      for k in rows[0] if k != "pair"))
PY
