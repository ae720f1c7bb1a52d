#!/usr/bin/env bash
# Retention under load: does a large deletion stall producers or consumers? RUNS times: starts a broker
# (bin/brook broker, retention checked every 500 ms) on a fresh temporary data directory and a free
# loopback port, and runs RetentionDriver against it: a topic of one partition with segment.roll=1s and
# retention.ms=-1, prefilled unpaced (default 1 GiB of 1 KiB records), then a paced producer (5,000
# records/s in requests of 50) and a consumer tailing the same partition; after a 10 s baseline it sets
# retention.ms=1000, so the broker's next pass deletes the prefill, and measures on through the deletion.
# Prints each run (produce p50/p99/p99.9/max baseline vs deletion and their ratio, the consumer's rate
# and longest gap, when the deletion happened, disk usage before/after) and writes every run to
# perf/results/retention.json.
#   perf/run-retention.sh [runs=1] [RetentionDriver options, e.g. --prefill-mib=2048 --rate=2000 --baseline=20]
# RET_JSON=FILE writes the results elsewhere. RET_TMP=DIR puts the broker's data there (default: /tmp,
# the VM's disk; /dev/shm for tmpfs). BROOK_JAVA_OPTS goes to the broker's JVM, RET_JAVA_OPTS to the
# driver's. RET_JSTACK=1 makes the broker print a thread dump every 50 ms for 3 s from the alter (kill -QUIT;
# its log is copied next to the JSON as retention-broker-RUN.log) to see what a stall waits on. Without it,
# the driver still dumps the broker's threads (jcmd) when the consumer gets nothing, or a produce request
# no answer, for a second (--stall-ms): retention-stall-RUN.txt next to the JSON, with the broker's log.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
runs=1
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then runs=$1; shift; fi
out="${RET_JSON:-perf/results/retention.json}"

# Build only when the jars are missing or older than a source they come from.
jar=perf/target/brook-perf.jar
if [[ ! -f "$jar" || ! -f broker/target/brook.jar ]] \
    || [[ -n "$(find pom.xml protocol broker perf -path '*/target' -prune -o -type f -newer "$jar" -print -quit)" ]]; then
  ./mvnw -B -q -DskipTests package
fi

work="$(mktemp -d -p "${RET_TMP:-${TMPDIR:-/tmp}}")"
pid=""
dumper=""
stop_broker() {
  if [[ -n "$pid" ]]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; pid=""; fi
}
trap '[[ -n "$dumper" ]] && kill "$dumper" 2>/dev/null; stop_broker; rm -rf "$work"' EXIT
mkdir -p "$(dirname "$out")"
# The data's block device (its discard and write counters go into the timeline), none on tmpfs.
device="$(basename "$(df --output=source "$work" | tail -n 1)")"
grep -q " $device " /proc/diskstats || device=""
echo "== machine: $(nproc) cores, $(java -version 2>&1 | head -1), data on $(df -h "$work" | awk 'NR==2 {print $1}')" \
  "($(awk -v d="$(df --output=target "$work" | tail -n 1)" '$2 == d {print $3 ", " $4}' /proc/mounts | head -n 1))"

# Thread dumps of the broker from the alter on (SIGQUIT: the JVM prints them to its log, each a short
# safepoint, so such a run's latencies are not figures): waits for the driver's "then retention.ms" line.
dump_threads() { # driver-log
  for _ in $(seq 1 600); do grep -q "then retention.ms" "$1" 2>/dev/null && break; sleep 0.1; done
  for _ in $(seq 1 60); do kill -QUIT "$pid" 2>/dev/null || true; sleep 0.05; done
}

for i in $(seq 1 "$runs"); do
  rm -rf "$work/data"
  port="$(free_port)"
  bin/brook broker --data-dir "$work/data" --grpc-listen "127.0.0.1:$port" --http-listen 127.0.0.1:0 --set kafka.listen= --set retention.check.interval.ms=500 \
    >"$work/broker.log" 2>&1 &
  pid=$!
  wait_ready "$work/broker.log" $pid
  echo "-- run $i of $runs: load average $(cut -d' ' -f1-3 /proc/loadavg), $(df -h "$work" | awk 'NR==2 {print $4}') free"
  status=0
