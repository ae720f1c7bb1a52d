#!/usr/bin/env bash
# End-to-end produce figures: starts a real broker (bin/brook broker) on a temporary data directory
# and a free loopback port, then measures
#   1. the Java driver: 1,000,000 x 100 B over one produce stream (batches of 1000, 8 in flight)
#   2. the CLI: seq 1 1000000 | bin/brook produce (JVM start included)
# and stops the broker. Extra arguments go to the driver (records size batch inflight partitions).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
./mvnw -B -q -DskipTests package
work="$(mktemp -d)"
trap 'kill "${BROKER_PID:-}" 2>/dev/null; wait "${BROKER_PID:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
start_broker "$work"
port=$BROKER_PORT
echo "== machine: $(nproc) cores, $(java -version 2>&1 | head -1); load: $(uptime | sed 's/.*load/load/')"
java -cp perf/target/brook-perf.jar io.brook.perf.ProduceDriver "127.0.0.1:$port" "${@:-1000000}"
export BROOK_BROKER="127.0.0.1:$port"
bin/brook topic create cli --partitions 3 >/dev/null
start=$(date +%s.%N)
seq 1 1000000 | bin/brook produce cli 2>/dev/null
end=$(date +%s.%N)
python3 -c "s=$end-$start; print(f'cli: seq 1 1000000 | brook produce (3 partitions): {s:.2f} s, {1e6/s:.0f} records/s')"
