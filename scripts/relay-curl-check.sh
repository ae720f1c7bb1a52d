#!/usr/bin/env bash
# Runs the README's REST relay examples (between <!-- relay-curl-examples --> markers) with the real
# curl against a real broker: each command (with its \ continuations) runs as written, localhost:7080
# pointed at this broker's HTTP port, and its output is compared with the "# " lines after it
# ("..." matches anything). Then a few checks of what the examples do not show: auth with a token,
# CORS preflight, 413 for a huge body. Prints "relay-curl-check: N passed, M failed".
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
. scripts/lib.sh
STEP=relay-curl-check
passed=0 failed=0

work="$(mktemp -d)"
BROKER_PID=""
cleanup() {
  if [[ -n "$BROKER_PID" ]]; then kill "$BROKER_PID" 2>/dev/null; wait "$BROKER_PID" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

http_port() { sed -n 's/.*Brook ready: .*HTTP on [^,]*:\([0-9]*\).*/\1/p' "$1" | tail -1; }

# The examples, as "cmd<TAB>expected" records (NUL-separated) from the README's marked block.
python3 - README.md >"$work/examples" <<'PY'
import shlex, sys
text = open(sys.argv[1], encoding="utf-8").read()
lines, at = [], 0
while "<!-- relay-curl-examples -->" in text[at:]:  # every marked block, in order (produce/fetch, ack mode)
    start = text.index("<!-- relay-curl-examples -->", at)
    at = text.index("<!-- /relay-curl-examples -->", start)
    lines += text[start:at].split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
items, cmd, expected = [], None, []
i = 0
while i < len(lines):
    line = lines[i]
    if line.startswith("# "):
        expected.append(line[2:])
    else:
        if cmd is not None:
            items.append((cmd, "\n".join(expected)))
        cmd, expected = line, []
        while True:  # a command goes on while a line ends in \ or a quote is open
            try:
                shlex.split(cmd)
                complete = not cmd.endswith("\\")
            except ValueError:
                complete = False
            if complete:
                break
            i += 1
            cmd = cmd + "\n" + lines[i]
    i += 1
if cmd is not None:
    items.append((cmd, "\n".join(expected)))
sys.stdout.write("".join(c + "\t" + e + "\0" for c, e in items))
PY

# matches OUTPUT EXPECTED: EXPECTED with "..." as a wildcard, the rest literal.
matches() {
  python3 -c '
import re, sys
out, exp = sys.argv[1], sys.argv[2]
sys.exit(0 if re.fullmatch(".*".join(re.escape(p) for p in exp.split("...")), out, re.S) else 1)' "$1" "$2"
}

start_broker "$work" --set auth.enabled=false
HTTP="127.0.0.1:$(http_port "$work/broker.log")"
export BROOK_BROKER="127.0.0.1:$BROKER_PORT"
n=0
while IFS=$'\t' read -r -d '' cmd expected; do
  n=$((n + 1))
  out="$(bash -c "${cmd//localhost:7080/$HTTP}" 2>&1 || true)"
  out="${out%$'\n'}"
  if [[ -z "$expected" ]]; then
    check "example $n runs: ${cmd%%$'\n'*}" true
  elif matches "$out" "$expected"; then
    check "example $n: ${cmd%%$'\n'*}" true
  else
    echo "  expected: $expected"; echo "  got:      $out"
    check "example $n: ${cmd%%$'\n'*}" false
  fi
done <"$work/examples"
check "the README has relay examples (found $n)" test "$n" -ge 6
kill "$BROKER_PID"; wait "$BROKER_PID" 2>/dev/null || true; BROKER_PID=""

# Auth, CORS and limits on a second broker.
mkdir -p "$work/b2"
printf 'writer produce topic:t\nroot * topic:*\n' >"$work/perms"
start_broker "$work/b2" --set auth.enabled=true --set auth.tokens=writer=w-secret,root=r-secret \
  --set "auth.permissions.file=$work/perms" --set http.cors.origins=https://app.example.com \
  --set max.request.bytes=65536
HTTP="127.0.0.1:$(http_port "$work/b2/broker.log")"
bin/brook topic create t --token r-secret --broker "127.0.0.1:$BROKER_PORT" >/dev/null 2>&1 || true
code() { curl -s -o "$work/body" -w '%{http_code}' "$@"; }
check "no token: 401" test "$(code -H 'Content-Type: application/json' -d '{"records":[{"value":"x"}]}' "$HTTP/topics/t/records")" = 401
check "401 body is JSON UNAUTHENTICATED" grep -q '"status":"UNAUTHENTICATED"' "$work/body"
check "writer's token: 200" test "$(code -H 'Authorization: Bearer w-secret' -H 'Content-Type: application/json' \
  -d '{"records":[{"value":"x"}]}' "$HTTP/topics/t/records")" = 200
check "writer may not read: 403" test "$(code -H 'Authorization: Bearer w-secret' "$HTTP/topics/t/partitions/0/records?offset=0")" = 403
check "403 names the permission" grep -q 'principal writer lacks consume on topic t' "$work/body"
check "CORS preflight: 204" test "$(code -X OPTIONS -H 'Origin: https://app.example.com' \
  -H 'Access-Control-Request-Method: POST' "$HTTP/topics/t/records")" = 204
check "CORS preflight allows the origin" bash -c "curl -s -D - -o /dev/null -X OPTIONS -H 'Origin: https://app.example.com' \
  '$HTTP/topics/t/records' | grep -qi '^access-control-allow-origin: https://app.example.com'"
head -c 100000 /dev/zero >"$work/huge"
check "a body over max.request.bytes: 413" test "$(code -H 'Authorization: Bearer w-secret' \
  -H 'Content-Type: application/octet-stream' --data-binary @"$work/huge" "$HTTP/topics/t/records")" = 413
check "413 body names max.request.bytes" grep -q '"limit":"max.request.bytes"' "$work/body"
check "/openapi.json is OpenAPI 3.1" bash -c "curl -s '$HTTP/openapi.json' | grep -q '\"openapi\":\"3.1.0\"'"

echo "$STEP: $passed passed, $failed failed"
[[ "$failed" -eq 0 ]]
