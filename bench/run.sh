#!/usr/bin/env bash
# bench/run.sh: sodm against LIBSVM on the shared data sets, by the protocol of
# ../shared/BENCHMARKS.md (A B A B pairs, medians, ratio ours/peer), plus a synthetic scaling
# series. Writes bench/results/<timestamp>/{results.md,results.json,plot-SET.png,...}.
# See bench/README.md; `bench/run.sh --help` for the options.
set -euo pipefail
export LC_ALL=C

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ALL_SETS="ijcnn1,a9a,skin_nonskin,svmguide1,phishing,mushrooms"

# ------------------------------------------------------------------ the data sets
# files (relative to the data directory; an empty test file = seeded 80/20 split), C, gamma, note
declare -A TRAIN_FILE TEST_FILE PC PG NOTE
TRAIN_FILE[ijcnn1]=ijcnn1/ijcnn1.trn.bz2;        TEST_FILE[ijcnn1]=ijcnn1/ijcnn1.tst.bz2
PC[ijcnn1]=32;  PG[ijcnn1]=2;        NOTE[ijcnn1]="BENCHMARKS.md (DC-SVM's)"
TRAIN_FILE[a9a]=a9a/a9a.xz;                      TEST_FILE[a9a]=a9a/a9a.t.xz
PC[a9a]=8;      PG[a9a]=0.03125;     NOTE[a9a]="BENCHMARKS.md"
TRAIN_FILE[skin_nonskin]=skin_nonskin/skin_nonskin.libsvm.xz; TEST_FILE[skin_nonskin]=
PC[skin_nonskin]=32; PG[skin_nonskin]=32; NOTE[skin_nonskin]="BENCHMARKS.md"
TRAIN_FILE[svmguide1]=svmguide1/svmguide1.xz;    TEST_FILE[svmguide1]=svmguide1/svmguide1.t.xz
PC[svmguide1]=2; PG[svmguide1]=2;    NOTE[svmguide1]="BENCHMARKS.md (LIBSVM guide's)"
TRAIN_FILE[phishing]=phishing/phishing.libsvm.xz; TEST_FILE[phishing]=
PC[phishing]=1; PG[phishing]=0.125
NOTE[phishing]="chosen on the training part only (bench/run.sh --tune: 5-fold svm-train -v on the 4,679 training rows of the deduplicated seed-1 split, C in {1,8,32} x gamma in {1/32,1/8,1/2,2,8,32}): C=1, gamma=1/8, 95.13% (C=32 gamma=1/32 95.11%, C=8 gamma=1/8 94.89%). Until 2026-11-23 C=8 gamma=1/2 had been chosen by CV on the whole file, test rows and their copies included"
TRAIN_FILE[mushrooms]=mushrooms/agaricus.txt.train.xz; TEST_FILE[mushrooms]=mushrooms/agaricus.txt.test.xz
PC[mushrooms]=1; PG[mushrooms]=0.03125
NOTE[mushrooms]="chosen here: C=1 (LIBSVM's default), gamma=1/32; 5-fold CV on the training file is 100% at every point of C in {1,8} x gamma in {1/128,1/32,1/8} but (C=1, gamma=1/128), 99.72%: the set is separable"

# mode presets: extra sodm train options
declare -A MODE_PRESET
MODE_PRESET[block]=""                 # the default merge tree (levels 2, fanout 4: K=16 -> 4 final blocks)
MODE_PRESET[exact]="--partitions 1"   # one block: the whole problem's exact solution

