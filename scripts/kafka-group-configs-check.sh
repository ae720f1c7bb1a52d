#!/usr/bin/env bash
# Kafka's kafka-configs.sh (kafka.admin.ConfigCommand, Kafka 4.3.1) on GROUP config resources, against
# any Kafka bootstrap address: Brook's Kafka listener (D66: share.* keys on Brook's ack-group config) or
# Apache Kafka (perf/kafka.sh start). The tool runs through `perf/kafka.sh run CLASS`.
#
#   scripts/kafka-group-configs-check.sh BOOTSTRAP
#
# Checks, each one line "kafka-group-configs-check: ok|FAIL ...", on a group that does not exist yet:
#   --alter --add-config share.auto.offset.reset=earliest,share.record.lock.duration.ms=20000 (Kafka keeps
#   the config of a group without members; Brook creates it as an ack group), --describe shows both,
#   --describe --all shows the defaults too, --delete-config, a value out of range and an unknown key are
#   refused (InvalidConfigurationException), --describe with no --entity-name lists the group.
# Ends with "kafka-group-configs-check: N passed, N failed". Each tool run is bounded by TOOLS_TIMEOUT s.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STEP=kafka-group-configs-check
. "$ROOT/scripts/lib.sh"

[[ $# -eq 1 ]] || { echo "usage: $0 BOOTSTRAP" >&2; exit 2; }
BOOTSTRAP=$1
TIMEOUT=${TOOLS_TIMEOUT:-120}
GROUP="configs-check-$(date +%s)-$$"
passed=0 failed=0
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$ROOT/perf/kafka.sh" resolve >/dev/null
echo "$STEP: Kafka 4.3.1's ConfigCommand --entity-type groups against $BOOTSTRAP"

# configs ARGS...: ConfigCommand's stdout and stderr in $work/out (shown when a check fails)
configs() {
  timeout "$TIMEOUT" "$ROOT/perf/kafka.sh" run kafka.admin.ConfigCommand --bootstrap-server "$BOOTSTRAP" \
    --entity-type groups "$@" >"$work/out" 2>&1
}
show() { sed "s/^/    /" "$work/out" | head -n 20; }
has() { grep -q -- "$1" "$work/out" || { echo "    no '$1' in:"; show; return 1; }; }

add() {
  configs --entity-name "$GROUP" --alter \
    --add-config share.auto.offset.reset=earliest,share.record.lock.duration.ms=20000 || { show; return 1; }
  has "Completed updating config for group $GROUP"
}
check "--alter --add-config share.auto.offset.reset=earliest,share.record.lock.duration.ms=20000 on a new group" add

describe() {
  configs --entity-name "$GROUP" --describe || { show; return 1; }
  has "share.auto.offset.reset=earliest" && has "share.record.lock.duration.ms=20000"
}
check "--describe shows both" describe

describe_all() {
  configs --entity-name "$GROUP" --describe --all || { show; return 1; }
  has "share.delivery.count.limit=5" && has "share.heartbeat.interval.ms=5000" && has "share.session.timeout.ms=45000"
}
check "--describe --all shows the defaults (share.delivery.count.limit=5, heartbeat 5000, session 45000)" describe_all

delete() {
  configs --entity-name "$GROUP" --alter --delete-config share.record.lock.duration.ms || { show; return 1; }
  configs --entity-name "$GROUP" --describe || { show; return 1; }
  has "share.auto.offset.reset=earliest" || return 1
  if grep -q "share.record.lock.duration.ms" "$work/out"; then show; return 1; fi
}
check "--delete-config share.record.lock.duration.ms: no longer set" delete

refused() { # refused KEY=VALUE: the tool fails with InvalidConfigurationException
  if configs --entity-name "$GROUP" --alter --add-config "$1"; then echo "    $1 accepted"; show; return 1; fi
  has "InvalidConfigurationException"
}
check "--add-config share.record.lock.duration.ms=50 is refused (InvalidConfigurationException)" \
  refused share.record.lock.duration.ms=50
check "--add-config no.such.key=1 is refused (InvalidConfigurationException)" refused no.such.key=1

list() { configs --describe || { show; return 1; }; has "Dynamic configs for group $GROUP are:"; }
check "--describe with no --entity-name lists the group" list

echo "$STEP: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
