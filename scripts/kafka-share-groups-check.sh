#!/usr/bin/env bash
# Share groups (KIP-932) through Kafka 4.3.1's kafka-share-groups (ShareGroupCommand), against any Kafka
# bootstrap address: Brook's Kafka listener, where a share group is an ack group (D67), or Apache Kafka
# 4.3.1 (perf/kafka.sh start), the reference every assertion here was first run against.
#
#   scripts/kafka-share-groups-check.sh BOOTSTRAP
#
# The share member: with BROOK_BROKER set (Brook's gRPC address), `bin/brook consume --ack` (a gRPC ack
# member, which Kafka's tools see as a share member); else Kafka's console share consumer. SHARE_MEMBER=
# console|brook picks one. Checks, each one line "kafka-share-groups-check: ok|FAIL ...", on a
# 2-partition topic with 10 records in each partition:
#   --reset-offsets --to-earliest --execute on an absent group makes it (NEW-OFFSET 0 0), --list names it
#   --describe: START-OFFSET 0 and LAG 10 on both partitions
#   a member reads the 20 records: --describe --members (client id, 2 partitions, T:0,1), --state (Stable,
#       1 member), lag 0 on both partitions
#   while it is in: --reset-offsets, --delete-offsets and --delete refused (the group is not empty)
#   the member stopped: --state Empty 0; --reset-offsets --to-earliest: START-OFFSET 0, LAG 10 again
#   --delete-offsets --topic: Successful, then "has no offset information"; again: "no offset information
#       to delete"
#   a consumer group named: "is not a share group"; an unknown group: "not found"
#   --delete: successful, --list no longer names it
# Ends with "kafka-share-groups-check: N passed, N failed". Each tool run is bounded by TOOLS_TIMEOUT s
# (default 120), waits for the member by GROUP_TIMEOUT s (default 60).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STEP=kafka-share-groups-check
. "$ROOT/scripts/lib.sh"

