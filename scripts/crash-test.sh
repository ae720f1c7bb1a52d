#!/usr/bin/env bash
# The crash harness, long version: a real broker killed with SIGKILL CYCLES times under load
# (idempotent producers, an offset-mode and an ack-mode group member), checked after every restart
# (CrashIT; what it checks: docs/RELIABILITY.md). `make test` runs a short version (12 cycles).
#
#   scripts/crash-test.sh [CYCLES [SEED [CYCLE_MS]]]
#     CYCLES    kill/restart cycles (default 100)
#     SEED      the seed of every random choice (default: a new one, printed first); give a failed
#               run's seed to replay it (same kill moments and workload; thread timing varies)
#     CYCLE_MS  the longest a cycle's load runs before its kill, in ms (default 1500)
#
# Prints each cycle as it ends, then the report (also kept in broker/target/crash-report.txt).
# Exit code: 0 when nothing was lost, duplicated or broken, else non-zero.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

cycles="${1:-100}"
seed="${2:-}"
cycle_ms="${3:-1500}"
for n in "$cycles" "$cycle_ms"; do
  [[ "$n" =~ ^[0-9]+$ ]] || { echo "usage: $0 [CYCLES [SEED [CYCLE_MS]]] (got '$n')" >&2; exit 2; }
done
[[ -z "$seed" || "$seed" =~ ^-?[0-9]+$ ]] || { echo "usage: SEED must be an integer (got '$seed')" >&2; exit 2; }

report="$ROOT/broker/target/crash-report.txt"
progress="$ROOT/broker/target/crash-progress.txt"
maven_log="$ROOT/broker/target/crash-test-maven.log"
mkdir -p "$ROOT/broker/target"
rm -f "$report" "$progress"

args=(-B -pl broker -am verify
  -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false
  -Dit.test=CrashIT -Dcrash.cycles="$cycles" -Dcrash.cycle.ms="$cycle_ms"
  -Dcrash.report="$report" -Dcrash.progress="$progress")
[[ -n "$seed" ]] && args+=(-Dcrash.seed="$seed")

echo "crash-test: $cycles cycles, load up to $cycle_ms ms per cycle${seed:+, seed $seed}; Maven log in $maven_log"
start=$SECONDS
./mvnw "${args[@]}" >"$maven_log" 2>&1 &
maven=$!
trap 'kill "$maven" 2>/dev/null || true' INT TERM
# The harness appends its progress lines to a file (Failsafe buffers the test's stdout): follow it.
tail -n +1 -F --pid="$maven" "$progress" 2>/dev/null | grep --line-buffered '^CrashIT: ' || true
rc=0
wait "$maven" || rc=$?
trap - INT TERM

if [[ -f "$report" ]]; then
  cat "$report"
else
  echo "crash-test: no report was written; the end of the Maven log:" >&2
  tail -n 60 "$maven_log" >&2
fi
echo "crash-test: exit $rc after $((SECONDS - start)) s"
exit "$rc"
