#!/usr/bin/env bash
# Elastic-net (and L1) logistic regression against scikit-learn (README, L1-regularised logistic regression): the same
# primal on both sides, rho |w|_1 + (1 - rho)/2 |w|^2 + C sum_i log(1 + exp(-y_i w'x_i)), no bias (scikit-learn's
# intercept is not regularised, sodm's --bias is; without one both minimise this f). Whole commands, REPS alternated pairs
# (the side that runs first alternates): `sodm train --kernel linear --loss logistic --penalty elasticnet --l1-ratio RHO` +
# `sodm predict` against one python command that loads both files, fits LogisticRegression(penalty='elasticnet',
# solver='saga', l1_ratio=RHO, C=C, fit_intercept=False, tol=TOL, max_iter=MAXITER) and predicts. Prints median wall
# seconds and their ratio, test accuracies, the test rows whose labels differ, each side's f at its own w and its number of
# zero weights (computed in python from the rows, the same formula for both), so which side is nearer the optimum is
# measured, not assumed.
# Needs scikit-learn for /usr/bin/python3 (apt-get install -y python3-sklearn).
# Usage: bench/elasticnet.sh NAME TRAIN TEST [--rho RHO] [--c C] [--reps N] [--tol TOL] [--max-iter N] [--out DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 3 ] || { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
name=$1; train=$2; test=$3; shift 3
rho=0.5; c=1; reps=3; tol=1e-4; maxiter=1000; out=/tmp/sodm-elasticnet
while [ $# -gt 0 ]; do
  case "$1" in
    --rho) rho="$2"; shift 2 ;;
    --c) c="$2"; shift 2 ;;
    --reps) reps="$2"; shift 2 ;;
    --tol) tol="$2"; shift 2 ;;
    --max-iter) maxiter="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "bench/elasticnet.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -f "$train" ] && [ -f "$test" ] || { echo "bench/elasticnet.sh: no file $train or $test" >&2; exit 2; }
py=${PYTHON:-/usr/bin/python3}
sodm=${SODM:-$here/bin/sodm}
"$py" -c 'import sklearn' 2>/dev/null || { echo "bench/elasticnet.sh: $py has no scikit-learn (apt-get install -y python3-sklearn)" >&2; exit 2; }
"$sodm" --version >/dev/null  # builds the jars and writes their class-data archive when missing: not in a timed run
work="$out/$name"; rm -rf "$work"; mkdir -p "$work"

cat > "$work/sk.py" <<'PY'
import sys, warnings, numpy as np
from sklearn.datasets import load_svmlight_file
from sklearn.linear_model import LogisticRegression
tr, te, rho, c, tol, maxiter, out = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]), sys.argv[7]
X, y = load_svmlight_file(tr); Xt, yt = load_svmlight_file(te, n_features=X.shape[1])
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    m = LogisticRegression(penalty='elasticnet', solver='saga', l1_ratio=rho, C=c, fit_intercept=False, tol=tol, max_iter=maxiter).fit(X, y)
np.savetxt(out, m.predict(Xt), fmt='%.10g')
np.save(out + '.coef.npy', m.coef_[0]); np.save(out + '.classes.npy', m.classes_)
open(out + '.info', 'w').write('%d %d\n' % (int(m.n_iter_[0]), sum(1 for w in caught if 'converge' in str(w.message).lower())))
PY

t() { local s e; s=$(date +%s.%N); "$@" > /dev/null 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc; }
sodm_run() {
  rm -rf "$work/m" "$work/p"
  "$sodm" train -i "$train" -o "$work/m" --kernel linear --loss logistic --penalty elasticnet --l1-ratio "$rho" -c "$c" &&
    "$sodm" predict -m "$work/m" -i "$test" -o "$work/p" --text
}
sk_run() { "$py" "$work/sk.py" "$train" "$test" "$rho" "$c" "$tol" "$maxiter" "$work/sk.out"; }
echo -e "pair\tfirst\tsodm\tscikit-learn" > "$work/times.tsv"
for r in $(seq 1 "$reps"); do
  if [ $((r % 2)) -eq 1 ]; then a=$(t sodm_run); b=$(t sk_run); first=sodm; else b=$(t sk_run); a=$(t sodm_run); first=scikit-learn; fi
  echo -e "$r\t$first\t$a\t$b" >> "$work/times.tsv"
done
sodm_run > "$work/sodm.log" 2>&1
"$sodm" export-liblinear "$work/m" -o "$work/m.ll" > /dev/null 2>&1
sk_run

"$py" - "$work" "$train" "$test" "$rho" "$c" "$name" <<'PY'
import sys, csv, statistics, numpy as np
from sklearn.datasets import load_svmlight_file
work, tr, te, rho, c, name = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5]), sys.argv[6]
X, y = load_svmlight_file(tr); Xt, yt = load_svmlight_file(te, n_features=X.shape[1])
d = X.shape[1]
def f(w, pos):
    s = np.where(y == pos, 1.0, -1.0) * (X @ w)
    return rho * np.abs(w).sum() + (1 - rho) / 2 * (w @ w) + c * np.logaddexp(0, -s).sum()
lines = open(work + '/m.ll').read().split('\n')
label = [l for l in lines if l.startswith('label ')][0].split()[1:]
i = lines.index('w') + 1
ws = np.array([float(v) for v in lines[i:i + d]])
ws = np.pad(ws, (0, d - len(ws)))
wk = np.load(work + '/sk.out.coef.npy'); classes = np.load(work + '/sk.out.classes.npy')
it, warned = open(work + '/sk.out.info').read().split()
fs, fk = f(ws, float(label[0])), f(wk, classes[1])
pred_s = np.where(Xt @ ws > 0, float(label[0]), float(label[1]))
pred_k = np.loadtxt(work + '/sk.out')
rows = list(csv.DictReader(open(work + '/times.tsv'), delimiter='\t'))
ms, mk = statistics.median(float(r['sodm']) for r in rows), statistics.median(float(r['scikit-learn']) for r in rows)
print(f"{name} elastic net rho {rho} C {c}: {len(rows)} alternated pairs, medians sodm {ms:.2f} s, scikit-learn {mk:.2f} s (saga, "
      f"{it} epochs{', did not converge' if warned != '0' else ''}): ratio {ms / mk:.2f}x")
print(f"  f: sodm {fs:.10g} ({int((ws == 0).sum())} of {d} weights 0), scikit-learn {fk:.10g} ({int((wk == 0).sum())} 0); "
      f"sodm - scikit-learn = {fs - fk:.3e} ({(fs - fk) / fk:.2e} relative)")
print(f"  test accuracy: sodm {100 * (pred_s == yt).mean():.4f}%, scikit-learn {100 * (pred_k == yt).mean():.4f}%; "
      f"labels differ on {int((pred_s != pred_k).sum())} of {len(yt)} rows")
PY
