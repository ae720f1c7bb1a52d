#!/usr/bin/env bash
# Consumer groups through Kafka's own tools and kcat, against any Kafka bootstrap address: Brook's Kafka
# listener or Apache Kafka 4.3.1 (perf/kafka.sh start), the reference every assertion here was first
# run against. Kafka's tools run through `perf/kafka.sh run CLASS` (jars resolved once, cached), kcat
# comes from scripts/kcat.sh (librdkafka 2.0.2, the classic group protocol).
#
#   scripts/kafka-groups-check.sh BOOTSTRAP
#
# Checks, each one line "kafka-groups-check: ok|FAIL ...", on a 3-partition topic (10 records in each
# partition) and a 4-partition one, each run under its own prefix:
#   ConsoleConsumer --group G --from-beginning reads the 30 records, and commits them
#   kafka-consumer-groups --list names G
#   --describe --group G: CURRENT-OFFSET, LOG-END-OFFSET and LAG per partition (4 more records in one
#       partition after the consumer left: lag 4 there, 0 elsewhere), "has no active members"
#   with BROOK_BROKER set (Brook's gRPC address), bin/brook group describe G shows the same offsets and lag
#   --describe --state: Empty, 0 members
#   two `kcat -G` balanced consumers share the 4 partitions (2 each, disjoint); while both live:
#       --describe --members --verbose (2 members, client id rdkafka, 2 partitions each),
#       --describe --state (Stable, 2 members, assignor range), --delete refused (the group is not
#       empty), --reset-offsets refused (the group is not inactive); records produced are read once
#   one kcat stopped (SIGTERM: it leaves the group): the other is assigned all 4 partitions and reads
#       what comes next; a ConsoleConsumer with group.protocol=consumer joins it (the group becomes a
#       KIP-848 one: 2 partitions each) and leaves (kcat has all 4 again); once both stopped,
#       --describe shows every partition committed to its end
#   --reset-offsets --to-earliest --execute on the empty group: NEW-OFFSET 0, --describe shows it
#   --delete-offsets --topic: every partition Successful, --describe shows no offset left
#   --delete of both groups: successful, --list no longer names them
# Ends with "kafka-groups-check: N passed, N failed". Each tool run is bounded by TOOLS_TIMEOUT s
# (default 120); the waits for a kcat rebalance by GROUP_TIMEOUT s (default 60).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STEP=kafka-groups-check
. "$ROOT/scripts/lib.sh"

