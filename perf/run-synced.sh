#!/usr/bin/env bash
# SYNCED group commit: 16 concurrent SYNCED producers (one record per request, up to INFLIGHT
# requests in flight each) against a broker with group commit, then against one with
# sync.group.commit=false (one force per request), in the same run; prints both and the ratio.
#   perf/run-synced.sh [producers=16] [seconds=10] [inflight=5]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
producers="${1:-16}" seconds="${2:-10}" inflight="${3:-5}"
./mvnw -B -q -DskipTests package
work="$(mktemp -d)"
pid=""
trap '[[ -n "$pid" ]] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT
run() { # group-commit setting
  local port; port="$(free_port)"
  rm -rf "$work/data"
  bin/brook broker --data-dir "$work/data" --grpc-listen "127.0.0.1:$port" --http-listen 127.0.0.1:0 --set kafka.listen= --set "sync.group.commit=$1" \
    >"$work/broker.log" 2>&1 &
  pid=$!
  wait_ready "$work/broker.log" $pid
  java -cp perf/target/brook-perf.jar io.brook.perf.SyncedDriver "127.0.0.1:$port" "$producers" "$seconds" synced \
    "$inflight" \
    | tee "$work/result-$1"
  kill $pid; wait $pid 2>/dev/null || true; pid=""
}
echo "== machine: $(nproc) cores, data on $(df -h "$work" | awk 'NR==2 {print $1}'); load: $(uptime | sed 's/.*load/load/')"
echo "-- group commit on"; run true
echo "-- group commit off (one force per request)"; run false
on="$(sed -n 's/.*: \([0-9]*\) records\/s.*/\1/p' "$work/result-true")"
off="$(sed -n 's/.*: \([0-9]*\) records\/s.*/\1/p' "$work/result-false")"
python3 -c "print(f'group commit on/off: {$on}/{$off} = {$on/max($off,1):.1f}x')"
