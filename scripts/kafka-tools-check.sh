#!/usr/bin/env bash
# Kafka's own command-line tools (kafka-tools 4.3.1, the main classes behind kafka-topics.sh,
# kafka-console-producer.sh and kafka-console-consumer.sh) against any Kafka bootstrap address: Brook's
# Kafka listener or Apache Kafka (perf/kafka.sh start). They run through `perf/kafka.sh run CLASS`, which
# resolves the jars from Maven Central once (cached in $BROOK_CACHE, default $HOME/.cache/brook).
#
#   scripts/kafka-tools-check.sh BOOTSTRAP [RECORDS]     RECORDS default 100
#
# Checks, each one line "kafka-tools-check: ok|FAIL ...":
#   TopicCommand --create (3 partitions), --describe (3 partitions listed), --list, --delete (gone)
#   ConsoleProducer reading RECORDS lines from stdin into partition 0 of a 1-partition topic
#   ConsoleConsumer --partition 0 --offset earliest --max-messages RECORDS: the same lines, in order
# No consumer group is used (ConsoleConsumer with --partition assigns). Ends with
# "kafka-tools-check: N passed, N failed". Each tool run is bounded by TOOLS_TIMEOUT s (default 120).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STEP=kafka-tools-check
. "$ROOT/scripts/lib.sh"

[[ $# -ge 1 && $# -le 2 ]] || { echo "usage: $0 BOOTSTRAP [RECORDS]" >&2; exit 2; }
BOOTSTRAP=$1
RECORDS=${2:-100}
TIMEOUT=${TOOLS_TIMEOUT:-120}
PREFIX="tools-check-$(date +%s)-$$"
passed=0 failed=0
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$ROOT/perf/kafka.sh" resolve >/dev/null
echo "$STEP: Kafka 4.3.1's tools against $BOOTSTRAP"

# tool CLASS ARGS...: the tool's stdout in $work/out, stderr in $work/err (shown when a check fails)
tool() { timeout "$TIMEOUT" "$ROOT/perf/kafka.sh" run "$@" >"$work/out" 2>"$work/err"; }
topics() { tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" "$@"; }
show() { sed "s/^/    /" "$work/out" "$work/err" | head -n 20; }

create() { topics --create --topic "$PREFIX-admin" --partitions 3 || { show; return 1; }; grep -q "Created topic $PREFIX-admin" "$work/out" || { show; return 1; }; }
check "TopicCommand --create --partitions 3" create

describe() {
  topics --describe --topic "$PREFIX-admin" || { show; return 1; }
  grep -q "PartitionCount: 3" "$work/out" || { show; return 1; }
  [[ "$(grep -c "Partition: [0-2]	Leader:" "$work/out")" -eq 3 ]] || { show; return 1; }
}
check "TopicCommand --describe shows 3 partitions with a leader" describe

list() { topics --list || { show; return 1; }; grep -qx "$PREFIX-admin" "$work/out" || { show; return 1; }; }
check "TopicCommand --list names it" list

# ConsoleProducer from stdin, ConsoleConsumer by partition: one partition, so the order is the log's
produce_consume() {
  local topic="$PREFIX-console"
  topics --create --topic "$topic" --partitions 1 || { show; return 1; }
  seq 1 "$RECORDS" | sed 's/^/line-/' >"$work/sent"
  timeout "$TIMEOUT" "$ROOT/perf/kafka.sh" run org.apache.kafka.tools.ConsoleProducer --bootstrap-server "$BOOTSTRAP" \
    --topic "$topic" <"$work/sent" >"$work/out" 2>"$work/err" || { show; return 1; }
  tool org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$BOOTSTRAP" --topic "$topic" \
    --partition 0 --offset earliest --max-messages "$RECORDS" --timeout-ms 30000 || { show; return 1; }
  if ! diff "$work/sent" "$work/out" >"$work/diff"; then
    echo "    sent $(wc -l <"$work/sent") lines, read $(wc -l <"$work/out"); first differences:"
    head -n 6 "$work/diff" | sed 's/^/    /'
    return 1
  fi
}
check "ConsoleProducer < stdin ($RECORDS lines), ConsoleConsumer --partition 0 --offset earliest reads them in order" produce_consume

delete() {
  topics --delete --topic "$PREFIX-admin" || { show; return 1; }
  local _
  for _ in $(seq 1 50); do # deletion is asynchronous on Kafka
    topics --list || { show; return 1; }
    grep -qx "$PREFIX-admin" "$work/out" || return 0
    sleep 0.2
  done
  echo "    $PREFIX-admin still listed after --delete"
  return 1
}
check "TopicCommand --delete, then --list no longer names it" delete

echo "$STEP: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