usage() {
  cat <<EOF
usage: bench/run.sh [options]

Data sets (default all: $ALL_SETS, or none when --scaling is given):
  --sets LIST            comma-separated sets to run
  --pairs N              A B pairs per set / repetitions per size (default 3)
  --mode NAME[=OPTS]     a variant of ours; repeatable. Presets: block (default tree, the default),
                         exact (--partitions 1); NAME=OPTS adds extra sodm train options, e.g.
                         --mode 'k8=--partitions 8 --fanout 8'
  --odm                  also run an ODM variant (--loss odm with its defaults, same gamma)
  --odm-opts OPTS        options of the ODM variant (implies --odm), e.g. '--lambda 1e4 --theta 0.3 --mu 0.5'
  --sodm-opts OPTS       extra options for every sodm train (e.g. '--cache-mb 512')
  --no-validation        time sodm train without --validation TEST (no per-level accuracy: the plot
                         then has only the final point; accuracy comes from sodm predict)
  --params SET=C,GAMMA   override a set's parameters; repeatable
  --libsvm-defaults      also run every set at LIBSVM's default parameters, as set SET@default
                         (C = 1, gamma = 1/d, d = the training file's largest feature index);
                         SET@default may also be named in --sets
  --peer-cache MB        svm-train -m (default 1000, as in BENCHMARKS.md)
  --raw LIST             sets used as distributed, without the [0,1] svm-scale step (default ijcnn1,
                         already in [-1,1]: BENCHMARKS.md's peer figures are on that file; 'none' scales all)
  --seed S               seed of the 80/20 split (default 1); duplicate rows are removed first
  --tune                 only choose C and gamma for the sets: 5-fold svm-train -v on the TRAINING part
                         (C in {1,8,32} x gamma in {1/32,1/8,1/2,2,8,32}), print the grid and exit
Scaling series (ours only):
  --scaling SIZES        e.g. 100000,200000,400000,800000: sodm generate at each size
  --block-rows N         rows per bottom block, K = ceil(rows / N) (default 12500)
  --scaling-opts OPTS    sodm train options (default '--loss hinge -c 4 -g 1')
  --scaling-gen OPTS     sodm generate options (default '--features 5 --noise 0.02')
  --scaling-test N       test rows (default 20000, seed 2)
General:
  --datasets DIR         the compressed sets (default \$root/../shared/datasets)
  --scratch DIR          decompressed / scaled data and models (default \${TMPDIR:-/tmp}/sodm-bench)
  --out DIR              output (default bench/results/<timestamp>)
  --java-opts OPTS       SODM_JAVA_OPTS for bin/sodm (default: bin/sodm's, -Xmx3g)
  --timeout SEC          kill a command after SEC seconds (counted as failed; default none)
  --keep-models          keep our model directories (default: only train-report.json is kept)
  --no-install           never call apt-get
  --build                build the jars first (mvn -B -o -q -DskipTests package; not timed)
  --no-commit-check      time even a jar that is not the checkout's (recorded as such in config.txt);
                         by default the run stops when jobs/target/sodm-jobs-*-all.jar was built from
                         another commit or other uncommitted changes (META-INF/sodm/build.properties)
  --report DIR           only (re)write the report of an existing output directory
  --self-check           fast checks of the data preparation (used by the JUnit test), then exit
EOF
}

say() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { say "error: $*"; exit 1; }

sets=""; pairs=3; modes=(); odm=0; odm_opts=""; sodm_opts=""; peer_cache=1000; raw_sets="ijcnn1"; seed=1
scaling=""; block_rows=12500; scaling_opts="--loss hinge -c 4 -g 1"; scaling_gen="--features 5 --noise 0.02"; scaling_test=20000
in_list_early() { [[ ",$2," == *",$1,"* ]]; }
datasets="$root/../shared/datasets"; scratch="${TMPDIR:-/tmp}/sodm-bench"; out=""; java_opts=""; timeout_s=0
keep_models=0; install=1; validate=1; report_only=""; self_check=0; libsvm_defaults=0
tune=0; build_first=0; commit_check=1
invocation="bench/run.sh $*"

while [ $# -gt 0 ]; do
  case "$1" in
    --sets) sets="$2"; shift 2 ;;
    --pairs) pairs="$2"; shift 2 ;;
    --mode) modes+=("$2"); shift 2 ;;
    --odm) odm=1; shift ;;
    --odm-opts) odm=1; odm_opts="$2"; shift 2 ;;
    --sodm-opts) sodm_opts="$2"; shift 2 ;;
    --libsvm-defaults) libsvm_defaults=1; shift ;;
    --params) p="$2"; s="${p%%=*}"; v="${p#*=}"; PC[$s]="${v%%,*}"; PG[$s]="${v#*,}"; NOTE[$s]="given with --params"; shift 2 ;;
    --peer-cache) peer_cache="$2"; shift 2 ;;
    --raw) raw_sets="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --scaling) scaling="$2"; shift 2 ;;
    --block-rows) block_rows="$2"; shift 2 ;;
    --scaling-opts) scaling_opts="$2"; shift 2 ;;
    --scaling-gen) scaling_gen="$2"; shift 2 ;;
    --scaling-test) scaling_test="$2"; shift 2 ;;
    --datasets) datasets="$2"; shift 2 ;;
    --scratch) scratch="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --java-opts) java_opts="$2"; shift 2 ;;
    --timeout) timeout_s="$2"; shift 2 ;;
    --keep-models) keep_models=1; shift ;;
    --no-validation) validate=0; shift ;;
    --no-install) install=0; shift ;;
    --tune) tune=1; shift ;;
    --build) build_first=1; shift ;;
    --no-commit-check) commit_check=0; shift ;;
    --report) report_only="$2"; shift 2 ;;
    --self-check) self_check=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option: $1" ;;
  esac
