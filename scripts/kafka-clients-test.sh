#!/usr/bin/env bash
# Kafka's own clients against the real broker's Kafka listener (bin/brook broker; the jar must be built:
# test-all runs this after Maven): Debian's kcat (librdkafka 2.0.2) with every codec, Kafka 4.3.1's
# tools (TopicCommand, ConsoleProducer, ConsoleConsumer; ConfigCommand on groups: kafka-group-configs-check.sh), kcat over SASL_SSL (kcat-sasl-check.sh, a broker
# of its own with auth), consumer groups through Kafka's kafka-consumer-groups, the console consumer and
# kcat -G (kafka-groups-check.sh), share groups through kafka-share-groups (kafka-share-groups-check.sh),
# and franz-go's kgo tests of the quick, groups and share lists. Each prints its own "NAME-check: N passed, N failed" line,
# which test-all's summary adds up; this script fails when one of them fails.
# KGO_LIST picks another kgo list (make test-full: broker, every test that talks to a broker).
# KAFKA_GROUP_CHECKS=0 leaves the group checks out (not a BROOK_ name: the broker would take it for a
# setting and refuse to start). The broker runs with group.initial.rebalance.delay.ms=0.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=lib.sh
. scripts/lib.sh

dir="$(mktemp -d)"
cleanup() {
  [ -n "${BROKER_PID:-}" ] && kill "$BROKER_PID" 2>/dev/null && wait "$BROKER_PID" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT

GROUPS_ON="${KAFKA_GROUP_CHECKS:-1}"
group_settings=()
[[ "$GROUPS_ON" == 1 ]] && group_settings=(--set group.initial.rebalance.delay.ms=0)

KAFKA_PORT="$(free_port)"
# The kgo tests make many small topics at once: the disk guard's per-writer reserve is lowered so that a
# CI disk does not refuse them (the guard itself is tested elsewhere).
if ! start_broker "$dir" --set "kafka.listen=127.0.0.1:$KAFKA_PORT" --set disk.free.per.writer.bytes=1048576 \
    "${group_settings[@]}"; then
  echo "kafka-clients-check: 0 passed, 1 failed"
  exit 1
fi
BOOTSTRAP="127.0.0.1:$KAFKA_PORT"
rc=0
bash scripts/kcat-check.sh "$BOOTSTRAP" || rc=1
bash scripts/kcat-sasl-check.sh || rc=1
bash scripts/kafka-tools-check.sh "$BOOTSTRAP" || rc=1
bash scripts/kafka-group-configs-check.sh "$BOOTSTRAP" || rc=1
if [[ "$GROUPS_ON" == 1 ]]; then
  BROOK_BROKER="127.0.0.1:$BROKER_PORT" bash scripts/kafka-groups-check.sh "$BOOTSTRAP" || rc=1
  BROOK_BROKER="127.0.0.1:$BROKER_PORT" bash scripts/kafka-share-groups-check.sh "$BOOTSTRAP" || rc=1
  bash scripts/kgo-check.sh "$BOOTSTRAP" -run "${KGO_LIST:-quick-groups-share}" || rc=1
else
  bash scripts/kgo-check.sh "$BOOTSTRAP" -run "${KGO_LIST:-quick}" || rc=1
fi
if ! kill -0 "$BROKER_PID" 2>/dev/null; then
  echo "kafka-clients-test: the broker died; its log:" >&2
  tail -50 "$dir/broker.log" >&2
  rc=1
fi
exit $rc
