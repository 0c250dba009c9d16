#!/usr/bin/env bash
# A linear grid search of C (grid.py's -t 0 -log2g null): whole `sodm grid --kernel linear` (local mode, JVM and every job
# included) with its warm-started C path (the default) and with --no-warm-start (one `sodm cv` per C), against LIBLINEAR's
# way: `liblinear-train -s 3|1|0 -v FOLDS -c C` once per C, and, as a reference only, `liblinear-train -s 2|0 -C -v FOLDS`
# (LIBLINEAR's own warm-started C search, which exists for -s 0 and -s 2 only: for the SVM losses the primal solver of the
# squared hinge, for logistic the same problem as sodm's; its own choice of the C values). PAIRS alternated rounds (odd rounds sodm first, even rounds liblinear first); wall and CPU (user + sys) seconds
# of each command; per-round ratios to the liblinear loop and their medians; each side's cross-validation accuracy per C.
# Needs liblinear-tools (apt-get install -y liblinear-tools).
#
# usage: bench/linear-grid.sh NAME TRAIN LOSS [PAIRS] [LOG2C] [FOLDS]
#   LOSS hinge (liblinear -s 3), squared-hinge (-s 1) or logistic (-s 0); LOG2C begin,end,step (default -5,5,2); FOLDS default 5.
#   Writes $BENCH_DIR/NAME/grid-LOSS.tsv and the last round's accuracies to grid-LOSS-accuracy.tsv.
set -euo pipefail
name=$1 train=$2 loss=$3 pairs=${4:-3} log2c=${5:--5,5,2} folds=${6:-5}
. "$(dirname "$0")/linear-common.sh"
case "$loss" in hinge) s=3 sc=2 ;; squared-hinge) s=1 sc=2 ;; logistic) s=0 sc=0 ;; *) echo "unknown LOSS $loss" >&2; exit 2 ;; esac
IFS=, read -r b e st <<< "$log2c"
cs=$(python3 -c "import sys; b,e,s=map(float,sys.argv[1:]); n=int(round((e-b)/s)); print(' '.join(repr(2.0**(b+i*s)) for i in range(n+1)))" "$b" "$e" "$st")
"$root/bin/sodm" --version > /dev/null
res="$work/grid-$loss.tsv"
echo -e "round\tfirst\twarm_wall\twarm_cpu\tcold_wall\tcold_cpu\tloop_wall\tloop_cpu\tllC_wall\tllC_cpu" > "$res"
run_warm() { tm "$work/warm.log" "$root/bin/sodm" grid -i "$work/train" -o "$work/warm" --kernel linear --loss "$loss" \
  --log2c "$log2c" --folds "$folds" --overwrite; }
run_cold() { tm "$work/cold.log" "$root/bin/sodm" grid -i "$work/train" -o "$work/cold" --kernel linear --loss "$loss" \
  --log2c "$log2c" --folds "$folds" --overwrite --no-warm-start; }
# the liblinear loop as a script, so that /usr/bin/time times it whole
printf 'for c in %s; do echo "C $c"; liblinear-train -q -s %s -v %s -c "$c" %q; done\n' "$cs" "$s" "$folds" "$work/train" > "$work/loop.sh"
run_loop() { tm "$work/loop.log" bash "$work/loop.sh"; }
run_llc() { tm "$work/llC.log" liblinear-train -s "$sc" -C -v "$folds" "$work/train"; }
for p in $(seq 1 "$pairs"); do
  if [ $((p % 2)) = 1 ]; then w=$(run_warm); c=$(run_cold); l=$(run_loop); k=$(run_llc); first=sodm
  else l=$(run_loop); k=$(run_llc); w=$(run_warm); c=$(run_cold); first=liblinear; fi
  printf "%d\t%s\t%s\t%s\t%s\t%s\n" "$p" "$first" "$w" "$c" "$l" "$k" | tee -a "$res"
done
python3 - "$res" "$work" "$name" "$loss" "$folds" "$sc" <<'PY'
import csv, re, statistics, sys
res, work, name, loss, folds, sc = sys.argv[1:]
rows = list(csv.DictReader(open(res), delimiter="\t"))
med = {k: statistics.median(float(r[k]) for r in rows) for k in rows[0] if k not in ("round", "first")}
ratio = lambda a: statistics.median(float(r[a + "_wall"]) / float(r["loop_wall"]) for r in rows)
print(f"{name} {loss}, {folds} folds, {len(rows)} alternated rounds, median wall / CPU s: sodm grid (warm path) "
      f"{med['warm_wall']:.2f} / {med['warm_cpu']:.2f}, --no-warm-start {med['cold_wall']:.2f} / {med['cold_cpu']:.2f}, "
      f"liblinear-train -v per C {med['loop_wall']:.2f} / {med['loop_cpu']:.2f}, liblinear-train -s {sc} -C {med['llC_wall']:.2f} / "
      f"{med['llC_cpu']:.2f}")
print(f"  per-round wall ratios to the liblinear loop, medians: warm {ratio('warm'):.2f}x, cold {ratio('cold'):.2f}x, "
      f"-s {sc} -C {ratio('llC'):.2f}x")
acc = {}
for side in ("warm", "cold"):
    for line in open(f"{work}/{side}/grid.csv").read().splitlines()[1:]:
        f = line.split(",")
        acc.setdefault(float(f[2]), {})[side] = 100 * float(f[4])
c = None
for line in open(f"{work}/loop.log"):
    if line.startswith("C "):
        c = float(line.split()[1])
    m = re.search(r"Cross Validation Accuracy = ([0-9.]+)%", line)
    if m:
        acc.setdefault(c, {})["liblinear"] = float(m.group(1))
with open(f"{work}/grid-{loss}-accuracy.tsv", "w") as out:
    out.write("C\twarm\tcold\tliblinear\n")
    for c in sorted(acc):
        a = acc[c]
        out.write(f"{c}\t{a.get('warm', float('nan')):.4f}\t{a.get('cold', float('nan')):.4f}\t{a.get('liblinear', float('nan')):.4f}\n")
        print(f"  C {c:<10g} cv accuracy: warm {a.get('warm', float('nan')):.4f}%  cold {a.get('cold', float('nan')):.4f}%  "
              f"liblinear {a.get('liblinear', float('nan')):.4f}%")
m = re.search(r"Best C = ([0-9.e+-]+)\s+CV accuracy = ([0-9.]+)%", open(f"{work}/llC.log").read())
if m:
    print(f"  liblinear-train -s {sc} -C: best C {m.group(1)}, {m.group(2)}%")
PY
