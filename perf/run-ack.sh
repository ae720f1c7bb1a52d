#!/usr/bin/env bash
# Ack-mode throughput and produce->ack latency: starts a broker (bin/brook broker) on a temporary data
# directory and a free loopback port, runs AckDriver RUNS times against it (each run: its own JVM,
# warm-up pass, then the measured pass on a fresh topic and ack group), prints each run's line and the
# medians, writes every run and the medians to perf/results/ack.json, and stops the broker.
#   perf/run-ack.sh [runs=3] [AckDriver options, e.g. --records=1000000 --partitions=8 --rate=20000 --prefill]
# Defaults (AckDriver's): 300,000 records x 1 KiB after a warm-up pass of 100,000, 4 members (own
# channel each), 4 partitions, one producer (batches of 100, 8 in flight, unpaced), max_outstanding_records
# 1000. ACK_JSON=FILE writes the results elsewhere (e.g. a paced run next to the unpaced one).
# ACK_TMP=DIR puts the broker's data there (e.g. /dev/shm: tmpfs, no disk write-back; default /tmp).
# BROOK_JAVA_OPTS goes to the broker's JVM and ACK_JAVA_OPTS to the driver's
# (e.g. -XX:StartFlightRecording=filename=/tmp/x.jfr,settings=profile).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
runs=3
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then runs=$1; shift; fi
out="${ACK_JSON:-perf/results/ack.json}"

# Build only when the jars are missing or older than a source they come from.
jar=perf/target/brook-perf.jar
if [[ ! -f "$jar" || ! -f broker/target/brook.jar ]] \
    || [[ -n "$(find pom.xml protocol broker perf -path '*/target' -prune -o -type f -newer "$jar" -print -quit)" ]]; then
  ./mvnw -B -q -DskipTests package
fi

work="$(mktemp -d -p "${ACK_TMP:-${TMPDIR:-/tmp}}")"
port="$(free_port)"
bin/brook broker --data-dir "$work/data" --grpc-listen "127.0.0.1:$port" --http-listen 127.0.0.1:0 --set kafka.listen= >"$work/broker.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$work"' EXIT
wait_ready "$work/broker.log" $pid
echo "== machine: $(nproc) cores, $(java -version 2>&1 | head -1), data on $(df -h "$work" | awk 'NR==2 {print $1}'); load: $(uptime | sed 's/.*load/load/')"
status=0
for i in $(seq 1 "$runs"); do
  # shellcheck disable=SC2086
  java ${ACK_JAVA_OPTS:-} -cp "$jar" io.brook.perf.AckDriver "127.0.0.1:$port" --broker-pid=$pid --json="$work/run-$i.json" \
    --label="run $i of $runs" "$@" \
    | grep -v '^ack-driver: warm-up' || status=$?
  if [[ ! -f "$work/run-$i.json" ]]; then
    echo "run-ack: run $i wrote no result (exit $status); the broker's log ends:" >&2
    tail -n 40 "$work/broker.log" >&2
    exit 1
  fi
done
echo "== load after: $(uptime | sed 's/.*load/load/')"
python3 - "$out" "$work"/run-*.json <<'EOF'
import json, statistics, sys
out, files = sys.argv[1], sys.argv[2:]
runs = [json.load(open(f)) for f in sorted(files)]
med = lambda f: statistics.median(f(r) for r in runs)
median = {
    "records_per_s": med(lambda r: r["records_per_s"]),
    "mb_per_s": med(lambda r: r["mb_per_s"]),
    "produce_to_ack_ms": {k: med(lambda r, k=k: r["produce_to_ack_ms"][k]) for k in ("p50", "p99", "p99_9", "max")},
    "driver_cpu_seconds": med(lambda r: r["driver_cpu_seconds"]),
    "broker_cpu_seconds": med(lambda r: r["broker_cpu_seconds"] or 0),
    "seconds": med(lambda r: r["seconds"]),
    "produce_answer_ms": {k: med(lambda r, k=k: r["produce_answer_ms"][k]) for k in ("p50", "p99", "max")},
}
json.dump({"runs": runs, "median": median, "all_ok": all(r["ok"] for r in runs)}, open(out, "w"), indent=1)
lat = median["produce_to_ack_ms"]
r0 = runs[0]
print(f"ack median of {len(runs)}: {r0['records']} records x {r0['record_bytes']} B, {r0['members']} members, "
      f"{r0['partitions']} partitions: {median['records_per_s']:.0f} records/s, {median['mb_per_s']:.1f} MB/s; "
      f"produce->ack ms p50 {lat['p50']:.2f} p99 {lat['p99']:.2f} p99.9 {lat['p99_9']:.2f} max {lat['max']:.2f}; "
      f"produce answered ms p50 {median['produce_answer_ms']['p50']:.2f} p99 {median['produce_answer_ms']['p99']:.2f}; "
      f"CPU s (median): driver {median['driver_cpu_seconds']:.2f}, broker {median['broker_cpu_seconds']:.2f} "
      f"in {median['seconds']:.2f} s; exactly once in every run: {'yes' if all(r['ok'] for r in runs) else 'NO'}")
print(f"(written to {out})")
EOF
exit "$status"