done
[ -z "$sets" ] && [ -z "$scaling" ] && sets="$ALL_SETS"
if [ "$libsvm_defaults" = 1 ] && [ -n "$sets" ]; then
  with_defaults=""
  for s in ${sets//,/ }; do
    with_defaults+="${with_defaults:+,}$s"
    [[ "$s" == *@default ]] || in_list_early "$s@default" "$sets" || with_defaults+=",$s@default"
  done
  sets="$with_defaults"
fi
[ "${#modes[@]}" -eq 0 ] && modes=(block)
[[ "$pairs" =~ ^[1-9][0-9]*$ ]] || die "--pairs must be a positive integer"
[ "$pairs" -lt 3 ] && say "note: the protocol asks for at least 3 pairs (running $pairs)"
datasets="$(cd "$datasets" 2>/dev/null && pwd || echo "$datasets")"

# ------------------------------------------------------------------ tools
apt_updated=0
apt_install() {
  [ "$install" = 1 ] || die "missing: $* (and --no-install given)"
  command -v apt-get >/dev/null 2>&1 || die "missing: $* (no apt-get here: install them by hand)"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  if [ "$apt_updated" = 0 ]; then
    say "apt-get update"
    $sudo apt-get update -qq >&2
    apt_updated=1
  fi
  say "apt-get install -y $*"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
}

ensure_tools() {
  local pk=()
  command -v svm-train >/dev/null 2>&1 || pk+=(libsvm-tools liblinear-tools)
  [ -x /usr/bin/time ] || pk+=(time)
  command -v xz >/dev/null 2>&1 || pk+=(xz-utils)
  command -v bzip2 >/dev/null 2>&1 || pk+=(bzip2)
  command -v java >/dev/null 2>&1 || pk+=(openjdk-17-jdk-headless)
  command -v mvn >/dev/null 2>&1 || { [ -n "$(jar)" ] && [ -n "$(bench_jar)" ]; } || pk+=(maven)
  # fonts for the plot labels (the plots are drawn without text when there are none)
  command -v fc-list >/dev/null 2>&1 || pk+=(fontconfig fonts-dejavu-core)
  [ "${#pk[@]}" -eq 0 ] || apt_install "${pk[@]}"
}

jar() { ls "$root"/jobs/target/sodm-jobs-*-all.jar 2>/dev/null | head -n 1; }
# The harness (split, report, svm-train parsing) is the bench module's jar, not the product's:
# BENCH_CP (a classpath, e.g. the bench module's test classpath) or bench/target/sodm-bench-*-all.jar,
# built here when missing.
bench_jar() { ls "$root"/bench/target/sodm-bench-*-all.jar 2>/dev/null | head -n 1; }
ensure_bench_cp() {
  [ -n "${BENCH_CP:-}" ] && return 0
  if [ -z "$(bench_jar)" ]; then
    command -v mvn >/dev/null 2>&1 || die "no bench/target/sodm-bench-*-all.jar and no mvn to build it"
    say "building the bench jar (mvn -B -q -DskipTests package -pl bench; not timed)"
    (cd "$root" && mvn -B -q -DskipTests package -pl bench) >&2 || die "building the bench jar failed"
  fi
  BENCH_CP="$(bench_jar)"
  [ -n "$BENCH_CP" ] || die "no bench/target/sodm-bench-*-all.jar after the build"
}
bench_tool() {
  ensure_bench_cp
  java -Djava.awt.headless=true -cp "$BENCH_CP" org.sodm.bench.BenchTool "$@"
}

now() { echo "${EPOCHREALTIME:-$(date +%s.%N)}"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# runs "$@" with wall time and peak RSS; writes PREFIX_seconds/_rss_kb/_exit lines to META
# and the command's output to LOG. Usage: timed META PREFIX LOG cmd...
timed() {
  local meta="$1" prefix="$2" log="$3"; shift 3
  local rssf; rssf="$(mktemp)"
  local t0 t1 rc=0
  local pre=()
  [ "$timeout_s" != 0 ] && pre=(timeout "$timeout_s")
  t0="$(now)"
  # %M peak RSS (KB), %U + %S: user + system CPU seconds of the command and every child it waited for
  /usr/bin/time -f '%M %U %S' -o "$rssf" ${pre[@]+"${pre[@]}"} "$@" >"$log" 2>&1 || rc=$?
  t1="$(now)"
  local last; last="$(tail -n 1 "$rssf")"
  {
    echo "${prefix}_seconds=$(elapsed "$t0" "$t1")"
    echo "${prefix}_cpu_seconds=$(echo "$last" | awk 'NF == 3 { printf "%.2f", $2 + $3 }')"
    echo "${prefix}_rss_kb=$(echo "$last" | awk 'NF == 3 { print $1 }')"
    echo "${prefix}_exit=$rc"
  } >>"$meta"
  rm -f "$rssf"
  return 0
}

# ------------------------------------------------------------------ data preparation
decompress() { # FILE -> stdout
  case "$1" in
    *.xz) xz -dc "$1" ;;
    *.bz2) bzip2 -dc "$1" ;;
    *.gz) gzip -dc "$1" ;;
    *) cat "$1" ;;
  esac
}

