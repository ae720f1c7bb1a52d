#!/usr/bin/env bash
# Builds the perf module and runs the in-memory JMH micro-benchmarks (CodecBenchmark,
# PartitionerBenchmark, and client-java's ClientCodecBenchmark, which brook-perf.jar bundles), then
# prints Brook vs Kafka (kafka-clients 4.3.1) and their ratio.
#
#   perf/run-micro-bench.sh                        # full run (~5 min on 2 cores)
#   perf/run-micro-bench.sh -p recordSize=100      # extra arguments go to JMH
#   RESULTS=perf/results/x.json perf/run-micro-bench.sh ...   # another result file
#
# The benchmarks run under flock on $BENCH_LOCK (default /tmp/brook-bench.lock), so they never overlap
# another benchmark that takes the same lock; it may wait. JAVA=... picks the JVM.
set -euo pipefail
cd "$(dirname "$0")/.."

JAVA="${JAVA:-java}"
RESULTS="${RESULTS:-perf/results/micro.json}"
BENCH_LOCK="${BENCH_LOCK:-/tmp/brook-bench.lock}"

./mvnw -B -q -DskipTests package -pl perf -am
mkdir -p perf/results

echo "== waiting for $BENCH_LOCK"
flock "$BENCH_LOCK" bash -c '
  echo "== machine: $(nproc) cores, $("$1" -version 2>&1 | head -1); $(date -u +"%Y-%m-%d %H:%M UTC")"
  echo "== load before: $(uptime)"
  "$1" -jar perf/target/brook-perf.jar "Codec|Partitioner" -rf json -rff "$2" "${@:3}"
  echo "== load after:  $(uptime)"
' micro-bench "$JAVA" "$RESULTS" "$@"
echo
echo "== Brook vs Kafka (records/s for the codec, keys/s for the partitioner) — $RESULTS"
python3 perf/micro_table.py "$RESULTS"