: >"$work/driver-$i.log"
  # shellcheck disable=SC2086
  java ${RET_JAVA_OPTS:-} -cp "$jar" io.brook.perf.RetentionDriver "127.0.0.1:$port" --data-dir="$work/data" \
    --broker-pid=$pid --broker-log="$work/broker.log" --json="$work/run-$i.json" --label="run $i of $runs" \
    --stall-dump="$work/stall-$i.txt" --disk="$device" "$@" >>"$work/driver-$i.log" 2>&1 &
  driver=$!
  if [[ "${RET_JSTACK:-}" == 1 ]]; then dump_threads "$work/driver-$i.log" & dumper=$!; fi
  tail -f --pid=$driver "$work/driver-$i.log" || true
  wait $driver || status=$?
  if [[ -n "$dumper" ]]; then
    wait "$dumper" || true; dumper=""
    cp "$work/broker.log" "${out%.json}-broker-$i.log"
    echo "(the broker's log with its thread dumps: ${out%.json}-broker-$i.log)"
  fi
  if [[ -f "$work/stall-$i.txt" ]]; then
    cp "$work/stall-$i.txt" "${out%.json}-stall-$i.txt"
    cp "$work/broker.log" "${out%.json}-broker-$i.log"
    echo "(broker thread dumps taken during the stall: ${out%.json}-stall-$i.txt; its log: ${out%.json}-broker-$i.log)"
  fi
  grep -E "Retention deleted|\[WARN\]|\[ERROR\]" "$work/broker.log" | sed 's/^/  broker: /' | head -n 20
  if [[ $status -ne 0 || ! -f "$work/run-$i.json" ]]; then
    echo "run-retention: run $i failed (exit $status); the broker's log ends:" >&2
    tail -n 40 "$work/broker.log" >&2
    exit 1
  fi
  stop_broker
done
python3 - "$out" "$work"/run-*.json <<'EOF'
import json, sys
out, files = sys.argv[1], sys.argv[2:]
runs = [json.load(open(f)) for f in sorted(files)]
json.dump({"runs": runs}, open(out, "w"), indent=1)
x = lambda v: "?" if v is None else f"{v:.2f}"
for r in runs:
    p, c, d = r["produce"], r["consume"], r["deletion"]
    dp = d.get("deletion_proper") or {}
    logged = d["broker_log"][0] if d["broker_log"] else None
    took = f"{logged['logged_s'] - d['log_start_moved_s']:.2f} s" if logged and d["log_start_moved_s"] is not None else "?"
    print(f"{r['label']}: load {r['load_average_before']} -> {r['load_average_after']}; deleted "
          f"{logged['segments'] if logged else '?'} segments, {logged['bytes'] / 2**30 if logged else 0:.2f} GiB in ~{took}; "
          f"produce p99 {p['baseline_ms']['p99']:.2f} -> {p['deletion_ms']['p99']:.2f} ms (x{x(p['ratio']['p99'])}), max "
          f"{p['baseline_ms']['max']:.2f} -> {p['deletion_ms']['max']:.2f} ms (x{x(p['ratio']['max'])}); "
          f"worst produce during the deletion itself {dp.get('produce_worst_ms', float('nan')):.1f} ms "
          f"(baseline intervals as long: p50 {dp.get('baseline_same_length_produce_worst_ms', {}).get('p50', float('nan')):.1f}, "
          f"max {dp.get('baseline_same_length_produce_worst_ms', {}).get('max', float('nan')):.1f}); consumer longest gap "
          f"{c['baseline']['longest_gap_ms']:.1f} -> {c['deletion']['longest_gap_ms']:.1f} ms; "
          f"stalls: {'; '.join(r.get('stalls', [])) or 'none'}")
print(f"(written to {out})")
EOF
