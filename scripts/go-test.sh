#!/usr/bin/env bash
# The Go client's checks, in order (each must pass):
#   1. the committed generated code is current (scripts/check-go-gen.sh)
#   2. gofmt, go mod tidy -diff, go vet and staticcheck in client-go, client-go/brookprom
#      (the Prometheus collectors, a module of their own), client-go/tests and perf/go
#      (the Go load generator)
#   3. go test -race in each module; client-go/tests starts real brokers with
#      bin/brook (the jar must be built: test-all runs this after Maven)
# Ends with "go-test: N passed, N failed, N skipped" (test-all's summary adds it up).
# Needs scripts/install-tools.sh (protoc-gen-go, protoc-gen-go-grpc, staticcheck).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=tools-env.sh
. scripts/tools-env.sh

MODULES=(client-go client-go/brookprom client-go/tests perf/go)
failed_checks=0
check() { # label command...
  local label=$1
  shift
  echo "go-test: $label"
  if ! "$@"; then
    echo "go-test: FAILED: $label" >&2
    failed_checks=$((failed_checks + 1))
  fi
}

gofmt_clean() {
  local out
  out="$(gofmt -l "$1")"
  [ -z "$out" ] || { echo "not gofmt'ed:"; echo "$out"; return 1; }
}

check "generated code current" bash scripts/check-go-gen.sh
for m in "${MODULES[@]}"; do
  check "gofmt $m" gofmt_clean "$m"
  check "go mod tidy -diff ($m)" go -C "$m" mod tidy -diff
  check "go vet ($m)" go -C "$m" vet ./...
  check "staticcheck ($m)" bash -c "cd '$m' && staticcheck ./..."
done

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
test_rc=0
for m in "${MODULES[@]}"; do
  echo "go-test: go test -race ($m)"
  go -C "$m" test -race -count=1 -v -timeout 20m ./... 2>&1 | tee -a "$log"
  rc=${PIPESTATUS[0]}
  [ "$rc" -eq 0 ] || test_rc=$rc
done

passed=$(grep -cE '^\s*--- PASS: ' "$log" || true)
fails=$(grep -cE '^\s*--- FAIL: ' "$log" || true)
skipped=$(grep -cE '^\s*--- SKIP: ' "$log" || true)
# A package that did not build or panicked fails without a "--- FAIL" line.
if [ "$test_rc" -ne 0 ] && [ "$fails" -eq 0 ]; then fails=1; fi
fails=$((fails + failed_checks))
echo "go-test: $passed passed, $fails failed, $skipped skipped"
[ "$fails" -eq 0 ]
