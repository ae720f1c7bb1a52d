#!/usr/bin/env bash
# Checks the broker's /metrics with the real `promtool check metrics` (Prometheus' own linter) on a
# live scrape, after topics, an offset group and an ack group have been used through the CLI, and
# checks that every metric the Grafana dashboard (deploy/grafana/brook-dashboard.json) queries is
# in that scrape, so the dashboard cannot drift from the code.
#
# promtool comes from Debian's `prometheus` package without installing the service: `apt-get
# download` and `dpkg-deb -x` into $BROOK_TOOLS_DIR/promtool (default $HOME/.cache/brook/tools, as
# scripts/install-tools.sh), cached with a stamp of the package version.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
. scripts/lib.sh
STEP=promtool-check

BROOK_TOOLS_DIR="${BROOK_TOOLS_DIR:-$HOME/.cache/brook/tools}"
PROMTOOL_DIR="$BROOK_TOOLS_DIR/promtool"
STAMP="$BROOK_TOOLS_DIR/stamps/promtool"
DASHBOARD=deploy/grafana/brook-dashboard.json
passed=0 failed=0
work="$(mktemp -d)"
BROKER_PID=""

cleanup() {
  if [[ -n "$BROKER_PID" ]] && kill -0 "$BROKER_PID" 2>/dev/null; then
    kill "$BROKER_PID" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$BROKER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$BROKER_PID" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT


install_promtool() {
  mkdir -p "$PROMTOOL_DIR" "$(dirname "$STAMP")"
  if [[ -x "$PROMTOOL_DIR/promtool" && -f "$STAMP" ]]; then
    echo "promtool-check: promtool cached ($(cat "$STAMP")) -> $PROMTOOL_DIR/promtool"
    return 0
  fi
  local dl="$work/deb"
  mkdir -p "$dl"
  (cd "$dl" && apt-get download prometheus >/dev/null 2>&1) || {
    echo "promtool-check: ERROR: apt-get download prometheus failed" >&2; return 1; }
  local deb
  deb="$(ls "$dl"/prometheus_*.deb)"
  dpkg-deb -x "$deb" "$dl/x"
  cp "$dl/x/usr/bin/promtool" "$PROMTOOL_DIR/promtool.new"
  mv "$PROMTOOL_DIR/promtool.new" "$PROMTOOL_DIR/promtool"
  dpkg-deb -f "$deb" Package Version | tr '\n' ' ' >"$STAMP"
  echo "promtool-check: promtool installed ($(cat "$STAMP")) -> $PROMTOOL_DIR/promtool"
}

if ! install_promtool; then
  echo "promtool-check: 0 passed, 1 failed, 0 skipped"
  exit 1
fi
PROMTOOL="$PROMTOOL_DIR/promtool"
"$PROMTOOL" --version 2>&1 | head -n 1

# A forward route to a Kafka address that refuses connections: its brook_forward_* series are in
# the scrape (the dashboard queries them) without a Kafka cluster.
printf 'forward.orders.source=orders\nforward.orders.bootstrap.servers=127.0.0.1:1\n' >"$work/brook.properties"
start_broker "$work" --config "$work/brook.properties"
http_port="$(sed -n 's/.*Brook ready: .*, HTTP on [^:]*:\([0-9]*\),.*/\1/p' "$work/broker.log" | head -n 1)"
export BROOK_BROKER="127.0.0.1:$BROKER_PORT"
base="http://127.0.0.1:$http_port"
echo "promtool-check: broker pid $BROKER_PID, gRPC $BROKER_PORT, HTTP $http_port"

# Traffic of every kind the metrics describe: produce, an offset group, an ack group, a refusal.
bin/brook topic create orders --partitions 3 >/dev/null
seq 1 1000 | bin/brook produce orders >/dev/null
n="$(bin/brook consume orders --group billing --from earliest | wc -l)"
check "consume --group billing read 1000 (got $n)" test "$n" -eq 1000
bin/brook group create workers --mode ack --config auto.offset.reset=earliest >/dev/null
n="$(bin/brook consume orders --group workers --ack --max 1000 | wc -l)"
check "consume --ack workers read 1000 (got $n)" test "$n" -eq 1000
bin/brook topic create orders >/dev/null 2>&1 || true   # refused: it exists

check "/healthz answers 200" curl -fsS -o /dev/null "$base/healthz"
check "/readyz answers 200" curl -fsS -o /dev/null "$base/readyz"
scrape="$work/metrics.txt"
curl -fsS "$base/metrics" >"$scrape"
echo "promtool-check: scraped $(grep -vc '^#' "$scrape") samples, $(grep -c '^# TYPE' "$scrape") metrics"

lint="$("$PROMTOOL" check metrics <"$scrape" 2>&1)" && rc=0 || rc=$?
[[ -n "$lint" ]] && echo "$lint"
check "promtool check metrics: no complaints (rc $rc)" test "$rc" -eq 0 -a -z "$lint"
check "brook_produced_records_total{topic=\"orders\"} is 1000" \
  grep -qx 'brook_produced_records_total{topic="orders"} 1000.0' "$scrape"
check "brook_rejected_requests_total counts the refused create" \
  grep -q '^brook_rejected_requests_total{code="ALREADY_EXISTS",reason="TOPIC_ALREADY_EXISTS"} 1.0$' "$scrape"
check "brook_forward_lag_records{route=\"orders\"} is 1000 (its Kafka refuses connections)" \
  grep -qx 'brook_forward_lag_records{route="orders"} 1000.0' "$scrape"

# Every metric the dashboard queries is in the scrape (as a sample or a declared metric).
missing=()
while read -r name; do
  grep -q "^$name[{ ]" "$scrape" || grep -q "^# TYPE $name " "$scrape" || missing+=("$name")
done < <(grep -o '"expr": *"[^"]*' "$DASHBOARD" | grep -oE '\b(brook|jvm|process)_[a-zA-Z0-9_]+' | sort -u)
[[ ${#missing[@]} -eq 0 ]] || echo "promtool-check: the dashboard queries metrics the broker does not expose: ${missing[*]}"
check "every metric in $DASHBOARD is in the scrape" test "${#missing[@]}" -eq 0

echo "promtool-check: $passed passed, $failed failed, 0 skipped"
[[ "$failed" -eq 0 ]]
