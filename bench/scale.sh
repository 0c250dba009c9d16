#!/usr/bin/env bash
# bench/scale.sh: the scaling series of issue 18 item 5. At each size n (default 1e5, 1e6, 4e6 rows)
# and for each data pattern:
#   synthetic  `sodm generate -n N -d 5 --noise 0.02` (Bayes accuracy 98%), test: 20,000 rows of seed 2
#   ijcnn1     ijcnn1.trn (as distributed, [-1,1]) enlarged with Gaussian noise (sigma 0.02), test: ijcnn1.tst
#   skin       skin_nonskin deduplicated, seeded 80/20, scaled [0,1], the training part enlarged with noise
#              (sigma 0.01), test: the deduplicated 20% (no test row is a training row of the source)
# it times, REPS times (alternating which side runs first), the whole `bin/sodm train` command (no
# --validation; accuracy from `sodm predict` afterwards) in each variant:
#   auto       the default tree (--levels auto), JVM -Xmx3g (bin/sodm's default)
#   auto-1g    the same under -Xmx1g
#   fixed      a fixed bottom block (--partitions ceil(n/FIXED_ROWS)) and --max-block-rows MAXROWS:
#              the merge tree stops before blocks exceed MAXROWS rows, so the work per row is fixed
#   fixed-1g   the same under -Xmx1g
# and `svm-train` with the same C and gamma (-m 1000) while it finishes within PEER_LIMIT seconds (30
# min): the first size where it does not, and every larger one, get no peer run (nor sizes above
# --peer-max-rows, to spare a run that would only be killed at the limit); their peer time is
# extrapolated from a power law t = a n^b fitted to the sizes that finished (marked "extrapolated").
# Recorded per run: wall and CPU (user + sys) seconds, peak RSS, exit status, test accuracy, the
# model's final blocks and levels (which model each variant produces); summarised per size: medians,
# ratio to svm-train (wall and CPU, per rep then median), time per doubling of n.
#
# usage: bench/scale.sh [--sizes 100000,1000000,4000000] [--patterns synthetic,ijcnn1,skin] [--reps 3]
#          [--variants auto,auto-1g,fixed,fixed-1g] [--fixed-rows 2048] [--max-block-rows 8192]
#          [--peer-limit 1800] [--peer-max-rows N] [--no-peer] [--out DIR] [--scratch DIR] [--datasets DIR] [--no-commit-check]
#          [--first-rep K]
#        bench/scale.sh --summary DIR      re-print the summary of a run
# --first-rep K numbers the reps K, K+1, ... and, when --out DIR already holds a run, adds its rows to DIR/runs.tsv
# (config.txt records each run's commit and command): more reps of a series in a later session.
# A full run (3 sizes up to 4e6 rows, 3 patterns, 3 reps) takes many hours on 2 cores; check the
# script at small sizes first (--sizes 20000,40000 --reps 1).
set -euo pipefail
export LC_ALL=C
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

sizes="100000,1000000,4000000"; patterns="synthetic,ijcnn1,skin"; reps=3; variants="auto,auto-1g,fixed,fixed-1g"
fixed_rows=2048; max_rows=8192; peer_limit=1800; peer_max_rows=0; peer=1; out=""; scratch="${TMPDIR:-/tmp}/sodm-scale"
datasets="$root/../shared/datasets"; commit_check=1; summary_only=""; test_rows=20000; first_rep=1
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) sizes="$2"; shift 2 ;;
    --patterns) patterns="$2"; shift 2 ;;
    --reps) reps="$2"; shift 2 ;;
    --variants) variants="$2"; shift 2 ;;
    --fixed-rows) fixed_rows="$2"; shift 2 ;;
    --max-block-rows) max_rows="$2"; shift 2 ;;
    --peer-limit) peer_limit="$2"; shift 2 ;;
    --peer-max-rows) peer_max_rows="$2"; shift 2 ;;
    --no-peer) peer=0; shift ;;
    --out) out="$2"; shift 2 ;;
    --scratch) scratch="$2"; shift 2 ;;
    --datasets) datasets="$2"; shift 2 ;;
    --no-commit-check) commit_check=0; shift ;;
    --summary) summary_only="$2"; shift 2 ;;
    --first-rep) first_rep="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown option $1 (--help)" >&2; exit 2 ;;
  esac