[[ $# -eq 1 ]] || { echo "usage: $0 BOOTSTRAP" >&2; exit 2; }
BOOTSTRAP=$1
TIMEOUT=${TOOLS_TIMEOUT:-120}
GROUP_TIMEOUT=${GROUP_TIMEOUT:-60}
MEMBER=${SHARE_MEMBER:-$([[ -n "${BROOK_BROKER:-}" ]] && echo brook || echo console)}
PREFIX="share-check-$(date +%s)-$$"
TOPIC="$PREFIX-jobs"
GROUP="$PREFIX-workers"
CLASSIC="$PREFIX-billing"
CLIENT="$PREFIX-worker"
passed=0 failed=0
work="$(mktemp -d)"
member_pid=""
cleanup() {
  [[ -n "$member_pid" ]] && stop_member
  rm -rf "$work"
}
trap cleanup EXIT
"$ROOT/perf/kafka.sh" resolve >/dev/null
KCAT="$("$ROOT/scripts/kcat.sh" 2>/dev/null)"
echo "$STEP: Kafka 4.3.1's kafka-share-groups against $BOOTSTRAP (share member: $MEMBER)"

tool() { timeout "$TIMEOUT" "$ROOT/perf/kafka.sh" run "$@" >"$work/out" 2>&1; }
share() { tool org.apache.kafka.tools.consumer.group.ShareGroupCommand --bootstrap-server "$BOOTSTRAP" "$@"; }
show() { sed "s/^/    /" "$work/out" | head -n 20; }
expect() {
  [[ "$1" == "$2" ]] && return 0
  echo "    expected:"; echo "$1" | sed 's/^/      /'
  echo "    got:"; echo "$2" | sed 's/^/      /'
  show
  return 1
}
# has TEXT: $work/out has the line part TEXT, else it is shown
has() { grep -qF -- "$1" "$work/out" || { echo "    no \"$1\" in:"; show; return 1; }; }
# offsets: "PARTITION START-OFFSET LAG" of TOPIC in the --describe table of $work/out, by partition
offsets() { awk -v t="$TOPIC" '$2 == t && $3 ~ /^[0-9]+$/ { print $3, $4, $5 }' "$work/out" | sort -n; }
lags() { awk -v t="$TOPIC" '$2 == t && $3 ~ /^[0-9]+$/ { print $3, $5 }' "$work/out" | sort -n; }
# state_row: "STATE #MEMBERS" of the --describe --state table
state_row() { awk '/^GROUP +COORDINATOR/ { row = 1; next } row == 1 && NF { print $(NF-1), $NF; exit }' "$work/out"; }

setup() {
  tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --create --topic "$TOPIC" --partitions 2 \
    || { show; return 1; }
  local p
  for p in 0 1; do
    seq 1 10 | sed "s/^/p$p-/" | timeout "$TIMEOUT" "$KCAT" -b "$BOOTSTRAP" -P -t "$TOPIC" -p "$p" 2>"$work/out" \
      || { show; return 1; }
  done
}
check "a 2-partition topic, 10 records in each partition" setup

reset_absent() {
  share --reset-offsets --group "$GROUP" --topic "$TOPIC" --to-earliest --execute || { show; return 1; }
  expect "$(printf '0 0\n1 0')" "$(awk -v g="$GROUP" '$1 == g { print $3, $4 }' "$work/out" | sort -n)" || return 1
  share --list || { show; return 1; }
  grep -qx "$GROUP" "$work/out" || { show; return 1; }
}
check "--reset-offsets --to-earliest --execute makes the absent group: NEW-OFFSET 0 0, --list names it" reset_absent

describe_fresh() {
  share --describe --group "$GROUP" || { show; return 1; }
  expect "$(printf '0 0 10\n1 0 10')" "$(offsets)"
}
check "--describe: START-OFFSET 0 and LAG 10 on both partitions" describe_fresh

# The member runs in a session of its own (setsid): stopping it stops the JVM behind the launcher too.
start_member() {
  if [[ "$MEMBER" == brook ]]; then
    setsid "$ROOT/bin/brook" consume --broker "$BROOK_BROKER" --group "$GROUP" --ack --client-id "$CLIENT" --follow \
      "$TOPIC" >"$work/member.out" 2>"$work/member.err" &
  else
    setsid "$ROOT/perf/kafka.sh" run org.apache.kafka.tools.consumer.ConsoleShareConsumer --bootstrap-server "$BOOTSTRAP" \
      --topic "$TOPIC" --group "$GROUP" --consumer-property "client.id=$CLIENT" --timeout-ms 600000 \
      >"$work/member.out" 2>"$work/member.err" &
  fi
  member_pid=$!
}
stop_member() {
  kill -TERM -- "-$member_pid" 2>/dev/null || true
  wait "$member_pid" 2>/dev/null || true
  member_pid=""
}
member_in=false
read_all() {
  start_member
  for _ in $(seq 1 $((GROUP_TIMEOUT * 10))); do
    [[ "$(grep -c '^p[01]-' "$work/member.out" 2>/dev/null)" -ge 20 ]] && break
    sleep 0.1
  done
  expect "$(for p in 0 1; do seq 1 10 | sed "s/^/p$p-/"; done | sort)" "$(grep '^p[01]-' "$work/member.out" | sort)" \
    || { tail -n 5 "$work/member.err"; return 1; }
  member_in=true
}
check "a share member reads the 20 records" read_all
live() { $member_in || { echo "    not run: no share member"; return 1; }; }

members() {
  live || return 1
  share --describe --group "$GROUP" --members || { show; return 1; }
  # GROUP CONSUMER-ID HOST CLIENT-ID #PARTITIONS ASSIGNMENT
  expect "$CLIENT 2 $TOPIC:0,1" "$(awk -v g="$GROUP" '$1 == g { print $4, $5, $6 }' "$work/out")"
}
check "--describe --members: the member, its client id, 2 partitions, $TOPIC:0,1" members

stable() {
  live || return 1
  share --describe --group "$GROUP" --state || { show; return 1; }
  expect "Stable 1" "$(state_row)"
}
check "--describe --state: Stable, 1 member" stable

consumed() {
  live || return 1
  local got=""
  for _ in $(seq 1 "$GROUP_TIMEOUT"); do
    share --describe --group "$GROUP" || { show; return 1; }
    got="$(lags)"
    [[ "$got" == "$(printf '0 0\n1 0')" ]] && return 0
    sleep 1
  done
  expect "$(printf '0 0\n1 0')" "$got"
}
check "--describe: LAG 0 on both partitions once the member acknowledged them" consumed

refused_live() {
  live || return 1
  share --reset-offsets --group "$GROUP" --topic "$TOPIC" --to-earliest --execute || true # exits 1 here
  has "Share group '$GROUP' is not empty." || return 1
  share --delete-offsets --group "$GROUP" --topic "$TOPIC" || true
  # Kafka's message, or Brook's, which says why
  grep -qE "Error: (The group is not empty\.|cannot delete the offsets of group '$GROUP' while 1 member\(s\) are receiving)" \
    "$work/out" || { show; return 1; }
  share --delete --group "$GROUP" || true
  has "Group '$GROUP' could not be deleted due to: org.apache.kafka.common.errors.GroupNotEmptyException"
}
check "while the member is in: --reset-offsets, --delete-offsets and --delete refused (not empty)" refused_live

stopped() {
  live || return 1
  stop_member
  local got=""
  for _ in $(seq 1 "$GROUP_TIMEOUT"); do
    share --describe --group "$GROUP" --state || { show; return 1; }
    got="$(state_row)"
    [[ "$got" == "Empty 0" ]] && return 0
    sleep 1
  done
  expect "Empty 0" "$got"
}
check "the member stopped: --describe --state says Empty, 0 members" stopped

reset_empty() {
  share --reset-offsets --group "$GROUP" --topic "$TOPIC" --to-earliest --execute || { show; return 1; }
  expect "$(printf '0 0\n1 0')" "$(awk -v g="$GROUP" '$1 == g { print $3, $4 }' "$work/out" | sort -n)" || return 1
  share --describe --group "$GROUP" || { show; return 1; }
  expect "$(printf '0 0 10\n1 0 10')" "$(offsets)"
}
check "--reset-offsets --to-earliest on the empty group: START-OFFSET 0, LAG 10 again" reset_empty

delete_offsets() {
  share --delete-offsets --group "$GROUP" --topic "$TOPIC" || { show; return 1; }
  expect "$TOPIC Successful" "$(awk -v t="$TOPIC" '$1 == t { print $1, $2 }' "$work/out")" || return 1
  share --describe --group "$GROUP" || { show; return 1; }
  has "Share group '$GROUP' has no offset information." || return 1
  share --delete-offsets --group "$GROUP" --topic "$TOPIC" || true
  has "Error: There is no offset information to delete."
}
check "--delete-offsets --topic: Successful, no offset information left; again: nothing to delete" delete_offsets

not_share() {
  tool org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$BOOTSTRAP" --reset-offsets \
    --group "$CLASSIC" --topic "$TOPIC" --to-earliest --execute || { show; return 1; }
  share --describe --group "$CLASSIC" || true
  has "GroupIdNotFoundException: Group $CLASSIC is not a share group." || return 1
  share --describe --group "$PREFIX-nosuch" || true
  has "GroupIdNotFoundException: Group $PREFIX-nosuch not found."
}
check "a consumer group named: not a share group; an unknown group: not found" not_share

delete_group() {
  share --delete --group "$GROUP" || { show; return 1; }
  has "Deletion of requested share groups ('$GROUP') was successful." || return 1
  share --list || { show; return 1; }
  if grep -qx "$GROUP" "$work/out"; then echo "    still listed:"; show; return 1; fi
}
check "--delete of the empty group: successful, --list no longer names it" delete_group

tool org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$BOOTSTRAP" --delete \
  --group "$CLASSIC" || true
tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --delete --topic "$TOPIC" || true
echo "$STEP: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
