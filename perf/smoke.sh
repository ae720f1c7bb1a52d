#!/usr/bin/env bash
# Runs every JMH benchmark once, briefly (one 200 ms iteration, smallest parameters), so a broken
# benchmark is found by `make test`, not by the next person who needs figures. It checks that each
# benchmark ran and produced a score; it asserts no timing (figures come from run-storage-bench.sh).
# Then a tiny AckDriver run (2,000 records, no warm-up) against a broker of its own: it must see
# every offset acked exactly once (figures come from run-ack.sh); and a tiny ClientPerf run (5,000
# records through the Java client's producer and consumer; figures come from run-client.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
jar=perf/target/brook-perf.jar
[[ -f "$jar" ]] || ./mvnw -B -q -DskipTests package -pl perf -am
. scripts/lib.sh
out="$(mktemp)"
work="$(mktemp -d)"
pid=""
trap 'rm -f "$out"; if [[ -n "$pid" ]]; then kill $pid 2>/dev/null; wait $pid 2>/dev/null || true; fi; rm -rf "$work"' EXIT
java -jar "$jar" -wi 0 -i 1 -r 200ms -p recordSize=100 -p batchSize=1 -rf json -rff "$out" >/dev/null 2>&1 || true
passed=0 failed=0
for bench in $(java -jar "$jar" -l | tail -n +2); do
  if python3 -c "import json,sys; r=[x for x in json.load(open('$out')) if x['benchmark']=='$bench']; sys.exit(0 if r and r[0]['primaryMetric']['score'] > 0 else 1)" 2>/dev/null; then
    passed=$((passed + 1)); echo "perf-smoke: ok   $bench"
  else
    failed=$((failed + 1)); echo "perf-smoke: FAIL $bench (no score: it did not run)"
  fi
done
port="$(free_port)"
bin/brook broker --data-dir "$work/data" --grpc-listen "127.0.0.1:$port" --http-listen 127.0.0.1:0 --set kafka.listen= >"$work/broker.log" 2>&1 &
pid=$!
if wait_ready "$work/broker.log" $pid && java -cp "$jar" io.brook.perf.AckDriver "127.0.0.1:$port" --records=2000 \
    --warmup=0 --timeout=60 >"$work/ack.log" 2>&1; then
  passed=$((passed + 1)); echo "perf-smoke: ok   AckDriver ($(sed -n 's/^ack-driver: \(.*records\/s\).*/\1/p' "$work/ack.log"))"
else
  failed=$((failed + 1)); echo "perf-smoke: FAIL AckDriver"; cat "$work/ack.log"; tail -n 40 "$work/broker.log"
fi
# The Java client's driver: a few thousand records produced and read back; it fails on any failed record.
if java -cp "$jar" io.brook.perf.ClientPerf --broker "127.0.0.1:$port" --records 5000 --warmup-records 0 \
    --consume >"$work/client.log" 2>&1 && grep -q "^5000 records consumed" "$work/client.log"; then
  passed=$((passed + 1)); echo "perf-smoke: ok   ClientPerf ($(grep -c . "$work/client.log") lines, 5000 records sent and consumed)"
else
  failed=$((failed + 1)); echo "perf-smoke: FAIL ClientPerf"; cat "$work/client.log"
fi
echo "perf-smoke: $passed passed, $failed failed"
(( failed == 0 && passed > 0 ))