done
say() { printf '[scale %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { say "error: $*"; exit 1; }

summary() { # DIR: the tables, from DIR/runs.tsv
  python3 - "$1" <<'PY'
import csv, math, statistics, sys, os
d = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(d, "runs.tsv")), delimiter="\t"))
cfg = dict(l.rstrip("\n").split("=", 1) for l in open(os.path.join(d, "config.txt")) if "=" in l)
def num(x):
    try: return float(x)
    except (TypeError, ValueError): return None
def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None
def f(x, fmt="%.2f"): return "–" if x is None else fmt % x
print("# Scaling series (bench/scale.sh)\n")
for k in ("timestamp", "host", "cpus", "load_start", "load_end", "sodm_commit", "commit_check", "command"):
    if k in cfg: print(f"- {k}: {cfg[k]}")
for k in cfg:
    if k.startswith("appended_"): print(f"- {k}: {cfg[k]}")
print()
for pat in dict.fromkeys(r["pattern"] for r in rows):
    pr = [r for r in rows if r["pattern"] == pat]
    sizes = sorted({int(r["rows"]) for r in pr})
    # the peer's curve: sizes it finished; a power law through them for the others
    peer_t = {}
    for n in sizes:
        t = med([num(r["wall"]) for r in pr if int(r["rows"]) == n and r["variant"] == "svm-train" and r["exit"] == "0"])
        if t is not None: peer_t[n] = t
    fit = None
    if len(peer_t) >= 2:
        xs = [math.log(n) for n in peer_t]; ys = [math.log(t) for t in peer_t.values()]
        mx, my = statistics.mean(xs), statistics.mean(ys)
        b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
        fit = (my - b * mx, b)
    print(f"## {pat}: {cfg.get('data_' + pat, '')}\n")
    if fit: print(f"svm-train fit over the sizes it finished: t = {math.exp(fit[0]):.3g} n^{fit[1]:.2f} s\n")
    print("| variant | rows | runs | wall s (median) | CPU s | peak RSS MB | test acc | × previous size | time per doubling | wall ratio to svm-train | CPU ratio | model |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for v in dict.fromkeys(r["variant"] for r in pr):
        prev = None
        for n in sizes:
            rs = [r for r in pr if r["variant"] == v and int(r["rows"]) == n]
            if not rs: continue
            ok = [r for r in rs if r["exit"] == "0"]
            wall = med([num(r["wall"]) for r in ok]); cpu = med([num(r["cpu"]) for r in ok])
            rss = med([num(r["rss_mb"]) for r in ok]); acc = med([num(r["acc"]) for r in ok])
            failed = len(rs) - len(ok)
            ratio = cpur = None; note = ""
            if v != "svm-train":
                pairs = []
                for r in ok:
                    p = [q for q in pr if q["variant"] == "svm-train" and q["rows"] == r["rows"] and q["rep"] == r["rep"] and q["exit"] == "0"]
                    if p: pairs.append((num(r["wall"]) / num(p[0]["wall"]), num(r["cpu"]) / max(num(p[0]["cpu"]), 0.01)))
                if pairs:
                    ratio = med([a for a, _ in pairs]); cpur = med([b for _, b in pairs])
                elif fit and wall is not None:
                    ratio = wall / math.exp(fit[0] + fit[1] * math.log(n)); note = " (extrapolated peer)"
            step = per_doubling = None
            if prev and wall is not None:
                step = wall / prev[1]; per_doubling = step ** (1 / math.log2(n / prev[0]))
            if wall is not None: prev = (n, wall)
            model = ok[0]["model"] if ok else (rs[0]["model"] or "failed")
            print(f"| {v} | {n:,} | {len(ok)}{' (' + str(failed) + ' failed)' if failed else ''} | {f(wall)} | {f(cpu)} | {f(rss, '%.0f')} | "
                  f"{f(acc, '%.2f%%')} | {f(step, '%.2f×')} | {f(per_doubling, '**%.2f×**')} | {f(ratio, '%.3g×')}{note} | {f(cpur, '%.3g×')} | {model} |")
        if v == "svm-train" and fit:
            for n in sizes:
                if n not in peer_t:
                    print(f"| svm-train (**extrapolated**) | {n:,} | 0 | {math.exp(fit[0] + fit[1] * math.log(n)):.0f} | – | – | – | – | – | – | – | not run: over the {cfg.get('peer_limit', '?')} s limit at a smaller size, above --peer-max-rows, or --no-peer |")
    print()
print("Wall = the whole command (JVM start, ingest, every job; sodm in local mode on every core); CPU = user + sys seconds of the "
      "process tree (/usr/bin/time). Ratios: ours / svm-train within the same rep (back to back, alternating which ran first), "
      "median over the reps. Time per doubling = (t(n) / t(previous n))^(1 / log2(n / previous n)); target <= 2.1x up to 4e6 rows.")
PY
}
if [ -n "$summary_only" ]; then summary "$summary_only"; exit 0; fi

