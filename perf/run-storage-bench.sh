#!/usr/bin/env bash
# Builds the perf module and runs the storage JMH benchmarks (StorageAppendBenchmark,
# StorageReadBenchmark), then prints Brook vs raw Chronicle records/s and their ratio.
#
#   perf/run-storage-bench.sh                 # full run (~3 min on 2 cores)
#   perf/run-storage-bench.sh -p recordSize=100   # extra arguments go to JMH
#   RESULTS=perf/results/x.json perf/run-storage-bench.sh ...   # another result file
#
# The JMH forks get the Chronicle JVM flags from @Fork(jvmArgsAppend) in the benchmarks.
# Trials write under java.io.tmpdir; to put them elsewhere: -jvmArgsPrepend -Dbrook.bench.dir=DIR
# (not -jvmArgsAppend, which would replace the Chronicle flags). JAVA=... picks the JVM.
set -euo pipefail
cd "$(dirname "$0")/.."

JAVA="${JAVA:-java}"
RESULTS="${RESULTS:-perf/results/storage.json}"

./mvnw -B -q -DskipTests package -pl perf -am
mkdir -p perf/results

echo "== machine: $(nproc) cores, $("$JAVA" -version 2>&1 | head -1)"
echo "== load before: $(uptime)"
"$JAVA" -jar perf/target/brook-perf.jar 'Storage.*' -rf json -rff "$RESULTS" "$@"
echo "== load after:  $(uptime)"
echo
echo "== records/s, Brook vs raw Chronicle (goal: Brook >= 50 % of raw) — $RESULTS"
python3 perf/storage_table.py "$RESULTS"