in_list() { [[ ",$2," == *",$1,"* ]]; }

# prepare SET: sets DATA_TRAIN, DATA_TEST, DATA_PREP (a description) in $scratch/data/SET
prepare() {
  local set="$1" d="$scratch/data/$1" src_train src_test key
  src_train="$datasets/${TRAIN_FILE[$set]}"
  src_test="${TEST_FILE[$set]:+$datasets/${TEST_FILE[$set]}}"
  [ -f "$src_train" ] || die "$set: $src_train not found (--datasets DIR)"
  [ -z "$src_test" ] || [ -f "$src_test" ] || die "$set: $src_test not found"
  local scale=1
  in_list "$set" "$raw_sets" && scale=0
  key="v2-dedup seed=$seed scale=$scale $(cksum <"$src_train" | cut -d' ' -f1)${src_test:+ $(cksum <"$src_test" | cut -d' ' -f1)}"
  DATA_TRAIN="$d/train.libsvm"; DATA_TEST="$d/test.libsvm"
  if [ -f "$d/stamp" ] && [ "$(cat "$d/stamp")" = "$key" ] && [ -f "$DATA_TRAIN" ] && [ -f "$DATA_TEST" ]; then
    say "$set: prepared data in $d (reused)"
  else
    say "$set: preparing data in $d"
    rm -rf "$d"; mkdir -p "$d"
    if [ -n "$src_test" ]; then
      decompress "$src_train" >"$d/train.raw"
      decompress "$src_test" >"$d/test.raw"
    else
      decompress "$src_train" >"$d/all.raw"
      # duplicates removed first: no test row is a copy of a training row
      bench_tool dedup-split "$d/all.raw" "$d/train.raw" "$d/test.raw" 0.2 "$seed" >"$d/dedup.txt"
      say "$set: $(cat "$d/dedup.txt")"
      rm -f "$d/all.raw"
    fi
    if [ "$scale" = 1 ]; then
      svm-scale -l 0 -u 1 -s "$d/range" "$d/train.raw" >"$DATA_TRAIN"
      svm-scale -r "$d/range" "$d/test.raw" >"$DATA_TEST" 2>"$d/scale-test.warnings" || die "$set: svm-scale failed"
      rm -f "$d/train.raw" "$d/test.raw"
    else
      mv "$d/train.raw" "$DATA_TRAIN"; mv "$d/test.raw" "$DATA_TEST"
    fi
    echo "$key" >"$d/stamp"
  fi
  DATA_PREP=""
  [ -z "$src_test" ] && DATA_PREP="duplicates removed ($(awk '{ print $6 " of " $8 " rows" }' "$d/dedup.txt")), then a seeded 80/20 split (SplittableRandom seed $seed) of ${TRAIN_FILE[$set]}; "
  if [ "$scale" = 1 ]; then
    DATA_PREP+="svm-scale -l 0 -u 1 on train, same range file on test (both sides)"
  else
    DATA_PREP+="as distributed, no scaling (--raw), the same file on both sides"
  fi
}

