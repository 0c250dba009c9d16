#!/usr/bin/env bash
# The L1 methods of `--penalty l1` side by side on one data set, in one JVM with no job and no ingest: newGLMNET's dense
# form, newGLMNET by column and OWL-QN (README: L1-regularised logistic regression), each run REPS times in turn (each rep
# starts with another form), on one rank of the in-process AllReduce as a resident task runs them. Prints each run
# (seconds, iterations, f, pseudo-gradient norm, non-zeros, the run's duality gap) and per form the first run (JIT warm-up
# included), the median of the later ones, and f against the optimum: `liblinear-train -s 6|5 -e 1e-6`'s objective where
# liblinear-tools is installed (and python3, for bench/linear-objective.py; L1_FORMS_REFERENCE=0 skips it), else the lowest
# f of the forms; and the run's certified bound (duality gap / f). --gap G stops every form by duality gap <= G f (sodm's
# --l1-gap) instead of LIBLINEAR's rule. Refuses a jar not built from this checkout.
#
# usage: bench/l1-forms.sh TRAIN [--loss logistic|squared-hinge] [--c C] [--eps E] [--gap G] [--reps N] [--threads T]
#                                [--forms glmnet,glmnet-columns,owlqn] [--max-iterations N]
#   TRAIN: a LIBSVM file of two classes (.xz, .bz2, .gz or plain; the larger label is +1), no bias. Defaults: logistic,
#   C = 1, eps 0.01 (LIBLINEAR -s 6's), 3 reps, 1 thread, every form (the dense form is skipped above 8,191 features).
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,14p' "$0" >&2; exit 2; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
train=$1; shift
jar=$(ls "$root"/jobs/target/sodm-jobs-*-all.jar 2>/dev/null | head -n 1)
[ -n "$jar" ] || { echo "no jobs/target/sodm-jobs-*-all.jar: build first (mvn -B -o -q install -DskipTests)" >&2; exit 2; }
bench_jar() { ls "$root"/bench/target/sodm-bench-*-all.jar 2>/dev/null | head -n 1; }
[ -n "${BENCH_CP:-}" ] || [ -n "$(bench_jar)" ] || (cd "$root" && mvn -B -o -q -DskipTests package -pl bench) >&2
rc=0; chk="$(java -cp "${BENCH_CP:-$(bench_jar)}" org.sodm.bench.BenchTool check-jar "$jar" "$root")" || rc=$?
[ "$rc" -eq 0 ] || { echo "refusing to time: $(echo "$chk" | sed -n 's/^check=//p')" >&2; exit 3; }
echo "$(echo "$chk" | sed -n 's/^commit=/commit /p'), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
case "$train" in
  *.xz|*.bz2|*.gz) tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT
    case "$train" in *.xz) xz -dc "$train" ;; *.bz2) bzip2 -dc "$train" ;; *.gz) gzip -dc "$train" ;; esac > "$tmp"; train=$tmp ;;
esac
loss=logistic c=1
args=("$@"); for ((i = 0; i + 1 < ${#args[@]}; i++)); do
  case "${args[i]}" in --loss) loss=${args[i+1]} ;; --c) c=${args[i+1]} ;; esac
done
ref=()
if [ "${L1_FORMS_REFERENCE:-1}" = 1 ] && command -v liblinear-train >/dev/null && command -v python3 >/dev/null; then
  case "$loss" in logistic) s=6 ;; squared-hinge) s=5 ;; *) echo "--loss must be logistic or squared-hinge" >&2; exit 2 ;; esac
  model=$(mktemp); trap 'rm -f "$model" ${tmp:+"$tmp"}' EXIT
  liblinear-train -s "$s" -c "$c" -e 1e-6 -q "$train" "$model" > /dev/null
  ref=(--reference "$(python3 "$root/bench/linear-objective.py" "$train" "$model" "$c" "l1-$loss")" --reference-name "liblinear-train -s $s -e 1e-6")
fi
java -Xmx${L1_FORMS_HEAP:-4g} -XX:+UseParallelGC -cp "$jar" "$root/bench/L1Forms.java" "$train" "$@" "${ref[@]}"