for t in svm-train svm-predict svm-scale /usr/bin/time python3 java; do command -v "$t" >/dev/null 2>&1 || die "missing: $t"; done
bench_jar() { ls "$root"/bench/target/sodm-bench-*-all.jar 2>/dev/null | head -n 1; }
[ -n "$(bench_jar)" ] || (cd "$root" && mvn -B -o -q -DskipTests package -pl bench) >&2
bench_tool() { java -cp "${BENCH_CP:-$(bench_jar)}" org.sodm.bench.BenchTool "$@"; }
export SODM_LOCAL=1
"$root/bin/sodm" --version >/dev/null || die "bin/sodm --version failed"
jar="$(ls "$root"/jobs/target/sodm-jobs-*-all.jar | head -n 1)"
rc=0; chk="$(bench_tool check-jar "$jar" "$root")" || rc=$?
commit="$(echo "$chk" | sed -n 's/^commit=//p')"; chk="$(echo "$chk" | sed -n 's/^check=//p')"
if [ "$rc" -ne 0 ]; then
  [ "$commit_check" = 1 ] && die "refusing to time: $chk (--no-commit-check times it anyway)"
  chk="NOT CHECKED (--no-commit-check): $chk"
fi
say "$chk"

[ -z "$out" ] && out="$root/bench/results/scale-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out/logs" "$scratch"; out="$(cd "$out" && pwd)"
[[ "$first_rep" =~ ^[1-9][0-9]*$ ]] || die "--first-rep must be a positive integer, got '$first_rep'"
append=0; [ "$first_rep" -gt 1 ] && [ -s "$out/runs.tsv" ] && append=1
if [ "$append" = 1 ]; then
  if grep -q "^[^	]*	[^	]*	$first_rep	" "$out/runs.tsv"; then die "$out/runs.tsv already has rep $first_rep (--first-rep)"; fi
  {
    echo "appended_reps_from_$first_rep=$(date '+%Y-%m-%d %H:%M:%S %Z') commit $commit ($chk); load_start $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "appended_command_$first_rep=bench/scale.sh --sizes $sizes --patterns $patterns --reps $reps --first-rep $first_rep --variants $variants$([ "$peer" = 0 ] && echo ' --no-peer')"
  } >>"$out/config.txt"
else
{
  echo "timestamp=$(date '+%Y-%m-%d %H:%M:%S %Z')"; echo "host=$(hostname)"; echo "cpus=$(nproc)"
  echo "load_start=$(cut -d' ' -f1-3 /proc/loadavg)"; echo "sodm_commit=$commit"; echo "commit_check=$chk"
  echo "command=bench/scale.sh --sizes $sizes --patterns $patterns --reps $reps --variants $variants --fixed-rows $fixed_rows --max-block-rows $max_rows --peer-limit $peer_limit$([ "$peer_max_rows" -gt 0 ] && echo " --peer-max-rows $peer_max_rows")$([ "$peer" = 0 ] && echo ' --no-peer')"
  echo "peer_limit=$peer_limit"
  echo "data_synthetic=sodm generate -n N -d 5 --noise 0.02 --seed 1 (test: $test_rows rows, seed 2); C=4 gamma=1"
  echo "data_ijcnn1=ijcnn1.trn as distributed, enlarged with Gaussian noise sigma 0.02 (BenchTool enlarge, seed 1); test ijcnn1.tst; C=32 gamma=2"
  echo "data_skin=skin_nonskin deduplicated, seeded 80/20 (seed 1), svm-scale [0,1]; the training part enlarged with noise sigma 0.01; test: the 20%; C=32 gamma=32"
} >"$out/config.txt"
echo -e "pattern\trows\trep\tvariant\tfirst\twall\tcpu\trss_mb\texit\tacc\tmodel" >"$out/runs.tsv"
fi