# ------------------------------------------------------------------ self-check
self_check() {
  local fails=0 tmp
  tmp="$(mktemp -d "${TMPDIR:-/tmp}/sodm-bench-check.XXXXXX")"
  ok() { echo "ok: $*"; }
  bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
  skip() { echo "SKIP: $*"; }
  for s in ${ALL_SETS//,/ }; do
    [ -n "${TRAIN_FILE[$s]:-}" ] && [ -n "${PC[$s]:-}" ] && [ -n "${PG[$s]:-}" ] && ok "table: $s C=${PC[$s]} gamma=${PG[$s]}" || bad "table: $s incomplete"
  done
  if [ ! -d "$datasets" ]; then
    skip "data sets: $datasets absent"
  else
    # the split: duplicates removed, deterministic, disjoint, complete, 80/20
    local src="$datasets/${TRAIN_FILE[phishing]}"
    if [ -f "$src" ]; then
      decompress "$src" >"$tmp/all"
      bench_tool dedup-split "$tmp/all" "$tmp/a.tr" "$tmp/a.te" 0.2 1 >/dev/null 2>&1
      bench_tool dedup-split "$tmp/all" "$tmp/b.tr" "$tmp/b.te" 0.2 1 >/dev/null 2>&1
      bench_tool dedup-split "$tmp/all" "$tmp/c.tr" "$tmp/c.te" 0.2 2 >/dev/null 2>&1
      cmp -s "$tmp/a.tr" "$tmp/b.tr" && cmp -s "$tmp/a.te" "$tmp/b.te" && ok "split: same seed, same files" || bad "split: same seed gave different files"
      cmp -s "$tmp/a.te" "$tmp/c.te" && bad "split: another seed gave the same test file" || ok "split: another seed, another split"
      local n ntr nte
      # phishing's values are written identically in every row, so its exact-line duplicates are its duplicates
      n=$(sed 's/^[[:space:]]*//;s/[[:space:]]*$//' "$tmp/all" | grep -v '^$' | sort -u | wc -l); ntr=$(wc -l <"$tmp/a.tr"); nte=$(wc -l <"$tmp/a.te")
      [ $((ntr + nte)) -eq "$n" ] && ok "split: $ntr + $nte = $n unique rows" || bad "split: $ntr + $nte != $n unique rows"
      [ "$nte" -eq $(( (n * 2 + 5) / 10 )) ] && ok "split: 20% test" || bad "split: test rows $nte, expected round(0.2 * $n)"
      if cat "$tmp/a.tr" "$tmp/a.te" | sort | cmp -s - <(sed 's/^[[:space:]]*//;s/[[:space:]]*$//' "$tmp/all" | grep -v '^$' | sort -u); then
        ok "split: train + test = the unique input lines"
      else
        bad "split: train + test differ from the unique input lines"
      fi
      [ -z "$(comm -12 <(sort "$tmp/a.tr") <(sort "$tmp/a.te") | head -n 1)" ] && ok "split: no test row is a training row" || bad "split: a test row is also a training row"
    else
      skip "split: $src absent"
    fi
    # the scaling: [0,1] on train, the same range on test
    src="$datasets/${TRAIN_FILE[svmguide1]}"
    if [ ! -f "$src" ]; then
      skip "scaling: $src absent"
    elif ! command -v svm-scale >/dev/null 2>&1; then
      skip "scaling: svm-scale not installed"
    else
      decompress "$src" >"$tmp/g.tr"; decompress "$datasets/${TEST_FILE[svmguide1]}" >"$tmp/g.te"
      svm-scale -l 0 -u 1 -s "$tmp/g.range" "$tmp/g.tr" >"$tmp/g.tr.s"
      svm-scale -r "$tmp/g.range" "$tmp/g.te" >"$tmp/g.te.s" 2>/dev/null
      local range
      range=$(awk '{ for (i = 2; i <= NF; i++) { split($i, kv, ":"); v = kv[2] + 0; if (lo == "" || v < lo) lo = v; if (hi == "" || v > hi) hi = v } } END { print lo, hi }' "$tmp/g.tr.s")
      awk -v r="$range" 'BEGIN { split(r, x, " "); exit !(x[1] >= 0 && x[2] <= 1 && x[2] > 0.99) }' && ok "scaling: train values in [0,1] ($range)" || bad "scaling: train range $range"
      [ "$(wc -l <"$tmp/g.te.s")" -eq "$(wc -l <"$tmp/g.te")" ] && ok "scaling: test rows kept" || bad "scaling: test rows lost"
      # the range file scales test rows exactly like train rows: scale train with the saved range again
      svm-scale -r "$tmp/g.range" "$tmp/g.tr" | cmp -s - "$tmp/g.tr.s" && ok "scaling: the range file reproduces the train scaling" || bad "scaling: range file mismatch"
    fi
  fi
  # svm-train output parsing on a real run, when LIBSVM is here
  if command -v svm-train >/dev/null 2>&1 && [ -f "$tmp/g.tr.s" ]; then
    svm-train -c 2 -g 2 "$tmp/g.tr.s" "$tmp/g.model" >"$tmp/g.log"
    local parsed
    parsed=$(bench_tool svm-train "$tmp/g.log")
    echo "$parsed" | grep -q '^objective=-[0-9]' && echo "$parsed" | grep -q '^totalSV=[0-9]' && ok "svm-train output parsed ($(echo "$parsed" | tr '\n' ' '))" || bad "svm-train output not parsed: $parsed"
  else
    skip "svm-train parsing: LIBSVM or data absent"
  fi
  rm -rf "$tmp"
  [ "$fails" -eq 0 ] && echo "self-check: all passed" || echo "self-check: $fails failed"
  return "$fails"
}

if [ "$self_check" = 1 ]; then
  ensure_bench_cp
  self_check
  exit $?
fi

if [ -n "$report_only" ]; then
  ensure_bench_cp
  bench_tool report "$report_only"
  cat "$report_only/results.md"
  exit 0
fi

# ------------------------------------------------------------------ tuning (parameters from the training part only)
# tune SET: 5-fold svm-train -v on the prepared TRAINING file over a grid; prints one line per point and the best
tune_set() {
  local set="$1" best="" bestacc=0 c g acc
  prepare "$set"
  say "$set: 5-fold cross-validation on the training part ($(wc -l <"$DATA_TRAIN") rows), the test part unseen"
  for c in 1 8 32; do
    for g in 0.03125 0.125 0.5 2 8 32; do
      acc=$(svm-train -q -v 5 -c "$c" -g "$g" -m "$peer_cache" "$DATA_TRAIN" | sed -n 's/.*Accuracy = \([0-9.]*\)%.*/\1/p')
      echo "$set C=$c gamma=$g cv=$acc%"
      if awk -v a="$acc" -v b="$bestacc" 'BEGIN { exit !(a > b) }'; then bestacc="$acc"; best="C=$c gamma=$g"; fi
    done
  done
  echo "$set best: $best cv=$bestacc% (first of the ties in the order C ascending, gamma ascending)"
}
if [ "$tune" = 1 ]; then
  ensure_tools
  ensure_bench_cp
  for set in ${sets//,/ }; do tune_set "${set%@default}"; done
  exit 0
fi

# ------------------------------------------------------------------ set-up
ensure_tools
export SODM_LOCAL=1
[ -n "$java_opts" ] && export SODM_JAVA_OPTS="$java_opts"
if [ "$build_first" = 1 ]; then
  say "building the jars (mvn -B -o -q -DskipTests package; not timed)"
  (cd "$root" && mvn -B -o -q -DskipTests package) >&2 || die "the build failed"
fi
say "checking the sodm jars (builds them when missing; not timed)"
sodm_version="$("$root/bin/sodm" --version 2>/dev/null | head -n 1)" || die "bin/sodm --version failed"
[ -n "$(jar)" ] || die "no jobs/target/sodm-jobs-*-all.jar after the build"
ensure_bench_cp
# the jar must be the checkout's: same commit, and the same uncommitted changes if any
commit_line=""; commit_rc=0
commit_out="$(bench_tool check-jar "$(jar)" "$root")" || commit_rc=$?
jar_commit="$(echo "$commit_out" | sed -n 's/^commit=//p')"
commit_line="$(echo "$commit_out" | sed -n 's/^check=//p')"
if [ "$commit_rc" -ne 0 ]; then
  [ "$commit_check" = 1 ] && die "refusing to time: $commit_line (--build rebuilds; --no-commit-check times it anyway)"
  say "WARNING: $commit_line (timed anyway: --no-commit-check)"
  commit_line="NOT CHECKED (--no-commit-check): $commit_line"
else
  say "$commit_line"
fi

stamp="$(date +%Y%m%d-%H%M%S)"
[ -z "$out" ] && out="$root/bench/results/$stamp"
mkdir -p "$out/runs" "$out/sets" "$scratch"
out="$(cd "$out" && pwd)"

variants=()
declare -A VOPTS
for m in "${modes[@]}"; do
  if [[ "$m" == *=* ]]; then name="${m%%=*}"; VOPTS[$name]="--loss hinge ${m#*=}"
  elif [ -n "${MODE_PRESET[$m]+x}" ]; then name="$m"; VOPTS[$name]="--loss hinge ${MODE_PRESET[$m]}"
  else die "unknown mode '$m' (presets: ${!MODE_PRESET[*]}; or NAME=OPTS)"; fi
  variants+=("$name")
done
if [ "$odm" = 1 ]; then variants+=(odm); VOPTS[odm]="--loss odm $odm_opts"; fi

git_commit="${jar_commit:-unknown}"
{
  echo "timestamp=$(date '+%Y-%m-%d %H:%M:%S %Z')"
  echo "host=$(hostname)"
  echo "cpus=$(nproc)"
  echo "cpu_model=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)"
  echo "mem=$(awk '/MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo 2>/dev/null)"
  echo "load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
  echo "sodm_version=$sodm_version"
  echo "sodm_commit=$git_commit"
  echo "commit_check=$commit_line"
  echo "java=$(java -version 2>&1 | head -n 1)"
  echo "java_opts=${SODM_JAVA_OPTS:--Xmx3g (bin/sodm default)}"
  echo "libsvm=LIBSVM $(dpkg-query -W -f '${Version}' libsvm-tools 2>/dev/null || echo '?') (svm-train -m $peer_cache)"
  echo "pairs=$pairs"
  echo "sets=$sets"
  echo "variants=$(IFS=,; echo "${variants[*]}")"
  echo "order=per set, odd pairs: $(printf 'sodm %s (train, predict), ' "${variants[@]}")then svm-train, svm-predict; even pairs: the peer first"
  echo "seed=$seed"
  echo "validation=$([ "$validate" = 1 ] && echo yes || echo no)"
  echo "command=$invocation"
} >"$out/config.txt"
say "output: $out"

models="$scratch/models"
mkdir -p "$models"

run_ours() { # SET VARIANT PAIR TRAIN TEST OPTS
  local set="$1" v="$2" pair="$3" train="$4" test="$5" opts="$6"
  local dir="$out/runs/$set/$v/pair-$pair" model="$models/$set-$v" pred="$models/$set-$v.pred"
  mkdir -p "$dir"; rm -rf "$model" "$pred"
  local val=()
  [ "$validate" = 1 ] && val=(--validation "$test")
  local tcmd="bin/sodm train -i $train ${val[*]:-} -o $model $opts"
  local pcmd="bin/sodm predict -m $model -i $test -o $pred"
  { echo "set=$set"; echo "variant=$v"; echo "side=ours"; echo "pair=$pair"; echo "sodm_opts=$opts"
    echo "train_cmd=$tcmd"; echo "predict_cmd=$pcmd"; echo "first=$first"; } >"$dir/meta.txt"
  say "$set pair $pair: sodm $v ..."
  # shellcheck disable=SC2086
  timed "$dir/meta.txt" train "$dir/train.log" "$root/bin/sodm" train -i "$train" ${val[@]+"${val[@]}"} -o "$model" $opts
  cp "$model/train-report.json" "$dir/" 2>/dev/null || true
  if grep -q '^train_exit=0$' "$dir/meta.txt"; then
    timed "$dir/meta.txt" predict "$dir/predict.log" "$root/bin/sodm" predict -m "$model" -i "$test" -o "$pred"
    cp "$pred/metrics.json" "$dir/" 2>/dev/null || true
    [ "$pair" = 1 ] && "$root/bin/sodm" inspect "$model" >"$dir/inspect.txt" 2>&1 || true
  else
    echo "predict_exit=skipped" >>"$dir/meta.txt"
    say "$set pair $pair: sodm $v FAILED (see $dir/train.log)"
  fi
  say "$set pair $pair: sodm $v $(grep -E '^(train|predict)_seconds' "$dir/meta.txt" | tr '\n' ' ')"
  [ "$keep_models" = 1 ] || rm -rf "$model" "$pred"
}

run_peer() { # SET PAIR TRAIN TEST
  local set="$1" pair="$2" train="$3" test="$4"
  local dir="$out/runs/$set/libsvm/pair-$pair" model="$models/$set.libsvm-model"
  mkdir -p "$dir"; rm -f "$model"
  local targs=(-c "${PC[$set]}" -g "${PG[$set]}" -m "$peer_cache")
  { echo "set=$set"; echo "variant=libsvm"; echo "side=peer"; echo "pair=$pair"
    echo "train_cmd=svm-train ${targs[*]} $train $model"; echo "predict_cmd=svm-predict $test $model $model.out"; echo "first=$first"; } >"$dir/meta.txt"
  say "$set pair $pair: svm-train ..."
  timed "$dir/meta.txt" train "$dir/train.log" svm-train "${targs[@]}" "$train" "$model"
  if grep -q '^train_exit=0$' "$dir/meta.txt"; then
    timed "$dir/meta.txt" predict "$dir/predict.log" svm-predict "$test" "$model" "$model.out"
  else
    echo "predict_exit=skipped" >>"$dir/meta.txt"
  fi
  say "$set pair $pair: svm-train $(grep -E '^(train|predict)_seconds' "$dir/meta.txt" | tr '\n' ' ')"
  rm -f "$model" "$model.out"
}

# ------------------------------------------------------------------ the data sets
if [ -n "$sets" ]; then
  for set in ${sets//,/ }; do
    [ -n "${TRAIN_FILE[${set%@default}]:-}" ] || die "unknown set '$set' (known: $ALL_SETS, each also as SET@default)"
  done
  for set in ${sets//,/ }; do
    prepare "${set%@default}"
    if [[ "$set" == *@default ]]; then
      # LIBSVM's defaults: C = 1, gamma = 1 / (largest feature index of the training file), as svm-train computes it
      dim=$(awk '{ for (i = 2; i <= NF; i++) { split($i, a, ":"); if (a[1] + 0 > m) m = a[1] + 0 } } END { print m + 0 }' "$DATA_TRAIN")
      [ "$dim" -gt 0 ] || die "$set: no features in $DATA_TRAIN"
      PC[$set]=1; PG[$set]=$(awk -v d="$dim" 'BEGIN { printf "%.17g", 1 / d }')
      NOTE[$set]="LIBSVM's defaults: C = 1, gamma = 1/$dim (the training file's largest feature index)"
    fi
    ntr=$(wc -l <"$DATA_TRAIN"); nte=$(wc -l <"$DATA_TEST")
    {
      echo "set=$set"
      echo "train_rows=$ntr"
      echo "test_rows=$nte"
      echo "c=${PC[$set]}"
      echo "gamma=${PG[$set]}"
      echo "params_note=${NOTE[$set]:-}"
      echo "peer_cmd=svm-train -c ${PC[$set]} -g ${PG[$set]} -m $peer_cache TRAIN MODEL; svm-predict TEST MODEL OUT"
      echo "prep=$DATA_PREP"
      echo "train_file=$DATA_TRAIN"
      echo "test_file=$DATA_TEST"
      echo "train_sha256=$(sha256sum "$DATA_TRAIN" | cut -c1-16)"
      echo "test_sha256=$(sha256sum "$DATA_TEST" | cut -c1-16)"
    } >"$out/sets/$set.txt"
    for pair in $(seq 1 "$pairs"); do
      # alternate which side runs first: odd pairs ours then the peer, even pairs the peer then ours
      first=ours; [ $((pair % 2)) = 0 ] && first=peer
      [ "$first" = peer ] && run_peer "$set" "$pair" "$DATA_TRAIN" "$DATA_TEST"
      for v in "${variants[@]}"; do
        if [ "$v" = odm ]; then p="-g ${PG[$set]}"; else p="-c ${PC[$set]} -g ${PG[$set]}"; fi
        run_ours "$set" "$v" "$pair" "$DATA_TRAIN" "$DATA_TEST" "$(echo ${VOPTS[$v]} $p $sodm_opts)"
      done
      [ "$first" = ours ] && run_peer "$set" "$pair" "$DATA_TRAIN" "$DATA_TEST"
    done
  done
fi

# ------------------------------------------------------------------ the scaling series
if [ -n "$scaling" ]; then
  sd="$scratch/scaling"; mkdir -p "$sd" "$out/scaling"
  # shellcheck disable=SC2086
  gen() { "$root/bin/sodm" generate -o "$1" --rows "$2" --seed "$3" $scaling_gen --overwrite >&2; }
  test_file="$sd/test-$scaling_test-$(echo "$scaling_gen" | tr -c 'a-zA-Z0-9.' '_').libsvm"
  [ -f "$test_file" ] || gen "$test_file" "$scaling_test" 2
  {
    echo "generate=sodm generate --rows N --seed 1 $scaling_gen"
    echo "test_rows=$scaling_test"
    echo "block_rows=$block_rows"
    echo "sodm_opts=$scaling_opts $sodm_opts"
    echo "sizes=$scaling"
  } >"$out/scaling/scaling.txt"
  for rep in $(seq 1 "$pairs"); do
    for n in ${scaling//,/ }; do
      f="$sd/train-$n-$(echo "$scaling_gen" | tr -c 'a-zA-Z0-9.' '_').libsvm"
      [ -f "$f" ] || gen "$f" "$n" 1
      k=$(( (n + block_rows - 1) / block_rows ))
      dir="$out/scaling/$n/rep-$rep"; model="$models/scaling-$n"
      mkdir -p "$dir"; rm -rf "$model"
      opts="$scaling_opts --partitions $k $sodm_opts"
      { echo "set=synthetic-$n"; echo "variant=scaling"; echo "side=ours"; echo "pair=$rep"; echo "rows=$n"; echo "partitions=$k"
        echo "block_rows=$block_rows"; echo "sodm_opts=$opts"; echo "train_cmd=bin/sodm train -i $f --validation $test_file -o $model $opts"; } >"$dir/meta.txt"
      say "scaling $n rows (K=$k) rep $rep ..."
      # shellcheck disable=SC2086
      timed "$dir/meta.txt" train "$dir/train.log" "$root/bin/sodm" train -i "$f" --validation "$test_file" -o "$model" $opts
      echo "predict_exit=skipped" >>"$dir/meta.txt"
      cp "$model/train-report.json" "$dir/" 2>/dev/null || true
      say "scaling $n rows: $(grep -E '^train_(seconds|exit)' "$dir/meta.txt" | tr '\n' ' ')"
      [ "$keep_models" = 1 ] || rm -rf "$model"
    done
  done
fi

echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)" >>"$out/config.txt"
bench_tool report "$out" >&2
cat "$out/results.md"
say "results: $out/results.md, results.json, *.png"
