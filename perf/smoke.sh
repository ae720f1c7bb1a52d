#!/usr/bin/env bash
# Runs every JMH benchmark once, briefly (one 200 ms iteration, smallest parameters), so a broken
# benchmark is found by `make test`, not by the next person who needs figures. It checks that each
# benchmark ran and produced a score; it asserts no timing (figures come from run-storage-bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
jar=perf/target/brook-perf.jar
[[ -f "$jar" ]] || ./mvnw -B -q -DskipTests package -pl perf -am
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
java -jar "$jar" -wi 0 -i 1 -r 200ms -p recordSize=100 -p batchSize=1 -rf json -rff "$out" >/dev/null 2>&1 || true
passed=0 failed=0
for bench in $(java -jar "$jar" -l | tail -n +2); do
  if python3 -c "import json,sys; r=[x for x in json.load(open('$out')) if x['benchmark']=='$bench']; sys.exit(0 if r and r[0]['primaryMetric']['score'] > 0 else 1)" 2>/dev/null; then
    passed=$((passed + 1)); echo "perf-smoke: ok   $bench"
  else
    failed=$((failed + 1)); echo "perf-smoke: FAIL $bench (no score: it did not run)"
  fi
done
echo "perf-smoke: $passed passed, $failed failed"
(( failed == 0 && passed > 0 ))