[[ $# -eq 1 ]] || { echo "usage: $0 BOOTSTRAP" >&2; exit 2; }
BOOTSTRAP=$1
TIMEOUT=${TOOLS_TIMEOUT:-120}
GROUP_TIMEOUT=${GROUP_TIMEOUT:-60}
PREFIX="groups-check-$(date +%s)-$$"
TOPIC="$PREFIX-orders"    # 3 partitions: the console consumer's group
SHARED="$PREFIX-shared"   # 4 partitions: the kcat group
BILLING="$PREFIX-billing"
KCATG="$PREFIX-kcat"
passed=0 failed=0
work="$(mktemp -d)"
kcat_pids=()
cleanup() {
  local p
  for p in "${kcat_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${kcat_pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
"$ROOT/perf/kafka.sh" resolve >/dev/null
KCAT="$("$ROOT/scripts/kcat.sh" 2>/dev/null)"
echo "$STEP: Kafka 4.3.1's kafka-consumer-groups and console consumer, kcat -G, against $BOOTSTRAP"

# tool CLASS ARGS...: stdout and stderr together in $work/out (the group tool prints its errors, and
# exits 0, on either)
tool() { timeout "$TIMEOUT" "$ROOT/perf/kafka.sh" run "$@" >"$work/out" 2>&1; }
groups() { tool org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$BOOTSTRAP" "$@"; }
show() { sed "s/^/    /" "$work/out" | head -n 20; }
# produce TOPIC PARTITION FROM TO: records "pP-N" for N in FROM..TO into one partition
produce() { seq "$3" "$4" | sed "s/^/p$2-/" | timeout "$TIMEOUT" "$KCAT" -b "$BOOTSTRAP" -P -t "$1" -p "$2" 2>"$work/err" \
  || { cat "$work/err"; return 1; }; }
# offsets TOPIC: "PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG" per partition of TOPIC in the --describe
# table of $work/out, by partition
offsets() { awk -v t="$1" '$2 == t && $3 ~ /^[0-9]+$/ { print $3, $4, $5, $6 }' "$work/out" | sort -n; }
# expect WANT GOT: equal, else both shown
expect() {
  [[ "$1" == "$2" ]] && return 0
  echo "    expected:"; echo "$1" | sed 's/^/      /'
  echo "    got:"; echo "$2" | sed 's/^/      /'
  show
  return 1
}

setup() {
  tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --create --topic "$TOPIC" --partitions 3 \
    || { show; return 1; }
  tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --create --topic "$SHARED" --partitions 4 \
    || { show; return 1; }
  local p
  for p in 0 1 2; do produce "$TOPIC" "$p" 1 10 || return 1; done
}
check "topics made (3 and 4 partitions), 10 records into each partition of the first" setup

console_consumer() {
  tool org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$BOOTSTRAP" --topic "$TOPIC" \
    --group "$BILLING" --from-beginning --max-messages 30 --timeout-ms 30000 || { show; return 1; }
  expect "$(for p in 0 1 2; do seq 1 10 | sed "s/^/p$p-/"; done | sort)" "$(grep -E '^p[0-9]-' "$work/out" | sort)"
}
check "ConsoleConsumer --group --from-beginning --max-messages 30 reads the 30 records" console_consumer

listed() { groups --list || { show; return 1; }; grep -qx "$BILLING" "$work/out" || { show; return 1; }; }
check "--list names the console consumer's group" listed

describe_lag() {
  produce "$TOPIC" 1 11 14 || return 1 # the group's consumer is gone: 4 records of lag on partition 1
  groups --describe --group "$BILLING" || { show; return 1; }
  grep -q "Consumer group '$BILLING' has no active members" "$work/out" || { show; return 1; }
  expect "$(printf '0 10 10 0\n1 10 14 4\n2 10 10 0')" "$(offsets "$TOPIC")"
}
check "--describe: committed offsets 10, log end 10/14/10, lag 0/4/0, no active members" describe_lag

# Against Brook (BROOK_BROKER: its gRPC address), the same group through Brook's own CLI: the same offsets.
brook_describe() {
  timeout "$TIMEOUT" "$ROOT/bin/brook" group describe "$BILLING" --broker "$BROOK_BROKER" >"$work/out" 2>&1 \
    || { show; return 1; }
  # TOPIC PARTITION COMMITTED END-OFFSET LAG ...: what kafka-consumer-groups --describe showed above
  expect "$(printf '0 10 10 0\n1 10 14 4\n2 10 10 0')" \
    "$(awk -v t="$TOPIC" '$1 == t && $2 ~ /^[0-9]+$/ { print $2, $3, $4, $5 }' "$work/out" | sort -n)"
}
if [[ -n "${BROOK_BROKER:-}" ]]; then
  check "bin/brook group describe shows the same committed offsets, end offsets and lag" brook_describe
fi

# state_row: "ASSIGNMENT-STRATEGY STATE #MEMBERS" of the --describe --state table in $work/out
state_row() { awk '/^GROUP +COORDINATOR/ { row = 1; next } row == 1 && NF { print $(NF-2), $(NF-1), $NF; exit }' "$work/out"; }

state_empty() {
  groups --describe --group "$BILLING" --state || { show; return 1; }
  expect "- Empty 0" "$(state_row)"
}
check "--describe --state of the consumer-less group: Empty, 0 members" state_empty

# kcat balanced consumers: records to $work/kcat-N.out ("partition offset value"), rebalances to .err
start_kcat() {
  "$KCAT" -b "$BOOTSTRAP" -G "$KCATG" "$SHARED" -u -f '%p %o %s\n' -X auto.offset.reset=earliest \
    >"$work/kcat-$1.out" 2>"$work/kcat-$1.err" &
  kcat_pids[$1]=$!
}
# assigned N: the partitions of kcat N's last rebalance ("0 1"), empty when its last was a revoke
assigned() {
  grep -E 'rebalanced .*: (assigned|revoked):' "$work/kcat-$1.err" 2>/dev/null | tail -1 | grep 'assigned:' \
    | grep -oE '\[[0-9]+\]' | tr -d '[]' | sort -n | tr '\n' ' ' | sed 's/ $//' || true
}
# await_assigned N WANT...: kcat N's last assignment has as many partitions as WANT says ("2" or "4")
await_assigned() {
  local n=$1 want=$2 a
  for _ in $(seq 1 $((GROUP_TIMEOUT * 10))); do
    a="$(assigned "$n")"
    [[ -n "$a" && "$(wc -w <<<"$a")" -eq "$want" ]] && return 0
    sleep 0.1
  done
  echo "    kcat $n not assigned $want partitions within $GROUP_TIMEOUT s; its log:"
  sed 's/^/      /' "$work/kcat-$n.err" | tail -n 10
  return 1
}
# await_lines N COUNT: kcat N's output has COUNT lines
await_lines() {
  for _ in $(seq 1 $((GROUP_TIMEOUT * 10))); do
    [[ "$(wc -l <"$work/kcat-$1.out")" -ge "$2" ]] && return 0
    sleep 0.1
  done
  echo "    kcat $1 read $(wc -l <"$work/kcat-$1.out") records of $2 within $GROUP_TIMEOUT s"
  return 1
}

# The checks of the kcat group need it formed; when it did not, they fail at once (not after waits).
kcat_group=false
formed() { $kcat_group || { echo "    not run: the two kcat -G consumers did not share the partitions"; return 1; }; }

share() {
  start_kcat 1
  await_assigned 1 4 || return 1
  start_kcat 2
  await_assigned 2 2 || return 1
  await_assigned 1 2 || return 1
  expect "0 1 2 3" "$(echo "$(assigned 1) $(assigned 2)" | tr ' ' '\n' | sort -n | tr '\n' ' ' | sed 's/ $//')" \
    && kcat_group=true
}
check "two kcat -G consumers share the 4 partitions, 2 each" share

members() {
  formed || return 1
  groups --describe --group "$KCATG" --members --verbose || { show; return 1; }
  # GROUP CONSUMER-ID HOST CLIENT-ID #PARTITIONS CURRENT-EPOCH CURRENT-ASSIGNMENT ...
  local rows
  rows="$(awk -v g="$KCATG" '$1 == g { print $4, $5, $7 }' "$work/out" | sort)"
  expect "$(printf 'rdkafka 2 %s:0,1\nrdkafka 2 %s:2,3' "$SHARED" "$SHARED")" "$rows" || return 1
  [[ "$(awk -v g="$KCATG" '$1 == g && $3 ~ /127\.0\.0\.1/' "$work/out" | wc -l)" -eq 2 ]] \
    || { echo "    a member without its host 127.0.0.1"; show; return 1; }
}
check "--describe --members --verbose: 2 members, client id rdkafka, host, 2 partitions each" members

state_stable() {
  formed || return 1
  groups --describe --group "$KCATG" --state || { show; return 1; }
  expect "range Stable 2" "$(state_row)"
}
check "--describe --state of the live group: assignor range, Stable, 2 members" state_stable

delete_live() {
  formed || return 1
  groups --delete --group "$KCATG" || { show; return 1; }
  grep -q "Group '$KCATG' could not be deleted due to: .*GroupNotEmptyException: The group is not empty" "$work/out" \
    || { show; return 1; }
}
check "--delete of the live group is refused: the group is not empty" delete_live

reset_live() {
  formed || return 1
  groups --reset-offsets --group "$KCATG" --topic "$SHARED" --to-earliest --execute || { show; return 1; }
  grep -q "Assignments can only be reset if the group '$KCATG' is inactive, but the current state is Stable" \
    "$work/out" || { show; return 1; }
}
check "--reset-offsets of the live group is refused: not inactive" reset_live

# records "P O value" read by the kcats in total, for the values of partitions 0-3 in FROM..TO
want_records() { local p; for p in 0 1 2 3; do seq "$1" "$2" | awk -v p="$p" '{ print p, $1 - 1, "p" p "-" $1 }'; done | sort; }

shared_read() {
  formed || return 1
  local p
  for p in 0 1 2 3; do produce "$SHARED" "$p" 1 5 || return 1; done
  for _ in $(seq 1 $((GROUP_TIMEOUT * 10))); do
    [[ "$(cat "$work/kcat-1.out" "$work/kcat-2.out" | wc -l)" -ge 20 ]] && break
    sleep 0.1
  done
  expect "$(want_records 1 5)" "$(cat "$work/kcat-1.out" "$work/kcat-2.out" | sort)"
}
check "20 records produced: each read once by one of the two" shared_read

takeover() {
  formed || return 1
  kill -TERM "${kcat_pids[1]}"
  wait "${kcat_pids[1]}" 2>/dev/null || true
  await_assigned 2 4 || return 1
  local before p
  before="$(wc -l <"$work/kcat-2.out")"
  for p in 0 1 2 3; do produce "$SHARED" "$p" 6 8 || return 1; done
  await_lines 2 $((before + 12)) || return 1
  expect "$(want_records 6 8)" "$(tail -n +$((before + 1)) "$work/kcat-2.out" | sort)"
}
check "one kcat stopped: the other gets the 4 partitions and reads the next 12 records" takeover

# A KIP-848 consumer joins the classic kcat group (Kafka 4.3's group.consumer.migration.policy,
# bidirectional by default): the group becomes a KIP-848 group in which the broker assigns the kcat
# member too; once the KIP-848 consumer leaves (--timeout-ms with nothing to read), it is classic again.
mixed() {
  formed || return 1
  timeout "$TIMEOUT" "$ROOT/perf/kafka.sh" run org.apache.kafka.tools.consumer.ConsoleConsumer \
    --bootstrap-server "$BOOTSTRAP" --topic "$SHARED" --group "$KCATG" --timeout-ms 15000 \
    --consumer-property group.protocol=consumer >"$work/kip848.out" 2>&1 &
  local pid=$! rows
  if ! await_assigned 2 2; then kill "$pid" 2>/dev/null; return 1; fi
  groups --describe --group "$KCATG" --members --verbose || { show; kill "$pid" 2>/dev/null; return 1; }
  # ... CLIENT-ID ... UPGRADED (the last column): the KIP-848 member is the upgraded one
  rows="$(awk -v g="$KCATG" '$1 == g { print $4, $NF }' "$work/out" | sort)"
  expect "$(printf 'console-consumer true\nrdkafka false')" "$rows" || { show; kill "$pid" 2>/dev/null; return 1; }
  wait "$pid" || true
  await_assigned 2 4
}
check "a KIP-848 consumer joins the kcat group: 2 partitions each (UPGRADED true/false); it leaves: kcat has 4" mixed

committed() {
  formed || return 1
  kill -TERM "${kcat_pids[2]}"
  wait "${kcat_pids[2]}" 2>/dev/null || true
  groups --describe --group "$KCATG" || { show; return 1; }
  grep -q "Consumer group '$KCATG' has no active members" "$work/out" || { show; return 1; }
  expect "$(printf '0 8 8 0\n1 8 8 0\n2 8 8 0\n3 8 8 0')" "$(offsets "$SHARED")"
}
check "both kcats stopped: --describe shows every partition committed to its end (8), lag 0" committed

reset() {
  groups --reset-offsets --group "$BILLING" --topic "$TOPIC" --to-earliest --execute || { show; return 1; }
  expect "$(printf '%s 0 0\n%s 1 0\n%s 2 0' "$TOPIC" "$TOPIC" "$TOPIC")" \
    "$(awk -v g="$BILLING" '$1 == g { print $2, $3, $4 }' "$work/out" | sort -k2n)" || return 1
  groups --describe --group "$BILLING" || { show; return 1; }
  expect "$(printf '0 0 10 10\n1 0 14 14\n2 0 10 10')" "$(offsets "$TOPIC")"
}
check "--reset-offsets --to-earliest --execute: NEW-OFFSET 0 for each partition, --describe agrees" reset

delete_offsets() {
  groups --delete-offsets --group "$BILLING" --topic "$TOPIC" || { show; return 1; }
  grep -q "Request succeeded for deleting offsets from group $BILLING" "$work/out" || { show; return 1; }
  expect "$(printf '%s 0 Successful\n%s 1 Successful\n%s 2 Successful' "$TOPIC" "$TOPIC" "$TOPIC")" \
    "$(awk -v t="$TOPIC" '$1 == t { print $1, $2, $3 }' "$work/out" | sort -k2n)" || return 1
  groups --describe --group "$BILLING" || { show; return 1; }
  expect "" "$(offsets "$TOPIC")"
}
check "--delete-offsets --topic: each partition Successful, --describe shows no offset of it" delete_offsets

delete_groups() {
  groups --delete --group "$BILLING" --group "$KCATG" || { show; return 1; }
  grep -q "Deletion of requested consumer groups ('$BILLING', '$KCATG') was successful" "$work/out" \
    || grep -q "Deletion of requested consumer groups ('$KCATG', '$BILLING') was successful" "$work/out" \
    || { show; return 1; }
  groups --list || { show; return 1; }
  if grep -qxE "$BILLING|$KCATG" "$work/out"; then echo "    still listed:"; show; return 1; fi
}
check "--delete of both empty groups: successful, --list no longer names them" delete_groups

tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --delete --topic "$PREFIX-.*" || true
echo "$STEP: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
