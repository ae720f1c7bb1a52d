#!/usr/bin/env bash
# The Java client's produce throughput (issue 7's figures): starts a real broker (bin/brook broker) on
# a temporary data directory and a free loopback port, then runs ClientPerf (one producer, maximum
# rate, keyless records, 3 partitions, no compression) for 100 B and 1 KiB records, each with Kafka's
# default batching (batch.size 16384, linger.ms 5) and with 256 KiB batches (those then read back through
# the client's consumer, for its rate). The performance issue's
# harness runs Kafka's kafka-producer-perf-test with the same settings.
#   perf/run-client.sh [records]        (default 1000000; 1 KiB runs send a fifth as many)
# Extra settings through env: CLIENT_PERF_ARGS="--linger-ms 10" etc.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
./mvnw -B -q -DskipTests package
records="${1:-1000000}"
work="$(mktemp -d)"
trap 'kill "${BROKER_PID:-}" 2>/dev/null; wait "${BROKER_PID:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
start_broker "$work"
port=$BROKER_PORT
echo "== machine: $(nproc) cores, $(java -version 2>&1 | head -1); load: $(uptime | sed 's/.*load/load/')"
run() { # label size records batch
  echo "-- $1: $3 x $2 B, batch.size $4, linger.ms 5"
  java -cp perf/target/brook-perf.jar io.brook.perf.ClientPerf --broker "127.0.0.1:$port" --topic "t-$2-$4" \
    --record-size "$2" --records "$3" --batch-size "$4" --linger-ms 5 ${CLIENT_PERF_ARGS:-}
}
echo "-- reference: the raw stub driver (no client), batches of 1000 records, 8 in flight"
java -cp perf/target/brook-perf.jar io.brook.perf.ProduceDriver "127.0.0.1:$port" "$records" 100
run "100 B, Kafka's default batch" 100 "$records" 16384
CLIENT_PERF_ARGS="${CLIENT_PERF_ARGS:-} --consume" run "100 B, 256 KiB batches, then consumed" 100 "$records" 262144
run "1 KiB, Kafka's default batch" 1024 $((records / 5)) 16384
CLIENT_PERF_ARGS="${CLIENT_PERF_ARGS:-} --consume" run "1 KiB, 256 KiB batches, then consumed" 1024 $((records / 5)) 262144
