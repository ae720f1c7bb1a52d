#!/usr/bin/env bash
# Debian's kcat (librdkafka) against any Kafka bootstrap address: Brook's Kafka listener or Apache
# Kafka (perf/kafka.sh start). Topics are made by the first produce (topic auto-creation), each run
# under its own prefix.
#
#   scripts/kcat-check.sh BOOTSTRAP [RECORDS]      RECORDS per codec, default 1000
#
# Checks, each one line "kcat-check: ok|FAIL ...":
#   -L              the metadata lists a broker, and the topics after they were produced to
#   -P -z CODEC     RECORDS lines produced with each codec (none, gzip, snappy, lz4, zstd) to a topic
#                   of its own, then -C -o beginning -e reads back exactly those lines
#   -K and -H       keys and headers round trip (three keyed records, one with an empty value, two
#                   headers on each)
# kcat's consumer (librdkafka 2.0.2) reads read_committed by default; nothing here changes that.
# Ends with "kcat-check: N passed, N failed". kcat comes from scripts/kcat.sh (installed and cached
# on first use). Each kcat run is bounded by KCAT_TIMEOUT seconds (default 60).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STEP=kcat-check
. "$ROOT/scripts/lib.sh"

[[ $# -ge 1 && $# -le 2 ]] || { echo "usage: $0 BOOTSTRAP [RECORDS]" >&2; exit 2; }
BOOTSTRAP=$1
RECORDS=${2:-1000}
TIMEOUT=${KCAT_TIMEOUT:-60}
KCAT="$("$ROOT/scripts/kcat.sh")"
PREFIX="kcat-check-$(date +%s)-$$"
passed=0 failed=0
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "$STEP: $("$KCAT" -V 2>&1 | sed -n 's/^Version \([^ ]*\) .*librdkafka \([^ ]*\) .*/kcat \1, librdkafka \2/p') against $BOOTSTRAP, $RECORDS records per codec"

kcat() { timeout "$TIMEOUT" "$KCAT" -b "$BOOTSTRAP" "$@"; }

# same EXPECTED-FILE GOT-FILE: the same lines in any order (a topic may have several partitions),
# else the first differences on stdout.
same() {
  if diff <(sort "$1") <(sort "$2") >"$work/diff"; then return 0; fi
  echo "    expected $(wc -l <"$1") lines, got $(wc -l <"$2"); first differences:"
  head -n 6 "$work/diff" | sed 's/^/    /'
  return 1
}

# -L: at least one broker, each with a host:port name
metadata() {
  kcat -L -J >"$work/meta.json" 2>"$work/err" || { cat "$work/err"; return 1; }
  python3 - "$work/meta.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
brokers = m.get("brokers") or []
assert brokers, f"no broker in the metadata: {m}"
for b in brokers:
    assert ":" in b["name"], f"broker without host:port: {b}"
print("    brokers:", ", ".join(f"{b['id']}={b['name']}" for b in brokers))
EOF
}
check "-L lists the brokers" metadata

# -P -z CODEC then -C -o beginning -e: the same lines back
codec_round_trip() {
  local codec=$1 topic="$PREFIX-$1"
  seq 1 "$RECORDS" | sed "s/^/$codec-/" >"$work/sent-$codec"
  kcat -P -t "$topic" -z "$codec" <"$work/sent-$codec" 2>"$work/err" || { cat "$work/err"; return 1; }
  kcat -C -t "$topic" -o beginning -e -q >"$work/got-$codec" 2>"$work/err" || { cat "$work/err"; return 1; }
  same "$work/sent-$codec" "$work/got-$codec"
}
for codec in none gzip snappy lz4 zstd; do
  check "-P -z $codec: $RECORDS records, -C -o beginning -e reads them back" codec_round_trip "$codec"
done

# -K and -H: keys (one record with an empty value) and two headers on every record
keys_and_headers() {
  local topic="$PREFIX-keyed"
  printf 'k1:v1\nk2:v2 with spaces\nk3:\n' >"$work/keyed"
  kcat -P -t "$topic" -K : -H trace=abc -H app=kcat-check <"$work/keyed" 2>"$work/err" || { cat "$work/err"; return 1; }
  printf '%s\n' 'key=k1 value=v1 headers=trace=abc,app=kcat-check' \
    'key=k2 value=v2 with spaces headers=trace=abc,app=kcat-check' \
    'key=k3 value= headers=trace=abc,app=kcat-check' >"$work/keyed-want"
  kcat -C -t "$topic" -o beginning -e -q -f 'key=%k value=%s headers=%h\n' >"$work/keyed-got" 2>"$work/err" ||
    { cat "$work/err"; return 1; }
  same "$work/keyed-want" "$work/keyed-got"
}
check "-K : -H: keys and headers round trip" keys_and_headers

# -L -t: every topic made above is in the metadata, with partitions and no error
topics_listed() {
  local t
  for t in none gzip snappy lz4 zstd keyed; do
    kcat -L -J -t "$PREFIX-$t" >"$work/meta.json" 2>"$work/err" || { cat "$work/err"; return 1; }
    python3 - "$work/meta.json" "$PREFIX-$t" <<'EOF' || return 1
import json, sys
m, name = json.load(open(sys.argv[1])), sys.argv[2]
t = [t for t in m.get("topics", []) if t["topic"] == name]
assert t and not t[0].get("error") and t[0]["partitions"], f"topic {name}: {t}"
EOF
  done
}
check "-L -t shows each topic produced to, with its partitions" topics_listed

echo "$STEP: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
