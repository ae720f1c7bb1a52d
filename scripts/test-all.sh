#!/usr/bin/env bash
# Brook's whole test run: what `make test` and CI (.ci/run) execute.
# Steps, in order, each timed (wall clock):
#   1. install-tools   scripts/install-tools.sh (buf, grpcurl, the Go client's tools; cached)
#   2. check-contract  scripts/check-contract.sh (buf lint + breaking) - needs 1
#   3. maven           ./mvnw -B verify (all Maven tests; Surefire output shown as is)
#                      (PreviousClientIT builds the previous release's Java client from git history
#                      once, through scripts/previous-client.sh, into the tool cache)
#   3b. go-client      scripts/go-test.sh: generated Go code current, vet, staticcheck,
#                      go test -race against real brokers - needs 1 and 3 (the jar)
#   3c. python-client  scripts/python-test.sh: Python stubs from the .proto alone, on gRPC's default
#                      limits, against a real broker (answer cap, attempts, dead letters) - needs 3
#   3d. kafka-clients  scripts/kafka-clients-test.sh: kcat (every codec), Kafka 4.3.1's tools and the
#                      quick list of franz-go's kgo tests against the broker's Kafka listener - needs 1, 3
#   3e. forward-check scripts/forward-check.sh: a forward route from the real broker to Apache Kafka
#                      4.3.1 (perf/kafka.sh) through two kill -9 of Brook and a 30 s Kafka outage, the
#                      target topic verified against the source (D72) - needs 3 (the jars)
#   4. readme-smoke    scripts/readme-smoke.sh, only if it exists and is
#                      executable - needs 1 and 3 (skipped if either failed)
#   4a. relay-curl-check scripts/relay-curl-check.sh: the README's REST relay curl examples run with
#                      the real curl against a broker, their outputs compared; auth, CORS, 413 - needs 3
#   4b. promtool-check scripts/promtool-check.sh: `promtool check metrics` on a live scrape,
#                      and the Grafana dashboard's metrics present in it - needs 3
#   5. jdk-smoke       scripts/jdk-smoke.sh: broker + CLI on every JDK >= 17 here (17 and 25)
#   6. perf-smoke      perf/smoke.sh: every JMH benchmark runs once, briefly (no timing asserted)
#   6b. harness-smoke  perf/harness-smoke.sh: bin/brook-perf --smoke, every workload once at a tiny
#                      size on Brook and on Kafka 4.3.1 (resolved from Maven); its output checked
#   7. helm-check      scripts/helm-check.sh: the chart linted, rendered for each ci/ values file,
#                      every object validated offline, the values schema refusing wrong values
#   8. docker-test     scripts/docker-test.sh: a private Docker engine, the image built on a local
#                      base image, Testcontainers tests of it (needs 3: the jar)
# A failed step does not hide the others' results: later independent steps
# still run, and a summary table of step durations plus a budget line is
# printed at the end in every case (EXIT trap). Exits non-zero if any step
# failed.
#
# Environment:
#   BROOK_TEST_BUDGET_S=2400  time budget shown in the summary (over it: a warning)
#   BROOK_SKIP_MAVEN=1        DEVELOPER CONVENIENCE ONLY: skip step 3 (e.g. to
#                             check the tooling while another build runs).
#                             Refused when CI=true.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

BUDGET_S="${BROOK_TEST_BUDGET_S:-2400}"
SKIP_MAVEN="${BROOK_SKIP_MAVEN:-0}"
if [ "$SKIP_MAVEN" = 1 ] && [ "${CI:-}" = true ]; then
  echo "test-all: ERROR: BROOK_SKIP_MAVEN=1 is a developer convenience and not allowed in CI" >&2
  exit 2
fi

STEP_NAMES=()
STEP_STATUS=()   # ok | FAILED (rc N) | skipped (why)
STEP_SECS=()
declare -A RESULT=()
TOTAL_START=$SECONDS
MAVEN_LOG="$(mktemp)"
SMOKE_LOG="$(mktemp)"

record() { # name status secs
  STEP_NAMES+=("$1"); STEP_STATUS+=("$2"); STEP_SECS+=("$3"); RESULT[$1]="$2"
}

run_step() { # name label command...
  local name=$1 label=$2 start=$SECONDS rc=0
  shift 2
  echo
  echo "==> test-all: [$name] $label"
  "$@" || rc=$?
  local secs=$((SECONDS - start))
  if [ "$rc" -eq 0 ]; then
    record "$name" ok "$secs"
  else
    record "$name" "FAILED (rc $rc)" "$secs"
  fi
  echo "<== test-all: [$name] ${RESULT[$name]} in $secs s"
}

skip_step() { # name why
  echo
  echo "==> test-all: [$1] skipped: $2"
  record "$1" "skipped ($2)" 0
}

# Sums the Surefire/Failsafe per-module "Results:" totals of the Maven log.
maven_test_counts() {
  sed -e 's/\x1b\[[0-9;]*m//g' -e 's/\r$//' "$MAVEN_LOG" |
    grep -E '^\[(INFO|WARNING|ERROR)\] Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+, Skipped: [0-9]+$' |
    awk -F'[:,] *' '{ run += $2; fail += $4; err += $6; skip += $8; n++ }
      END { if (n) printf "%d %d %d\n", run - fail - err - skip, fail + err, skip }'
}

