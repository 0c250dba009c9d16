#!/usr/bin/env bash
# Issue 14 figures: whole `sodm train --kernel linear` (local mode, JVM and every job included) against
# `liblinear-train` alone, same data, C = 1, no bias, PAIRS alternated pairs (odd pairs sodm first, even pairs
# liblinear first), wall and CPU (user + sys) seconds of each command, medians and ratios. The primal of
# sodm's model against LIBLINEAR's at -e 1e-4 (the reference optimum) and at its default eps. Then test
# accuracy of both models (predict not timed here). Needs liblinear-tools (apt-get install -y liblinear-tools).
#
# usage: bench/linear-speed.sh NAME TRAIN TEST LOSS [PAIRS] [-- extra sodm train options]
#   LOSS hinge (liblinear -s 3), squared-hinge (-s 1), squared-hinge-primal (-s 2: sodm's --linear-solver tron), logistic
#   (-s 0), l1-logistic (-s 6: sodm's --loss logistic --penalty l1) or l1-squared-hinge (-s 5: --loss squared-hinge
#   --penalty l1).  Writes $BENCH_DIR/NAME/speed-LOSS.tsv.
set -euo pipefail
name=$1 train=$2 test=$3 loss=$4 pairs=${5:-3}
shift $(( $# >= 5 ? 5 : 4 )); [ "${1:-}" = -- ] && shift
extra=("$@")
. "$(dirname "$0")/linear-common.sh"
[ -s "$work/test" ] || unpack "$test" > "$work/test"
sodm_loss=(--loss "$loss")
obj_loss=$loss
case "$loss" in hinge) s=3 ;; squared-hinge) s=1 ;; logistic) s=0 ;; l1-logistic) s=6; sodm_loss=(--loss logistic --penalty l1) ;;
  squared-hinge-primal) s=2; obj_loss=squared-hinge; sodm_loss=(--loss squared-hinge --linear-solver tron) ;;
  l1-squared-hinge) s=5; sodm_loss=(--loss squared-hinge --penalty l1) ;;
  *) echo "unknown LOSS $loss" >&2; exit 2 ;; esac
liblinear-train -s "$s" -c 1 -e 1e-4 -q "$work/train" "$work/ll-ref.model" >/dev/null
ref=$(python3 "$root/bench/linear-objective.py" "$work/train" "$work/ll-ref.model" 1 "$obj_loss")
"$root/bin/sodm" --version > /dev/null
res="$work/speed-$loss.tsv"
echo -e "pair\tfirst\tsodm_wall\tsodm_cpu\tll_wall\tll_cpu" > "$res"
run_sodm() { tm "$work/sodm.log" "$root/bin/sodm" train -i "$work/train" -o "$work/sodm" --kernel linear "${sodm_loss[@]}" -c 1 \
  --overwrite "${extra[@]}"; }
run_ll() { tm /dev/null liblinear-train -s "$s" -c 1 -q "$work/train" "$work/ll.model"; }
for p in $(seq 1 "$pairs"); do
  if [ $((p % 2)) = 1 ]; then a=$(run_sodm); b=$(run_ll); first=sodm; else b=$(run_ll); a=$(run_sodm); first=liblinear; fi
  printf "%d\t%s\t%s\t%s\n" "$p" "$first" "$a" "$b" | tee -a "$res"
done
# a logistic model is a one-task model with probabilities: its report has the task's objective and iterations
sobj=$(python3 -c "import json;d=json.load(open('$work/sodm/train-report.json'));print('%.10g'%d.get('objective',sum(t['objective'] for t in d.get('tasks',[]))))")
its=$(python3 -c "import json;d=json.load(open('$work/sodm/train-report.json'));print(d.get('iterations',sum(t['iterations'] for t in d.get('tasks',[]))))")
lobj=$(python3 "$root/bench/linear-objective.py" "$work/train" "$work/ll.model" 1 "$obj_loss")
"$root/bin/sodm" predict -m "$work/sodm" -i "$work/test" -o "$work/pred" --overwrite > "$work/predict.log" 2>&1
sacc=$(sed -n "s/^accuracy *\\([0-9.]*\\)%.*/\\1/p" "$work/predict.log" | head -1)
lacc=$(liblinear-predict "$work/test" "$work/ll.model" "$work/ll.out" | sed -n 's/Accuracy = \([0-9.]*\)%.*/\1/p')
python3 - "$res" "$ref" "$sobj" "$lobj" "$its" "$sacc" "$lacc" "$name" "$loss" <<'PY'
import csv, statistics, sys
res, ref, sobj, lobj, its, sacc, lacc, name, loss = sys.argv[1:]
rows = list(csv.DictReader(open(res), delimiter="\t"))
med = {k: statistics.median(float(r[k]) for r in rows) for k in ("sodm_wall", "sodm_cpu", "ll_wall", "ll_cpu")}
ref, sobj, lobj = float(ref), float(sobj), float(lobj)
# the timer's resolution is 0.01 s: a peer time below it counts as 0.01 s, and its ratios are lower bounds (">=")
tick = 0.01
floor = any(float(r["ll_wall"]) < tick for r in rows) or med["ll_cpu"] < tick
ge = ">=" if floor else ""
pair = [float(r["sodm_wall"]) / max(float(r["ll_wall"]), tick) for r in rows]
print(f"{name} {loss}: {len(rows)} alternated pairs, medians: sodm {med['sodm_wall']:.2f} s wall / {med['sodm_cpu']:.2f} s CPU, "
      f"liblinear {med['ll_wall']:.2f} s / {med['ll_cpu']:.2f} s; ratio wall {ge}{med['sodm_wall'] / max(med['ll_wall'], tick):.1f}x, "
      f"CPU {ge}{med['sodm_cpu'] / max(med['ll_cpu'], tick):.1f}x" + (" (liblinear below the timer's 0.01 s: lower bounds)" if floor else ""))
print(f"  per-pair wall ratios {', '.join(f'{x:.2f}' for x in pair)}: median {ge}{statistics.median(pair):.2f}x")
print(f"  primal: sodm {sobj:.6g} ({its} iterations), liblinear default eps {lobj:.6g}, liblinear -e 1e-4 {ref:.6g}; "
      f"relative to the -e 1e-4 optimum: sodm {(sobj - ref) / ref:.2e}, liblinear default {(lobj - ref) / ref:.2e}")
print(f"  test accuracy: sodm {sacc}%, liblinear {lacc}%")
PY
