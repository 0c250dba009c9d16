#!/usr/bin/env bash
# Multi-class against LIBSVM (issue 17's figures): pendigits (10 classes; both files scaled to [0,1] with the
# training ranges, C = 8, gamma = 0.5) and dna (3 classes, already scaled; LIBSVM's defaults C = 1, gamma = 1/180),
# one-vs-one, hinge. Whole commands: `svm-train` + `svm-predict` against `sodm train` + `sodm predict` (Hadoop local
# mode), REPS alternated pairs (default 3; the side that runs first alternates), median wall and CPU (user + sys)
# seconds of each, their ratios, train and predict apart (wall), and the test accuracy of each (deterministic).
# --set NAME:CLASSES:C:GAMMA:TRAIN:TEST adds a set (files scaled as they are to be used; repeatable), e.g. data never used
# in development (README, Unseen data).
# Usage: bench/multiclass.sh [--reps N] [--datasets DIR] [--out DIR] [--set NAME:CLASSES:C:GAMMA:TRAIN:TEST]...
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
reps=3; datasets="$here/../shared/datasets"; out=/tmp/sodm-multiclass; extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) reps="$2"; shift 2 ;;
    --datasets) datasets="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --set) extra+=("$2"); shift 2 ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench/multiclass.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
sodm=${SODM:-$here/bin/sodm}
"$sodm" --version >/dev/null  # builds the jars and writes their class-data archive when missing: not in a timed run
for t in svm-train svm-predict svm-scale; do
  command -v "$t" >/dev/null || { echo "bench/multiclass.sh: $t not installed (apt-get install -y libsvm-tools)" >&2; exit 2; }
done
[ -d "$datasets/pendigits" ] && [ -d "$datasets/dna" ] || { echo "bench/multiclass.sh: no pendigits / dna under $datasets" >&2; exit 2; }
rm -rf "$out"; mkdir -p "$out"
. "$here/bench/multiclass-data.sh"
multiclass_sets "$datasets" "$out"
specs=("pendigits 10 8 0.5" "dna 3 1 0.005555555556")
for e in "${extra[@]}"; do
  IFS=: read -r name classes c g train test <<< "$e"
  [ -f "$train" ] && [ -f "$test" ] || { echo "bench/multiclass.sh: --set $e: no file $train or $test" >&2; exit 2; }
  cp "$train" "$out/$name"; cp "$test" "$out/$name.t"
  specs+=("$name $classes $c $g")
done

# seconds "wall cpu" of a command (its output to $log)
timed() {
  local log=$1; shift
  /usr/bin/time -f "%e %U %S" -o "$out/.time" "$@" > "$log" 2>&1
  awk '{printf "%.2f %.2f\n", $1, $2 + $3}' "$out/.time"
}
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

libsvm_train() { # set c g
  svm-train -q -c "$2" -g "$3" -m 1000 "$out/$1" "$out/$1.libsvm-model"
}
libsvm_predict() { # set
  svm-predict "$out/$1.t" "$out/$1.libsvm-model" "$out/$1.libsvm-pred"
}
ours_train() { # set c g
  rm -rf "$out/$1.sodm-model" "$out/$1.sodm-pred"
  "$sodm" train -i "$out/$1" -o "$out/$1.sodm-model" --loss hinge -c "$2" -g "$3"
}
ours_predict() { # set
  "$sodm" predict -m "$out/$1.sodm-model" -i "$out/$1.t" -o "$out/$1.sodm-pred"
}

export -f libsvm_train libsvm_predict ours_train ours_predict; export out sodm
printf '| set | classes | C | gamma | svm-train+predict wall / CPU s | sodm train+predict wall / CPU s | wall ratio | CPU ratio | train wall: svm-train / sodm s (ratio) | predict wall: svm-predict / sodm s (ratio) | LIBSVM acc | sodm acc |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for spec in "${specs[@]}"; do
  read -r set classes c g <<< "$spec"
  for f in lw lc sw sc ltw lpw stw spw; do : > "$out/$set.$f"; done
  for ((r = 0; r < reps; r++)); do
    for side in $( ((r % 2)) && echo "ours libsvm" || echo "libsvm ours"); do
      read -r tw tc < <(timed "$out/$set.$side-train.log" bash -c "${side}_train \"\$@\"" "$side" "$set" "$c" "$g")
      read -r pw pc < <(timed "$out/$set.$side.log" bash -c "${side}_predict \"\$@\"" "$side" "$set")
      k=$([ "$side" = libsvm ] && echo l || echo s)
      echo "$tw" >> "$out/$set.${k}tw"; echo "$pw" >> "$out/$set.${k}pw"
      echo "$tw + $pw" | bc -l >> "$out/$set.${k}w"; echo "$tc + $pc" | bc -l >> "$out/$set.${k}c"
    done
  done
  lacc=$(grep -o 'Accuracy = [0-9.]*%' "$out/$set.libsvm.log" | head -1 | sed 's/Accuracy = //')
  sacc=$("$sodm" evaluate -m "$out/$set.sodm-model" -p "$out/$set.sodm-pred" --json 2>/dev/null \
    | python3 -c 'import json,sys; print("%.2f%%" % (100 * json.load(sys.stdin)["accuracy"]))')
  lw=$(median < "$out/$set.lw"); lc=$(median < "$out/$set.lc"); sw=$(median < "$out/$set.sw"); sc=$(median < "$out/$set.sc")
  ltw=$(median < "$out/$set.ltw"); stw=$(median < "$out/$set.stw"); lpw=$(median < "$out/$set.lpw"); spw=$(median < "$out/$set.spw")
  printf '| %s | %s | %s | %s | %.2f / %.2f | %.2f / %.2f | %.2fx | %.2fx | %.2f / %.2f (%.2fx) | %.2f / %.2f (%.2fx) | %s | %s |\n' "$set" "$classes" "$c" "$g" \
    "$lw" "$lc" "$sw" "$sc" "$(echo "$sw / $lw" | bc -l)" "$(echo "$sc / $lc" | bc -l)" \
    "$ltw" "$stw" "$(echo "$stw / $ltw" | bc -l)" "$lpw" "$spw" "$(echo "$spw / $lpw" | bc -l)" "$lacc" "$sacc"
done
echo
echo "reps $reps (alternated), medians; commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown); load $(cut -d' ' -f1-3 /proc/loadavg)"