summary() {
  local rc=$? total=$((SECONDS - TOTAL_START)) failed=0 i
  trap - EXIT
  echo
  echo "==================== test-all summary ===================="
  printf '%-16s %8s  %s\n' STEP SECONDS STATUS
  for i in "${!STEP_NAMES[@]}"; do
    printf '%-16s %8s  %s\n' "${STEP_NAMES[$i]}" "${STEP_SECS[$i]}" "${STEP_STATUS[$i]}"
    case "${STEP_STATUS[$i]}" in FAILED*) failed=1 ;; esac
  done
  if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
    echo "test-all: the script itself stopped with rc $rc (interrupted or internal error)"
    failed=1
  fi
  echo "=========================================================="
  echo "make test: total $total s of a $BUDGET_S s budget"
  if [ "$total" -gt "$BUDGET_S" ]; then
    echo "test-all: WARNING: over the time budget by $((total - BUDGET_S)) s"
  fi
  if [ "$failed" -ne 0 ]; then
    echo "test-all: FAILED"
  else
    echo "test-all: all steps passed"
  fi
  local counts p=0 f=0 s=0 sp sf
  counts="$(maven_test_counts || true)"
  if [ -n "$counts" ]; then
    read -r p f s <<<"$counts"
  fi
  # The smoke scripts end with "NAME: N passed, N failed", go-test and promtool-check with
  # "NAME: N passed, N failed, N skipped"; the closing line adds them up.
  local ss
  while read -r sp sf ss; do
    p=$((p + sp)); f=$((f + sf)); s=$((s + ${ss:-0}))
  done < <(sed -n 's/^[a-z-]*-\(smoke\|test\|check\): \([0-9]*\) passed, \([0-9]*\) failed\(, \([0-9]*\) skipped\)\{0,1\}$/\2 \3 \5/p' "$SMOKE_LOG")
  rm -f "$MAVEN_LOG" "$SMOKE_LOG"
  echo "tests: $p passed, $f failed, $s skipped"
  exit "$failed"
}
trap summary EXIT

# 1. tools
run_step install-tools scripts/install-tools.sh bash scripts/install-tools.sh

# 2. contract
if [ "${RESULT[install-tools]}" = ok ]; then
  run_step check-contract scripts/check-contract.sh bash scripts/check-contract.sh
else
  skip_step check-contract "install-tools failed"
fi

# 3. Maven (output shown live and kept for the test counts)
if [ "$SKIP_MAVEN" = 1 ]; then
  skip_step maven "BROOK_SKIP_MAVEN=1"
else
  maven_verify() { ./mvnw -B verify 2>&1 | tee "$MAVEN_LOG"; }
  run_step maven "./mvnw -B verify" maven_verify
fi

# A step's script, its output shown and kept: its closing "NAME: N passed, ..." line joins the summary.
counted() { bash "$1" 2>&1 | tee -a "$SMOKE_LOG"; }

# after_maven NAME SCRIPT: a step that uses the jar Maven built (skipped when Maven failed).
after_maven() {
  if [[ "${RESULT[maven]}" == FAILED* ]]; then
    skip_step "$1" "maven failed"
  else
    run_step "$1" "$2" counted "$2"
  fi
}

# 3b. The Go client (its tests start brokers from the jar step 3 built).
if [ "${RESULT[install-tools]}" != ok ]; then
  skip_step go-client "install-tools failed"
else
  after_maven go-client scripts/go-test.sh
fi

# 3c. A third-language client made from the .proto alone, on gRPC's defaults.
after_maven python-client scripts/python-test.sh

# 3d. Kafka's clients, unmodified, on the Kafka listener (the kgo tests build with the Go from step 1).
if [ "${RESULT[install-tools]}" != ok ]; then
  skip_step kafka-clients "install-tools failed"
else
  after_maven kafka-clients scripts/kafka-clients-test.sh
fi

# 3e. Store-and-forward to a real Kafka 4.3.1 through crashes and an outage (about 3 minutes).
after_maven forward-check scripts/forward-check.sh

# 4. README smoke test (written separately; optional until it exists)
if [ ! -x scripts/readme-smoke.sh ]; then
  skip_step readme-smoke "scripts/readme-smoke.sh not present"
elif [ "${RESULT[install-tools]}" != ok ]; then
  skip_step readme-smoke "install-tools failed"
else
  after_maven readme-smoke scripts/readme-smoke.sh
fi

# 4a. The README's REST relay examples with the real curl, plus auth, CORS and a 413 (D69).
after_maven relay-curl-check scripts/relay-curl-check.sh

# 4b. The metrics as Prometheus' own linter sees them, and the dashboard against them.
after_maven promtool-check scripts/promtool-check.sh

# 5. The same jar on every JDK this machine has (17 and 25): started, used, no JVM warnings.
after_maven jdk-smoke scripts/jdk-smoke.sh

# 6. Every benchmark still runs (briefly; figures are perf/run-storage-bench.sh's job).
after_maven perf-smoke perf/smoke.sh

# 6b. The Brook-vs-Kafka harness drives both systems (figures are bin/brook-perf's full run's job).
after_maven harness-smoke perf/harness-smoke.sh

# 7. The Helm chart, validated offline (no cluster can run here).
run_step helm-check scripts/helm-check.sh counted scripts/helm-check.sh

# 8. The container image with a real Docker engine.
after_maven docker-test scripts/docker-test.sh
