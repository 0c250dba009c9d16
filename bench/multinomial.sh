#!/usr/bin/env bash
# Multinomial (softmax) logistic regression against scikit-learn (README, Multinomial logistic regression): pendigits
# (10 classes, both files scaled to [0,1] with the training ranges) and dna (3 classes, already scaled), C = 1, no bias
# (scikit-learn's intercept is not regularised, sodm's --bias is: without one both minimise the same primal,
# 1/2 sum_k |w_k|^2 + C sum_i -log p_{y_i}). Whole commands, REPS alternated pairs (default 3; the side that runs first
# alternates): `sodm train --kernel linear --loss logistic --multiclass multinomial` + `sodm predict --text` against one
# python command that loads both files, fits LogisticRegression(lbfgs, multinomial) and predicts; `liblinear-train -s 0`
# (one-vs-rest, LIBLINEAR has no softmax model) + `liblinear-predict` for reference. Prints median wall seconds and
# ratios, test accuracies, the test rows whose labels differ between sodm and scikit-learn, the largest probability
# difference, and each side's primal f at its own W with |grad f| (computed in python from the rows, the same formula for
# both), so which side is nearer the optimum is measured, not assumed.
# --set NAME:TRAIN:TEST adds a set (scaled as it is to be used; repeatable), e.g. data never used in development.
# Needs scikit-learn for /usr/bin/python3 (apt-get install -y python3-sklearn) and liblinear-tools.
# Usage: bench/multinomial.sh [--reps N] [--c C] [--datasets DIR] [--out DIR] [--set NAME:TRAIN:TEST]...
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
reps=3; c=1; datasets="$here/../shared/datasets"; out=/tmp/sodm-multinomial; extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) reps="$2"; shift 2 ;;
    --c) c="$2"; shift 2 ;;
    --datasets) datasets="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --set) extra+=("$2"); shift 2 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench/multinomial.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
py=${PYTHON:-/usr/bin/python3}
sodm=${SODM:-$here/bin/sodm}
"$py" -c 'import sklearn' 2>/dev/null || { echo "bench/multinomial.sh: $py has no scikit-learn (apt-get install -y python3-sklearn)" >&2; exit 2; }
for t in liblinear-train liblinear-predict svm-scale; do
  command -v "$t" >/dev/null || { echo "bench/multinomial.sh: $t not installed (apt-get install -y liblinear-tools libsvm-tools)" >&2; exit 2; }
done
"$sodm" --version >/dev/null  # builds the jars and writes their class-data archive when missing: not in a timed run
rm -rf "$out"; mkdir -p "$out"
sets=()
if [ -d "$datasets/pendigits" ] && [ -d "$datasets/dna" ]; then
  . "$here/bench/multiclass-data.sh"
  multiclass_sets "$datasets" "$out"
  sets=(pendigits dna)
fi
for e in "${extra[@]}"; do
  IFS=: read -r name train test <<< "$e"
  [ -f "$train" ] && [ -f "$test" ] || { echo "bench/multinomial.sh: --set $e: no file $train or $test" >&2; exit 2; }
  cp "$train" "$out/$name"; cp "$test" "$out/$name.t"; sets+=("$name")
