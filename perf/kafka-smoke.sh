#!/usr/bin/env bash
# Proves the Kafka peer (perf/kafka.sh) works, in seconds: resolves Kafka 4.3.1 (once; cached), starts
# a KRaft combined node in a temporary directory, produces 50,000 records of 100 B with Kafka's own
# ProducerPerformance (acks=all, no throttling, batch.size 16384, linger.ms 5, no compression), reads
# them back with ConsumerPerformance (a consumer group) and with ShareConsumerPerformance (a share
# group, KIP-932, whose share.auto.offset.reset is set to earliest first), then stops the node and
# checks nothing is left running. It asserts counts, not timing: the figures are printed for a person.
#   perf/kafka-smoke.sh [records]     (default 50000)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. perf/kafka.sh
STEP=kafka-smoke
records="${1:-50000}"
work="$(mktemp -d)"
trap 'kafka_stop "$work" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
passed=0 failed=0

# consumed FILE COLUMN: the records, records/s and MB/s a *ConsumerPerformance run reports (the CSV column named COLUMN).
consumed() {
  python3 - "$1" "$2" <<'EOF'
import sys
lines = [l.strip() for l in open(sys.argv[1]) if l.strip()]
head = next(i for i, l in enumerate(lines) if l.startswith("start.time"))
cols = [c.strip() for c in lines[head].split(",")]
vals = [v.strip() for v in lines[head + 1].split(",")]
row = dict(zip(cols, vals))
print(int(row[sys.argv[2]]), row.get("nMsg.sec", "?"), row.get("MB.sec", "?"))
EOF
}

check "Kafka $KAFKA_VERSION resolved, no other Kafka version in $KAFKA_LIBS" kafka_resolve
if ! kafka_start "$work" >"$work/start.out" 2>&1; then
  failed=$((failed + 1)); echo "$STEP: FAIL start a KRaft combined node"; cat "$work/start.out"
  echo "$STEP: $passed passed, $failed failed"
  exit 1
fi
. "$work/kafka.env"
passed=$((passed + 1)); echo "$STEP: ok   started: $KAFKA_BOOTSTRAP, ready in $KAFKA_READY_MS ms (from the server JVM launch)"
echo "== machine: $(nproc) cores, $(java -version 2>&1 | head -1); load: $(uptime | sed 's/.*load/load/')"

check "topic perf created (3 partitions)" kafka_run org.apache.kafka.tools.TopicCommand \
  --bootstrap-server "$KAFKA_BOOTSTRAP" --create --topic perf --partitions 3 --replication-factor 1 >/dev/null

if kafka_run org.apache.kafka.tools.ProducerPerformance --bootstrap-server "$KAFKA_BOOTSTRAP" --topic perf \
    --num-records "$records" --record-size 100 --throughput -1 \
    --command-property acks=all batch.size=16384 linger.ms=5 compression.type=none >"$work/produce.log" 2>&1 \
    && grep -q "^$records records sent" "$work/produce.log"; then
  passed=$((passed + 1)); echo "$STEP: ok   ProducerPerformance: $(grep "^$records records sent" "$work/produce.log")"
else
  failed=$((failed + 1)); echo "$STEP: FAIL ProducerPerformance"; cat "$work/produce.log"
fi

if kafka_run org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$KAFKA_BOOTSTRAP" --topic perf \
    --group smoke-consumer --num-records "$records" --timeout 30000 >"$work/consume.log" 2>&1 \
    && read -r n rate mbs < <(consumed "$work/consume.log" data.consumed.in.nMsg) && (( n == records )); then
  passed=$((passed + 1)); echo "$STEP: ok   ConsumerPerformance: $n records, $rate records/s, $mbs MB/s"
else
  failed=$((failed + 1)); echo "$STEP: FAIL ConsumerPerformance"; cat "$work/consume.log"
fi

# A share group reads nothing already in the topic unless its share.auto.offset.reset (a GROUP config,
# set through Admin incrementalAlterConfigs) is earliest.
if kafka_share_group_earliest smoke-share >"$work/share-config.log" 2>&1 \
    && kafka_run org.apache.kafka.tools.ShareConsumerPerformance --bootstrap-server "$KAFKA_BOOTSTRAP" --topic perf \
      --group smoke-share --num-records "$records" --timeout 30000 >"$work/share.log" 2>&1 \
    && read -r n rate mbs < <(consumed "$work/share.log" data.consumed.in.nMsg) && (( n == records )); then
  passed=$((passed + 1)); echo "$STEP: ok   ShareConsumerPerformance (share group, 1 consumer): $n records, $rate records/s, $mbs MB/s"
else
  failed=$((failed + 1)); echo "$STEP: FAIL ShareConsumerPerformance"; cat "$work/share-config.log" "$work/share.log"
fi

pid=$KAFKA_PID
check "stopped (SIGTERM), nothing left running" kafka_stop "$work"
if kill -0 "$pid" 2>/dev/null; then
  failed=$((failed + 1)); echo "$STEP: FAIL pid $pid still exists after stop"
fi
echo "$STEP: $passed passed, $failed failed"
(( failed == 0 && passed > 0 ))
