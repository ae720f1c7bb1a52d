#!/usr/bin/env bash
# The performance harness works on both systems, in about three minutes: bin/brook-perf --smoke runs
# every workload once at a tiny size on Brook and on Kafka 4.3.1 (resolved from Maven, cached), the
# Kafka-protocol ones on Brook's Kafka listener (brook-kafka) and Kafka with kafka-clients, and
# this checks what it wrote, not how fast anything was (the figures come from the full run, see
# docs/PERFORMANCE.md):
#   - report.py's and jfr_frames.py's own tests pass;
#   - brook-perf exits 0: every run passed its own checks (every record answered, read or acked);
#   - results.json has an ok run of every system of every workload (report.py --check), with the
#     values each workload's first metric needs;
#   - the tables render and the plot is well-formed SVG with a panel per workload;
#   - no broker process is left running.
set -euo pipefail
cd "$(dirname "$0")/.."
STEP=harness-smoke
. scripts/lib.sh
[[ -f perf/target/brook-perf.jar ]] || ./mvnw -B -q -DskipTests package -pl perf -am
out="$(mktemp -d)"
work="$(mktemp -d /tmp/brook-perf-smoke.XXXXXX)"
trap 'rm -rf "$out" "$work"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "$STEP: ok   $1"; }
fail() { failed=$((failed + 1)); echo "$STEP: FAIL $1"; }

if python3 perf/test_report.py >"$out/unittest.log" 2>&1; then
  ok "perf/test_report.py: $(grep -E '^Ran [0-9]+ tests' "$out/unittest.log")"
else
  fail "perf/test_report.py"; cat "$out/unittest.log"
fi
if python3 perf/test_jfr_frames.py >"$out/unittest-jfr.log" 2>&1; then
  ok "perf/test_jfr_frames.py: $(grep -E '^Ran [0-9]+ tests' "$out/unittest-jfr.log")"
else
  fail "perf/test_jfr_frames.py"; cat "$out/unittest-jfr.log"
fi

if BROOK_PERF_SKIP_BUILD=1 BROOK_PERF_WORK="$work" bin/brook-perf --smoke --out "$out/run" >"$out/perf.log" 2>&1; then
  ok "bin/brook-perf --smoke: every run passed its checks ($(grep -c '^brook-perf: \[' "$out/perf.log") runs)"
else
  fail "bin/brook-perf --smoke exited non-zero:"; grep -E '^brook-perf:|^report:|Exception|FAILED' "$out/perf.log" | tail -40
fi

if [[ -f "$out/run/results.json" ]] && python3 perf/report.py "$out/run/results.json" --check; then
  ok "results.json: an ok run of every system of every workload"
else
  fail "results.json: a workload lacks an ok run"
fi

# Every ok run holds its workload's first metric (a run that measured nothing is not a pass).
if python3 - "$out/run/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
missing = [f"{w['name']}/{run['system']}" for w in r["workloads"] for run in w["runs"]
           if run["ok"] and w["metrics"][0]["key"] not in run["values"]]
names = {w["name"] for w in r["workloads"]}
want = {"produce-100B-1p", "produce-1KiB-4p", "consume-100B", "e2e-latency", "ack-4-consumers", "synced-16p",
        "start-empty", "partitions-100",
        # issue 25: kafka-clients and Kafka's ProducerPerformance against Brook's Kafka listener and Kafka
        "kafka-produce-100B", "kafka-consume-1KiB", "kafka-tool-produce-100B", "kafka-tool-produce-1KiB"}
kafka_door = [w["name"] for w in r["workloads"] if w["name"].startswith("kafka-") and w["systems"] != ["brook-kafka", "kafka"]]
if kafka_door:
    print("Kafka-protocol workloads not run on brook-kafka and kafka:", kafka_door)
    sys.exit(1)
if missing or not want <= names or r["mode"] != "smoke":
    print("missing values:", missing, "missing workloads:", sorted(want - names), "mode:", r["mode"])
    sys.exit(1)
PY
then
  ok "every ok run measured its workload's first metric; the issue's workloads are all there"
else
  fail "results.json is incomplete"
fi

if grep -q '^== ' "$out/run/report.txt" 2>/dev/null && grep -q '^| ' "$out/run/report.md" 2>/dev/null; then
  ok "report.txt and report.md rendered ($(grep -c '^== ' "$out/run/report.txt") workloads)"
else
  fail "report.txt / report.md missing or empty"
fi

if python3 - "$out/run/plot.svg" "$out/run/results.json" <<'PY'
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
n = len(json.load(open(sys.argv[2]))["workloads"])
text = ET.tostring(root, encoding="unicode")
sys.exit(0 if root.tag.endswith("svg") and all(w["name"] in text for w in json.load(open(sys.argv[2]))["workloads"]) and n > 0 else 1)
PY
then
  ok "plot.svg is well-formed SVG naming every workload"
else
  fail "plot.svg missing or malformed"
fi

if pgrep -f -- "$work" >/dev/null; then
  fail "processes left running on $work: $(pgrep -f -- "$work" | tr '\n' ' ')"
  pkill -KILL -f -- "$work" || true
else
  ok "no broker left running"
fi
echo "$STEP: $passed passed, $failed failed"
(( failed == 0 ))