done
[ ${#sets[@]} -gt 0 ] || { echo "bench/multinomial.sh: no pendigits / dna under $datasets and no --set" >&2; exit 2; }

cat > "$out/sk.py" <<'PY'
import sys, numpy as np
from sklearn.datasets import load_svmlight_file
from sklearn.linear_model import LogisticRegression
tr, te, c, out = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
X, y = load_svmlight_file(tr); Xt, yt = load_svmlight_file(te, n_features=X.shape[1])
m = LogisticRegression(C=c, fit_intercept=False, max_iter=10000).fit(X, y)
np.savetxt(out, np.column_stack([m.predict(Xt), m.predict_proba(Xt)]), fmt='%.10g')
np.save(out + '.coef.npy', m.coef_); np.save(out + '.classes.npy', m.classes_)
PY
cat > "$out/compare.py" <<'PY'
# sodm's predictions.txt and scikit-learn's output on the test rows; each side's primal at its W from the training rows
import sys, numpy as np
from sklearn.datasets import load_svmlight_file
from scipy.special import logsumexp
tr, te, c, ours, theirs, ourw = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
X, y = load_svmlight_file(tr); Xt, yt = load_svmlight_file(te, n_features=X.shape[1])
lines = open(ours).read().split('\n')
labels = [float(v) for v in lines[0].split()[1:]]
rows = [l.split() for l in lines[1:] if l.strip()]
sl = np.array([float(r[0]) for r in rows]); sp = np.array([[float(v) for v in r[1:]] for r in rows])
classes = np.load(theirs + '.classes.npy'); sp = sp[:, [labels.index(k) for k in classes]]
k = np.loadtxt(theirs)
def primal(W):
    Z = X @ W.T; yi = np.searchsorted(classes, y)
    f = 0.5 * (W * W).sum() + c * (logsumexp(Z, axis=1) - Z[np.arange(len(y)), yi]).sum()
    P = np.exp(Z - logsumexp(Z, axis=1)[:, None]); P[np.arange(len(y)), yi] -= 1
    return f, np.linalg.norm(W + c * (P.T @ X))
# sodm's W from its liblinear export (MCSVM_CS: a column per class in its label order, then the bias row: 0 here)
txt = open(ourw).read().split('\n'); lab = [float(v) for v in txt[2].split()[1:]]; start = txt.index('w') + 1
Wl = np.array([[float(v) for v in l.split()] for l in txt[start:] if l.strip()])[:-1].T
Ws = Wl[[lab.index(k_) for k_ in classes]]
fs, gs = primal(Ws); fk, gk = primal(np.load(theirs + '.coef.npy'))
print("acc_sodm=%.4f acc_sklearn=%.4f labels_differ=%d max_prob_diff=%.2e f_sodm=%.10g grad_sodm=%.2e f_sklearn=%.10g grad_sklearn=%.2e"
      % (100 * (sl == yt).mean(), 100 * (k[:, 0] == yt).mean(), int((sl != k[:, 0]).sum()), np.abs(sp - k[:, 1:]).max(), fs, gs, fk, gk))
PY

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END{print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
echo "| set | sodm train + predict | scikit-learn fit + predict | ratio | liblinear -s 0 (ovr) | ratio | accuracy sodm / scikit-learn / liblinear ovr | labels differ | max prob. diff | f sodm / scikit-learn (its \|grad f\|) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for s in "${sets[@]}"; do
  tr="$out/$s"; te="$out/$s.t"
  : > "$out/$s.sodm"; : > "$out/$s.sk"; : > "$out/$s.ll"
  for r in $(seq 1 "$reps"); do
    runs=(sodm sk ll); [ $((r % 2)) = 0 ] && runs=(ll sk sodm)
    for side in "${runs[@]}"; do
      t0=$(now)
      case $side in
        sodm) "$sodm" train -q -i "$tr" -o "$out/$s-model" --kernel linear --loss logistic --multiclass multinomial -c "$c" --overwrite
              "$sodm" predict -q -m "$out/$s-model" -i "$te" -o "$out/$s-pred" --text --overwrite 2>/dev/null ;;
        sk) "$py" "$out/sk.py" "$tr" "$te" "$c" "$out/$s.skout" ;;
        ll) liblinear-train -q -s 0 -c "$c" "$tr" "$out/$s.llmodel" && liblinear-predict "$te" "$out/$s.llmodel" "$out/$s.llout" > "$out/$s.llacc" ;;
      esac
      echo "$(now) - $t0" | bc >> "$out/$s.$side"
    done
  done
  a=$(median < "$out/$s.sodm"); b=$(median < "$out/$s.sk"); l=$(median < "$out/$s.ll")
  "$sodm" export-liblinear "$out/$s-model" -o "$out/$s.sodm.ll" --overwrite > /dev/null
  cmp=$("$py" "$out/compare.py" "$tr" "$te" "$c" "$out/$s-pred/predictions.txt" "$out/$s.skout" "$out/$s.sodm.ll")
  eval "$(echo "$cmp" | tr ' ' '\n')"
  llacc=$(grep -o '[0-9.]*%' "$out/$s.llacc" | head -1)
  printf '| %s | %.2f s | %.2f s | %.2fx | %.2f s | %.2fx | %s / %s / %s%% | %s | %s | %s / %s (%s / %s) |\n' "$s" "$a" "$b" \
    "$(echo "$a / $b" | bc -l)" "$l" "$(echo "$a / $l" | bc -l)" "$acc_sodm" "$acc_sklearn" "${llacc%\%}" "$labels_differ" \
    "$max_prob_diff" "$f_sodm" "$f_sklearn" "$grad_sodm" "$grad_sklearn"
done
echo
echo "C = $c, no bias, $reps alternated pairs, medians of whole commands (wall); host $(nproc) cores; $(git -C "$here" rev-parse --short HEAD)"
