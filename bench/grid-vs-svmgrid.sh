#!/usr/bin/env bash
# sodm grid against LIBSVM's grid.py (svm-grid from libsvm-tools) on one data set, grid.py's default
# 110-cell grid (log2c -5,15,2 x log2g 3,-15,-2), 5 folds, data scaled to [0,1] (svm-scale -l 0 -u 1 for
# svm-grid; sodm's --scale 0,1 scales the same way from the training data's min and max).
# svm-grid runs with W local workers (its nr_local_worker, default 1, patched in a copy); sodm in local mode.
# Prints wall and CPU seconds of each, their ratios, and the chosen pairs.
# Usage: bench/grid-vs-svmgrid.sh DATA [WORKERS=2] [OUTDIR=/tmp/grid-bench]
set -euo pipefail
data=$1
workers=${2:-2}
out=${3:-/tmp/grid-bench}
here=$(cd "$(dirname "$0")/.." && pwd)
sodm=${SODM:-$here/bin/sodm}  # SODM=/path/to/bin/sodm: a frozen copy, so that a rebuild during the run cannot break it
"$sodm" --version >/dev/null  # builds the jars and writes their class-data archive when missing: not in a timed run
command -v svm-grid >/dev/null || { echo "svm-grid not installed (apt-get install -y libsvm-tools)"; exit 2; }
[ "${SKIP_SODM:-0}" = 1 ] || rm -rf "$out"; mkdir -p "$out"  # SKIP_SODM=1: keep an earlier sodm run in OUT, rerun svm-grid only
name=$(basename "$data")
svm-scale -l 0 -u 1 "$data" > "$out/$name.scaled"
sed "s/^nr_local_worker = .*/nr_local_worker = $workers/" "$(command -v svm-grid)" > "$out/grid.py"
if [ "${SKIP_SODM:-0}" != 1 ]; then
/usr/bin/time -f "%e %U %S" -o "$out/sodm.time" "$sodm" grid -i "$data" -o "$out/sodm" --scale 0,1 --folds 5 \
  --log2c -5,15,2 --log2g 3,-15,-2 > "$out/sodm.log" 2>&1
fi
(cd "$out" && /usr/bin/time -f "%e %U %S" -o "$out/svmgrid.time" python3 "$out/grid.py" -log2c -5,15,2 -log2g 3,-15,-2 -v 5 \
  -svmtrain "$(command -v svm-train)" -gnuplot null -out "$out/svmgrid.out" "$out/$name.scaled" > "$out/svmgrid.log" 2>&1)
read sw su ss < "$out/sodm.time"
read lw lu ls < "$out/svmgrid.time"
echo "data $name, 110 cells x 5 folds, svm-grid workers $workers"
echo "sodm grid: wall $sw s, cpu $(echo "$su + $ss" | bc) s; $(grep '^best' "$out/sodm.log")"
echo "svm-grid:  wall $lw s, cpu $(echo "$lu + $ls" | bc) s; best (C gamma rate): $(tail -1 "$out/svmgrid.log")"
echo "ratio sodm/svm-grid: wall $(echo "scale=2; $sw / $lw" | bc), cpu $(echo "scale=2; ($su + $ss) / ($lu + $ls)" | bc)"
# per-cell agreement: sodm's pooled accuracy against grid.py's rate, same (log2c, log2g)
python3 - "$out/sodm/grid.csv" "$out/svmgrid.out" <<'PY'
import csv, sys
s = {(float(r['log2c']), float(r['log2g'])): 100 * float(r['accuracy']) for r in csv.DictReader(open(sys.argv[1]))}
g = {}
for line in open(sys.argv[2]):
    kv = dict(p.split('=') for p in line.split())
    g[(float(kv['log2c']), float(kv['log2g']))] = float(kv['rate'])
d = [abs(s[k] - g[k]) for k in g if k in s]
print("cells compared %d, |sodm - grid.py| accuracy points: mean %.3f, max %.3f" % (len(d), sum(d) / len(d), max(d)))
PY
