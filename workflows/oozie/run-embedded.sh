#!/usr/bin/env bash
# Watch the train workflow run on an embedded Oozie, with no Oozie server or Hadoop installed:
#
#   workflows/oozie/run-embedded.sh [key=value ...]
#
# Starts HDFS + YARN (MiniDFSCluster, MiniMRYarnCluster) and Oozie's own workflow engine
# (LocalOozie, oozie-core 5.2.1) in one JVM, deploys workflows/oozie/train unchanged with sodm's
# cluster jar in lib/, puts sample-data/svmguide1 and svmguide1.t into HDFS and runs the workflow
# with workflows/oozie/train/job.properties (the cluster's addresses put in; key=value arguments
# override its properties, e.g. partitions=8 fanout=2). Prints each action's name and final state
# as the run goes, the workflow's final status, the YARN applications it started and where the
# model is (also copied to oozie-it/target/run-embedded/model). Exits 0 only when the workflow
# SUCCEEDED. Takes a few minutes on 2 cores (every launcher and task is a container JVM).
# Builds what it needs first (mvn -B -q -DskipTests package; add MVN_OFFLINE=1 for -o).
# The test class oozie-it/.../WorkflowsOnOozieTest runs the same set-up in `mvn verify`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit 0
fi
offline=()
[ "${MVN_OFFLINE:-0}" = 1 ] && offline=(-o)
echo "run-embedded: building (mvn -B -q ${offline[*]} -DskipTests package -pl common,jobs,oozie-it) ..." >&2
(cd "$root" && mvn -B -q "${offline[@]}" -DskipTests package -pl common,jobs,oozie-it) >&2
it="$root/oozie-it/target"
if [ ! -f "$it/test.classpath" ] || [ ! -d "$it/test-classes" ]; then
  echo "run-embedded: $it/test.classpath or test-classes missing after the build" >&2
  exit 2
fi
cp="$it/test-classes:$root/jobs/target/classes:$root/common/target/classes:$(cat "$it/test.classpath")"
# the JVM flags of the tests (HADOOP-NOTES item 6); the project dir for the workflow files and the jar
exec java -Xmx2g --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED \
  --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED \
  --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
  -Dsodm.project.dir="$root" -Dhadoop.tmp.dir="$it/run-embedded-tmp" \
  -cp "$cp" org.sodm.oozie.RunEmbedded "$it/run-embedded" "$@"
