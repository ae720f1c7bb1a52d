#!/usr/bin/env bash
# Recovery time: fills a broker with RECORDS x 100 B over PARTITIONS partitions (ProduceDriver),
# stops it, starts it again on the same data and prints the broker's own recovery line and the
# wall time from process start to "Brook ready" (JVM start included).
#   perf/run-recovery.sh [records=10000000] [partitions=3]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
records="${1:-10000000}" partitions="${2:-3}"
./mvnw -B -q -DskipTests package
work="$(mktemp -d)"
port="$(free_port)"
pid=""
trap '[[ -n "$pid" ]] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT
start() {
  local t0; t0=$(date +%s%N)
  bin/brook broker --data-dir "$work/data" --grpc-listen "127.0.0.1:$port" --http-listen 127.0.0.1:0 --set kafka.listen= >"$work/broker.log" 2>&1 &
  pid=$!
  wait_ready "$work/broker.log" $pid
  echo "start to ready: $(( ($(date +%s%N) - t0) / 1000000 )) ms; $(grep -o 'Recovered.*' "$work/broker.log")"
}
start
java -cp perf/target/brook-perf.jar io.brook.perf.ProduceDriver "127.0.0.1:$port" "$records" 100 1000 8 "$partitions"
echo "data: $(du -sh "$work/data" | cut -f1) on disk"
kill $pid; wait $pid 2>/dev/null || true
start
kill -9 $pid; wait $pid 2>/dev/null || true
echo "after kill -9:"
start
