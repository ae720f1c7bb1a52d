#!/usr/bin/env bash
# Store-and-forward against a real Apache Kafka 4.3.1 (issue 28, D72): io.brook.perf.harness.ForwardCheck
# starts Kafka (perf/kafka.sh) and the real broker (bin/brook broker --config, one forward route to that
# Kafka), produces records with keys, headers and timestamps into Brook over 4 partitions, kills Brook with
# SIGKILL and starts it again, stops Kafka for 30 s and starts it again (Brook stopped with SIGTERM and
# started again inside the outage), kills Brook once more while the route drains the backlog; then the route's cursor must reach the end and the target topic, read with
# kafka-clients, must hold every Brook record at least once, per partition in origin-offset order, with
# keys, values, headers and timestamps kept and repeats only of origins already shown.
#
#   scripts/forward-check.sh [ForwardCheck options]     e.g. --records 1000000 --rate 20000 (the million run)
#
# Default size: 100,000 records at 2,500/s (about 3 minutes, most of it the outage and the starts).
# Needs the jars (make build; perf/target/brook-perf.jar: ./mvnw -B -q -DskipTests package -pl perf -am).
# FORWARD_CHECK_WORK=DIR keeps Kafka's and Brook's data and logs there (default: a temporary directory,
# deleted). Ends with "forward-check: N passed, M failed".
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
[[ -f perf/target/brook-perf.jar && -f broker/target/brook.jar ]] \
  || { echo "forward-check: perf/target/brook-perf.jar or broker/target/brook.jar missing: build first"; \
       echo "forward-check: 0 passed, 1 failed"; exit 1; }
perf/kafka.sh resolve >/dev/null || { echo "forward-check: 0 passed, 1 failed"; exit 1; }
if [[ -n "${FORWARD_CHECK_WORK:-}" ]]; then
  work="$FORWARD_CHECK_WORK"
else
  work="$(mktemp -d /tmp/brook-forward-check.XXXXXX)"
  trap 'rm -rf "$work"' EXIT
fi
rc=0
java -Xmx1g -cp perf/target/brook-perf.jar io.brook.perf.harness.ForwardCheck --repo "$ROOT" --work "$work" "$@" \
  >"$work/check.out" 2>"$work/check.err" || rc=$?
cat "$work/check.out"
if ! grep -qE '^forward-check: [0-9]+ passed, [0-9]+ failed$' "$work/check.out"; then
  echo "forward-check: the check stopped before its summary (rc $rc); its stderr:"
  tail -n 30 "$work/check.err"
  echo "forward-check: 0 passed, 1 failed"
  exit 1
fi
if [[ $rc -ne 0 ]]; then
  # the logs say why: the broker's forward lines, Kafka's last lines
  echo "forward-check: Brook's log, forward lines:"; grep -i forward "$work/brook/broker.log" | tail -n 20 | sed 's/^/    /'
fi
exit "$rc"
