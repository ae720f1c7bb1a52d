#!/usr/bin/env bash
# The Go client's produce throughput beside the Java client's, in the same run
# against the same broker (issue 8's figures): starts a real broker (bin/brook
# broker) on a temporary data directory and a free loopback port, then for
# 100 B and 1 KiB records, with Kafka's default batch (16 KiB) and with 256 KiB
# batches (linger 5 ms, 3 partitions, keyless, idempotent, WRITTEN), runs the
# Java client's ClientPerf and the Go client's perf/go, one after the other,
# and prints the ratio Go / Java of records/s.
#   perf/run-go-client.sh [records]     (default 1000000; 1 KiB runs send a fifth as many)
# The JSON lines go to stdout (Go's carry "client":"go").
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
./mvnw -B -q -DskipTests package
records="${1:-1000000}"
work="$(mktemp -d)"
trap 'kill "${BROKER_PID:-}" 2>/dev/null; wait "${BROKER_PID:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
go -C perf/go build -o "$work/goperf" .
start_broker "$work"
port=$BROKER_PORT
echo "== machine: $(nproc) cores, $(go version), $(java -version 2>&1 | head -1); load: $(uptime | sed 's/.*load/load/')"
rate() { sed -n 's/.*"records_per_s":\([0-9]*\).*/\1/p' | tail -n1; }
compare() { # size records batch
  local label="$2 x $1 B, batch $3 B, linger 5 ms" java go
  echo "-- Java: $label"
  java_out="$(java -cp perf/target/brook-perf.jar io.brook.perf.ClientPerf --broker "127.0.0.1:$port" \
    --topic "java-$1-$3" --record-size "$1" --records "$2" --batch-size "$3" --linger-ms 5)"
  echo "$java_out"
  echo "-- Go: $label"
  go_out="$("$work/goperf" -broker "127.0.0.1:$port" -topic "go-$1-$3" -record-size "$1" -records "$2" \
    -batch-size "$3" -linger 5ms)"
  echo "$go_out"
  java="$(rate <<<"$java_out")"
  go="$(rate <<<"$go_out")"
  awk -v g="$go" -v j="$java" -v l="$label" 'BEGIN { printf "== ratio Go/Java, %s: %.2f (Go %d, Java %d records/s)\n", l, g / j, g, j }'
}
compare 100 "$records" 16384
compare 100 "$records" 262144
compare 1024 $((records / 5)) 16384
compare 1024 $((records / 5)) 262144
