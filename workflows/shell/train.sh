#!/usr/bin/env bash
# sodm train as a shell workflow: the pipeline's phases one process each, in order
# (ingest, validation, landmarks, level-N ... level-1, model), every step `sodm train ARGS --phase NAME`
# with the same ARGS.
#
#   workflows/shell/train.sh [generic Hadoop options] -i INPUT -o OUTPUT [sodm train options]
#
# - With a `hadoop` command on the PATH (or $HADOOP), each step is
#   `hadoop jar $SODM_JAR train ...` (the jar's manifest names org.sodm.cli.SodmMain; SODM_JAR defaults to
#   jobs/target/sodm-jobs-*-cluster.jar); without one, `bin/sodm train ...` (local mode, or a
#   cluster through -fs/-jt); $SODM names another launcher.
# - Stops at the first failing phase and exits with its exit status.
# - Run it again with the same arguments to resume: the phases complete in OUTPUT/work (listed by
#   the first step) are skipped, and the run continues from the last complete phase.
# Generic options (-D k=v, -fs URI, -jt HOST:PORT, -conf FILE) must come first, as for sodm itself.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

if [ $# -eq 0 ] || [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit 0
fi
for a in "$@"; do
  case "$a" in
    --phase|--phase=*) echo "train.sh: do not pass --phase: the script runs every phase" >&2; exit 2 ;;
  esac
done

hadoop_cmd="${HADOOP:-hadoop}"
if [ -z "${SODM:-}" ] && command -v "$hadoop_cmd" >/dev/null 2>&1; then
  jar="${SODM_JAR:-$(ls "$root"/jobs/target/sodm-jobs-*-cluster.jar 2>/dev/null | head -n 1)}"
  if [ -z "$jar" ] || [ ! -f "$jar" ]; then
    echo "train.sh: no cluster jar (set SODM_JAR, or build it: mvn -B -DskipTests package)" >&2
    exit 2
  fi
  # the cluster jar's manifest names the main class (org.sodm.cli.SodmMain): RunJar takes it from there
  launcher=("$hadoop_cmd" jar "$jar")
else
  read -r -a launcher <<< "${SODM:-$root/bin/sodm}"
fi

log="$(mktemp "${TMPDIR:-/tmp}/sodm-train.XXXXXX")"
trap 'rm -f "$log"' EXIT

# run_phase NAME: one step; its output goes to the terminal and to $log
run_phase() {
  echo "train.sh: phase $1: ${launcher[*]} train ${args[*]} --phase $1" >&2
  "${launcher[@]}" train "${args[@]}" --phase "$1" 2>&1 | tee "$log"
  return "${PIPESTATUS[0]}"
}

args=("$@")
started=$(date +%s)
run_phase ingest
rc=$?
if [ $rc -ne 0 ]; then
  echo "train.sh: phase ingest failed (exit $rc); fix the cause and run the same command again to resume" >&2
  exit $rc
fi
# "sodm train: phases: ingest=done validation=todo landmarks=todo level-2=todo level-1=todo model=todo"
phases="$(grep -o 'phases: .*' "$log" | tail -n 1 | sed 's/^phases: //')"
if [ -z "$phases" ]; then
  echo "train.sh: the ingest step did not list the phases (is this sodm with --phase?)" >&2
  exit 3
fi
for entry in $phases; do
  name="${entry%%=*}"
  state="${entry#*=}"
  [ "$name" = ingest ] && continue
  if [ "$state" = done ]; then
    echo "train.sh: phase $name: complete, skipped" >&2
    continue
  elif [ "$state" = none ]; then
    echo "train.sh: phase $name: not part of this run" >&2
    continue
  fi
  run_phase "$name"
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "train.sh: phase $name failed (exit $rc); the phases before it are complete; run the same command again to resume" >&2
    exit $rc
  fi
done
echo "train.sh: all phases complete in $(( $(date +%s) - started )) s" >&2
