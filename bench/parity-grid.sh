#!/usr/bin/env bash
# bench/parity-grid.sh: sodm's default kernel model against LIBSVM's at every (C, gamma) of a grid, on one
# training / test pair - issue 18's "within 0.3 point of LIBSVM at any C and gamma". For each cell it runs
#   svm-train -c C -g G -m 1000 TRAIN  +  svm-predict TEST        (cached in OUT/libsvm/: keyed by the files'
#                                                                  checksums, C and gamma; reruns reuse it)
#   sodm train -i TRAIN -o M --loss hinge -c C -g G [SODM_OPTS]  +  sodm predict TEST
# and prints one line per cell: the two test accuracies, their difference (sodm - LIBSVM), both wall times
# and the model's block count. Data is used as given (scale it first, e.g. the bench's prepared splits in
# /tmp/sodm-bench/data/SET/{train,test}.libsvm, which bench/run.sh writes).
# Usage: bench/parity-grid.sh TRAIN TEST [OUT=/tmp/parity-grid]
#   LOG2C="-1 3 7" LOG2G="-7 -3 1"   the grid (log2 of C and gamma; default LIBSVM grid.py's coarse corners)
#   LIBSVM_TIMEOUT=900               seconds before an svm-train cell is given up (printed as "timeout")
#   SODM_OPTS="..."                  extra options of sodm train (e.g. "-D sodm.train.exact.below.rows=0")
#   SODM=/path/to/bin/sodm           a frozen copy, so that a rebuild during the run cannot change it
set -euo pipefail
export LC_ALL=C
[ $# -ge 2 ] || { sed -n '2,16p' "$0"; exit 2; }
train=$1; test=$2; out=${3:-/tmp/parity-grid}
here=$(cd "$(dirname "$0")/.." && pwd)
sodm=${SODM:-$here/bin/sodm}
command -v svm-train >/dev/null || { echo "svm-train not installed (apt-get install -y libsvm-tools)" >&2; exit 2; }
for f in "$train" "$test"; do [ -r "$f" ] || { echo "cannot read $f" >&2; exit 2; }; done
"$sodm" --version >/dev/null
mkdir -p "$out/libsvm" "$out/sodm"
key="$(cksum <"$train" | cut -d' ' -f1)-$(cksum <"$test" | cut -d' ' -f1)"
log2c=${LOG2C:-"-1 3 7"}; log2g=${LOG2G:-"-7 -3 1"}
pow2() { awk -v e="$1" 'BEGIN { printf "%.17g\n", 2 ^ e }'; }
minus() { awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN { printf f, a - b }'; }
now() { date +%s.%N; }
acc() { sed -n 's/^Accuracy = \([0-9.]*\)%.*/\1/p' "$1" | head -1; }
printf '%-7s %-7s %9s %9s %7s %9s %9s %s\n' log2c log2g libsvm% sodm% delta libsvm_s sodm_s model
for lc in $log2c; do
  for lg in $log2g; do
    c=$(pow2 "$lc"); g=$(pow2 "$lg")
    cell="$key-c$lc-g$lg"
    lib="$out/libsvm/$cell"
    if [ ! -s "$lib.result" ]; then
      start=$(now)
      if timeout "${LIBSVM_TIMEOUT:-900}" svm-train -q -c "$c" -g "$g" -m 1000 "$train" "$lib.model" >/dev/null 2>&1; then
        svm-predict "$test" "$lib.model" /dev/null > "$lib.predict"
        echo "$(acc "$lib.predict") $(minus "$(now)" "$start" %.1f)" > "$lib.result"
      else
        echo "timeout ${LIBSVM_TIMEOUT:-900}" > "$lib.result"
      fi
      rm -f "$lib.model"
    fi
    read la lt < "$lib.result"
    m="$out/sodm/c$lc-g$lg"
    rm -rf "$m"
    start=$(now)
    # shellcheck disable=SC2086
    "$sodm" train -i "$train" -o "$m" --loss hinge -c "$c" -g "$g" ${SODM_OPTS:-} > "$m.train.log" 2>&1 \
      || { echo "sodm train failed at log2c $lc log2g $lg: see $m.train.log" >&2; exit 1; }
    st=$(minus "$(now)" "$start" %.1f)
    rm -rf "$m.pred"
    "$sodm" predict -i "$test" -m "$m" -o "$m.pred" > "$m.predict.log" 2>&1
    sa=$(sed -n 's/^accuracy *\([0-9.]*\)%.*/\1/p' "$m.predict.log" | head -1)
    blocks=$(sed -n 's/^sodm train: model *\([0-9]*\) block.*/\1/p' "$m.train.log" | tail -1)
    if [ "$la" = timeout ]; then d=-; else d=$(minus "$sa" "$la" %+.2f); fi
    printf '%-7s %-7s %9s %9s %7s %9s %9s %s\n' "$lc" "$lg" "$la" "$sa" "$d" "$lt" "$st" "${blocks:-?} blocks"
  done
done