unpack() { case "$1" in *.xz) xz -dc "$1" ;; *.bz2) bzip2 -dc "$1" ;; *) cat "$1" ;; esac; }
declare -A PC=([synthetic]=4 [ijcnn1]=32 [skin]=32) PG=([synthetic]=1 [ijcnn1]=2 [skin]=32)
# data PATTERN N -> sets TRAIN, TEST (made once in $scratch)
data() {
  local pat="$1" n="$2" d="$scratch/$1"; mkdir -p "$d"
  case "$pat" in
    synthetic)
      TEST="$d/test"; [ -s "$TEST" ] || "$root/bin/sodm" generate -o "$TEST" -n "$test_rows" -d 5 --noise 0.02 --seed 2 --overwrite >&2
      TRAIN="$d/train-$n"; [ -s "$TRAIN" ] || "$root/bin/sodm" generate -o "$TRAIN" -n "$n" -d 5 --noise 0.02 --seed 1 --overwrite >&2 ;;
    ijcnn1)
      [ -s "$d/base" ] || unpack "$datasets/ijcnn1/ijcnn1.trn.bz2" >"$d/base"
      TEST="$d/test"; [ -s "$TEST" ] || unpack "$datasets/ijcnn1/ijcnn1.tst.bz2" >"$TEST"
      TRAIN="$d/train-$n"; [ -s "$TRAIN" ] || bench_tool enlarge "$d/base" "$TRAIN" "$n" 0.02 1 >&2 ;;
    skin)
      if [ ! -s "$d/test" ]; then
        unpack "$datasets/skin_nonskin/skin_nonskin.libsvm.xz" >"$d/all"
        bench_tool dedup-split "$d/all" "$d/tr.raw" "$d/te.raw" 0.2 1 >&2
        svm-scale -l 0 -u 1 -s "$d/range" "$d/tr.raw" >"$d/base"; svm-scale -r "$d/range" "$d/te.raw" >"$d/test" 2>/dev/null
        rm -f "$d/all" "$d/tr.raw" "$d/te.raw"
      fi
      TEST="$d/test"; TRAIN="$d/train-$n"; [ -s "$TRAIN" ] || bench_tool enlarge "$d/base" "$TRAIN" "$n" 0.01 1 >&2 ;;
    *) die "unknown pattern $pat" ;;
  esac
}

# timed LOG CMD...: sets WALL CPU RSS RC
timed() {
  local log="$1"; shift; local tf; tf="$(mktemp)"; RC=0
  local t0; t0="$(date +%s.%N)"
  /usr/bin/time -f '%M %U %S' -o "$tf" "$@" >"$log" 2>&1 || RC=$?
  WALL="$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')"
  read -r RSS u s < <(tail -n 1 "$tf"); CPU="$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')"
  RSS="$(awk -v k="$RSS" 'BEGIN { printf "%.0f", k / 1024 }')"; rm -f "$tf"
}
row() { echo -e "$1\t$2\t$3\t$4\t$5\t$WALL\t$CPU\t$RSS\t$RC\t$6\t$7" >>"$out/runs.tsv"; }

