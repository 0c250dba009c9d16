#!/usr/bin/env bash
# bench/profile.sh: where the time of `sodm train` goes (issue #6). Prints Markdown:
#   1-4. the single-node solver profile (org.sodm.solver.SolverProfile): kernel evaluations per
#        second against a tight loop, cold vs warm solves, shrinking / cache / pair-step
#        variants, 1 vs 2 threads over all blocks;
#   5.   svm-train on the same block 0 (LIBSVM's time for the same sub-problem), when installed;
#   6.   one whole local-mode `sodm train` run: per phase wall seconds, CPU seconds, JIT compile
#        seconds (-XX:+CITime), GC pauses, and (when strace is installed) child processes spawned.
# Usage: bench/profile.sh [--train FILE] [--blocks K] [--gamma G] [-c C] [--train-opts OPTS] [--out FILE]
# Default data: ijcnn1 from ../shared/datasets (decompressed into ${TMPDIR:-/tmp}/sodm-bench/profile).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/bin/sodm" --version >/dev/null  # builds the jars and writes their class-data archive when missing: not in a timed run
train="" blocks=16 gamma=2 c=32 out="" train_opts="--loss hinge"
while [ $# -gt 0 ]; do
  case "$1" in
    --train) train="$2"; shift 2 ;;
    --blocks) blocks="$2"; shift 2 ;;
    --gamma) gamma="$2"; shift 2 ;;
    -c) c="$2"; shift 2 ;;
    --train-opts) train_opts="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "profile.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
scratch="${TMPDIR:-/tmp}/sodm-bench/profile"
mkdir -p "$scratch"
if [ -z "$train" ]; then
  src="$root/../shared/datasets/ijcnn1/ijcnn1.trn.bz2"
  train="$scratch/ijcnn1.trn"
  if [ ! -s "$train" ]; then
    [ -f "$src" ] || { echo "profile.sh: no --train FILE and no $src" >&2; exit 2; }
    bzcat "$src" > "$train.tmp" && mv "$train.tmp" "$train"
  fi
fi
[ -f "$train" ] || { echo "profile.sh: --train $train: no such file" >&2; exit 2; }

(cd "$root" && mvn -B -q -DskipTests package) >&2
jar="$(ls "$root"/jobs/target/sodm-jobs-*-all.jar | head -n 1)"
report="$(mktemp)"
trap 'rm -f "$report"' EXIT
say() { echo "$@" | tee -a "$report"; }

say "# sodm profile: $(basename "$train"), $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo '?')"
say ""
say "Machine: $(nproc) cores, load average at start $(cut -d' ' -f1-3 /proc/loadavg); JVM $(java -version 2>&1 | head -n 1)."
say ""
java -Xmx3g -cp "$root/common/target/test-classes:$jar" org.sodm.solver.SolverProfile "$train" \
  "blocks=$blocks" "gamma=$gamma" "c=$c" 2>/dev/null | tee -a "$report"

say ""
say "## 5. svm-train on block 0 (rows 1, 1+$blocks, ...), best of 5"
if command -v svm-train >/dev/null 2>&1; then
  awk -v k="$blocks" 'NR % k == 1' "$train" > "$scratch/block0"
  best=""
  for i in 1 2 3 4 5; do
    s=$( { /usr/bin/env time -f "%e" svm-train -c "$c" -g "$gamma" -m 1000 "$scratch/block0" "$scratch/block0.model" >/dev/null; } 2>&1 | tail -n 1)
    best=$(awk -v a="${best:-1e9}" -v b="$s" 'BEGIN { print (b < a ? b : a) }')
  done
  say "svm-train -c $c -g $gamma on $(wc -l < "$scratch/block0") rows: $best s ($(grep -m1 total_sv "$scratch/block0.model" | cut -d' ' -f2) SV; LIBSVM fits a bias, the solves above do not)"
else
  say "svm-train not installed (bench/run.sh installs it)."
fi

say ""
say "## 6. one whole \`sodm train\` in local mode"
jit="-XX:Tier4InvocationThreshold=100000 -XX:Tier4CompileThreshold=150000 -XX:Tier4BackEdgeThreshold=1000000"
cmd=(java -Xmx3g $jit -XX:+UnlockDiagnosticVMOptions -XX:+CITime "-Xlog:gc:file=$scratch/gc.log" -jar "$jar"
  train -i "$train" -o "$scratch/model" -c "$c" -g "$gamma" $train_opts --overwrite)
/usr/bin/env time -f "%e %U %S %M" -o "$scratch/time" "${cmd[@]}" > "$scratch/run.log" 2>&1
spawned="(strace not installed)"
if command -v strace >/dev/null 2>&1; then # a second run, only to count (ptrace slows it down)
  strace -f -qq -e trace=execve -o "$scratch/strace" "${cmd[@]}" > /dev/null 2>&1
  spawned=$(grep -c 'execve(' "$scratch/strace" || true)
fi
read -r wall user sys rss < "$scratch/time"
say ""
say "Command: \`sodm train -i $(basename "$train") -c $c -g $gamma $train_opts\` (bin/sodm's JVM options, plus -XX:+CITime)."
say ""
say '```'
grep '^sodm train:' "$scratch/run.log" | sed 's/^sodm train: //' | tee -a "$report" >/dev/null
say '```'
c1=$(grep -m1 'C1 {' "$scratch/run.log" | sed -E 's/.*standard: *([0-9.]+) s.*osr: *([0-9.]+) s.*/\1 \2/' | awk '{ print $1 + $2 }')
c2=$(grep -m1 'C2 {' "$scratch/run.log" | sed -E 's/.*standard: *([0-9.]+) s.*osr: *([0-9.]+) s.*/\1 \2/' | awk '{ print $1 + $2 }')
gc=$(awk '/Pause/ { gsub("ms", "", $NF); s += $NF } END { printf "%.2f", s / 1000 }' "$scratch/gc.log")
say ""
say "| wall s | user CPU s | sys CPU s | JIT C1 s | JIT C2 s | GC pauses s | child processes | peak RSS MB |"
say "|---:|---:|---:|---:|---:|---:|---:|---:|"
say "| $wall | $user | $sys | ${c1:-?} | ${c2:-?} | $gc | $spawned | $((rss / 1024)) |"
[ -n "$out" ] && cp "$report" "$out" && echo "written: $out" >&2
exit 0
