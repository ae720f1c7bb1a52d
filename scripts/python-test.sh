#!/usr/bin/env bash
# Brook's contract as a third-language client sees it: Python stubs generated from the .proto files
# alone (grpcio-tools), on gRPC's default channel settings (a 4 MiB inbound message limit), against
# the real broker (bin/brook broker; the jar must be built: test-all runs this after Maven).
# Tests: protocol/src/test/python (pytest), and the Python examples of docs/ they run.
# The venv is cached in $BROOK_TOOLS_DIR/python-venv, rebuilt when requirements.txt changes.
# Ends with "python-test: N passed, N failed, N skipped" (test-all's summary adds it up).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=tools-env.sh
. scripts/tools-env.sh
STEP=python-test
TESTS=protocol/src/test/python
REQS="$TESTS/requirements.txt"
VENV="$BROOK_TOOLS_DIR/python-venv"
STAMP="$VENV/.requirements-$(sha256sum "$REQS" | cut -c1-16)"

fail() { echo "$STEP: $1" >&2; echo "$STEP: 0 passed, 1 failed, 0 skipped"; exit 1; }

if [ ! -f "$STAMP" ]; then
  echo "$STEP: installing $(grep -vc '^#' "$REQS") packages into $VENV ..."
  rm -rf "$VENV"
  if ! python3 -m venv "$VENV" 2>/dev/null; then
    rm -rf "$VENV"
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then # Debian keeps venv apart
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-venv >/dev/null 2>&1 ||
        { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-venv >/dev/null; }
    fi
    python3 -m venv "$VENV" || fail "python3 -m venv failed (on Debian: apt-get install python3-venv)"
  fi
  "$VENV/bin/pip" install -q --disable-pip-version-check -r "$REQS" || fail "pip install -r $REQS failed"
  touch "$STAMP"
fi

GEN="$(mktemp -d)"
trap 'rm -rf "$GEN"' EXIT
"$VENV/bin/python" -m grpc_tools.protoc -I protocol/src/main/proto --python_out="$GEN" --grpc_python_out="$GEN" \
  protocol/src/main/proto/brook/v1/*.proto || fail "protoc (grpcio-tools) failed on the .proto files"

REPORT="$GEN/report.txt"
PYTHONPATH="$GEN:$ROOT/$TESTS" "$VENV/bin/python" -m pytest -p no:cacheprovider -ra \
  --junit-xml "$GEN/junit.xml" "$TESTS" 2>&1 | tee "$REPORT"
rc=${PIPESTATUS[0]}
counts="$("$VENV/bin/python" - "$GEN/junit.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
except Exception:
    print("0 0 0"); sys.exit()
suites = [root] if root.tag == "testsuite" else list(root)
t = sum(int(s.get("tests", 0)) for s in suites)
f = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
k = sum(int(s.get("skipped", 0)) for s in suites)
print(t - f - k, f, k)
PY
)"
read -r passed failed skipped <<<"$counts"
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi # collection errors, a crash
echo "$STEP: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