run_sodm() { # PATTERN N REP VARIANT FIRST
  local pat="$1" n="$2" rep="$3" v="$4" first="$5" opts heap="" model="$scratch/model" log="$out/logs/$1-$2-$4-rep$3"
  opts="--loss hinge -c ${PC[$pat]} -g ${PG[$pat]}"
  case "$v" in
    auto|auto-1g) ;;
    fixed|fixed-1g) opts+=" --partitions $(( (n + fixed_rows - 1) / fixed_rows )) --max-block-rows $max_rows" ;;
    *) die "unknown variant $v" ;;
  esac
  [[ "$v" == *-1g ]] && heap="-Xmx1g"
  rm -rf "$model" "$model.pred"
  echo "bin/sodm train -i $TRAIN -o MODEL $opts  (SODM_JAVA_OPTS=${heap:-default -Xmx3g})" >"$log.cmd"
  SODM_JAVA_OPTS="${heap:-${SODM_JAVA_OPTS:--Xmx3g}}" timed "$log.train" "$root/bin/sodm" train -i "$TRAIN" -o "$model" $opts
  local acc="" desc="failed (exit $RC; $log.train)"
  if [ "$RC" = 0 ]; then
    "$root/bin/sodm" predict -m "$model" -i "$TEST" -o "$model.pred" >"$log.predict" 2>&1 || true
    acc="$(sed -n 's/^accuracy *\([0-9.]*\)%.*/\1/p' "$log.predict" | head -n 1)"
    [ -z "$acc" ] && acc="$(python3 -c "import json;print('%.4f'%(100*json.load(open('$model.pred/metrics.json'))['accuracy']))" 2>/dev/null || true)"
    desc="$(python3 - "$model/train-report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
lv = " -> ".join(str(l.get("blocks")) for l in r.get("levels", []))
b = r.get("blocks")
kind = "one block (the whole problem's solution)" if b == 1 else f"mean of {b} final blocks"
print(f"{kind}; levels {lv}; {r.get('supportVectors')} SV")
PY
)" || desc="?"
  fi
  local lm; lm="$(grep -m1 -E 'tree|shape' "$log.train" | sed 's/^sodm train: //' | tr '\t' ' ' | cut -c1-120 || true)"
  WALL="$WALL" row "$pat" "$n" "$rep" "$v" "$first" "$acc" "$desc${lm:+ [$lm]}"
  say "$pat n=$n rep $rep $v: wall $WALL s cpu $CPU s rss $RSS MB acc ${acc:-?}% exit $RC — $desc"
  rm -rf "$model" "$model.pred"
}

declare -A PEER_OVER
run_peer() { # PATTERN N REP FIRST
  local pat="$1" n="$2" rep="$3" first="$4" m="$scratch/peer.model" log="$out/logs/$1-$2-svm-train-rep$3"
  [ "$peer" = 1 ] || return 0
  if [ -n "${PEER_OVER[$pat]:-}" ]; then say "$pat n=$n: svm-train skipped (over ${peer_limit}s at n=${PEER_OVER[$pat]}; extrapolated)"; return 0; fi
  if [ "$peer_max_rows" -gt 0 ] && [ "$n" -gt "$peer_max_rows" ]; then say "$pat n=$n: svm-train not run (--peer-max-rows $peer_max_rows; extrapolated)"; return 0; fi
  timed "$log.train" timeout "$peer_limit" svm-train -c "${PC[$pat]}" -g "${PG[$pat]}" -m 1000 "$TRAIN" "$m"
  local acc=""
  if [ "$RC" = 0 ]; then
    acc="$(svm-predict "$TEST" "$m" "$m.out" | sed -n 's/Accuracy = \([0-9.]*\)%.*/\1/p')"
  elif [ "$RC" = 124 ]; then
    PEER_OVER[$pat]="$n"
  fi
  row "$pat" "$n" "$rep" svm-train "$first" "$acc" "LIBSVM, one core$([ "$RC" = 124 ] && echo ", killed at the ${peer_limit}s limit")"
  say "$pat n=$n rep $rep svm-train: wall $WALL s cpu $CPU s acc ${acc:-?}% exit $RC"
  rm -f "$m" "$m.out"
}

for pat in ${patterns//,/ }; do
  for n in ${sizes//,/ }; do
    data "$pat" "$n"
    over_before="${PEER_OVER[$pat]:-}"
    for rep in $(seq "$first_rep" $((first_rep + reps - 1))); do
      # odd reps: ours first; even reps: the peer first
      if [ $((rep % 2)) = 1 ]; then
        for v in ${variants//,/ }; do run_sodm "$pat" "$n" "$rep" "$v" ours; done
        run_peer "$pat" "$n" "$rep" ours
      else
        run_peer "$pat" "$n" "$rep" peer
        for v in ${variants//,/ }; do run_sodm "$pat" "$n" "$rep" "$v" peer; done
      fi
    done
    [ -z "$over_before" ] || true
  done
done
echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/config.txt"
summary "$out" | tee "$out/summary.md"
say "runs: $out/runs.tsv; summary: $out/summary.md"
