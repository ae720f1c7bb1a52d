#!/usr/bin/env bash
# Runs the README's quick start for real, as a new user would: `make run`, the CLI, grpcurl, then
# kill -9 and a restart. The broker gets a temporary data directory and a free port through the
# documented BROOK_* variables, so it never touches ./data or a broker already on 7070.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=scripts/tools-env.sh
source scripts/tools-env.sh
. scripts/lib.sh
STEP=readme-smoke

work="$(mktemp -d)"
port="$(free_port)"
export BROOK_DATA_DIR="$work/data" BROOK_GRPC_LISTEN="127.0.0.1:$port" BROOK_BROKER="127.0.0.1:$port"
export BROOK_HTTP_LISTEN="127.0.0.1:0"   # never a broker already on 7080
export BROOK_KAFKA_LISTEN="127.0.0.1:0"  # nor one on 9092
passed=0 failed=0
broker_pid=""   # the broker's JVM (make's child), not make itself
make_pid=""
starts=0

cleanup() {
  {
    [[ -n "$broker_pid" ]] && kill -9 "$broker_pid" && wait "$broker_pid" || true
    [[ -n "$make_pid" ]] && kill -9 "$make_pid" && wait "$make_pid" || true
  } 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT


start_broker() {
  starts=$((starts + 1))
  log="$work/broker-$starts.log"   # a fresh log per start: never match an earlier start's lines
  make -s run >"$log" 2>&1 &
  make_pid=$!
  wait_ready "$log" "$make_pid" || return 1
  broker_pid="$(pgrep -P "$make_pid" java)"
}

start_broker
check "topic create" bin/brook topic create orders --partitions 3
check "produce 200000 lines" bash -c 'seq 1 200000 | bin/brook produce orders'
count="$(bin/brook consume orders --from earliest --max 200000 | wc -l)"
check "consume prints 200000 (got $count)" test "$count" -eq 200000
describe="$(bin/brook topic describe orders)"
echo "$describe"
check "describe shows 200000 records" grep -Eq '^TOTAL +200000 ' <<<"$describe"
services="$(grpcurl -plaintext "127.0.0.1:$port" list)"
check "grpcurl list (reflection)" grep -q '^brook.v1.ProduceService$' <<<"$services"
check "grpcurl health SERVING" bash -c "grpcurl -plaintext 127.0.0.1:$port grpc.health.v1.Health/Check | grep -q SERVING"

# The quick start for Kafka users, on the Kafka port this broker bound (the README's localhost:9092).
kport="$(sed -n 's/.*Brook ready: .*Kafka on [^,]*:\([0-9]*\),.*/\1/p' "$log" | tail -1)"
kb="127.0.0.1:$kport"
KCAT="$(bash scripts/kcat.sh)"
check "kcat -L lists the broker" bash -c "'$KCAT' -b $kb -L | grep -q 'broker 0 at 127.0.0.1:$kport'"
check "kcat -P -z zstd 100000 lines (topic created on first use)" bash -c "seq 1 100000 | '$KCAT' -b $kb -P -t events -z zstd"
n="$("$KCAT" -b "$kb" -C -t events -o beginning -e -q | wc -l)"
check "kcat -C reads 100000 (got $n)" test "$n" -eq 100000
first="$(bin/brook consume events --from earliest --max 5 --format '%o %v' | tr '\n' ' ')"
check "the same records over gRPC at the same offsets (got $first)" test "$first" = "0 1 1 2 2 3 3 4 4 5 "
check "TopicCommand --create --partitions 6" perf/kafka.sh run org.apache.kafka.tools.TopicCommand \
  --bootstrap-server "$kb" --create --topic t --partitions 6
check "TopicCommand made 6 partitions" bash -c "bin/brook topic describe t | grep -q '^Topic: t .* partitions: 6$'"
check "ConsoleProducer from stdin" bash -c "seq 1 100 | perf/kafka.sh run org.apache.kafka.tools.ConsoleProducer \
  --bootstrap-server $kb --topic lines"
n="$(perf/kafka.sh run org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$kb" --topic lines \
  --partition 0 --offset earliest --max-messages 100 2>/dev/null | wc -l)"
check "ConsoleConsumer --partition 0 --offset earliest reads 100 (got $n)" test "$n" -eq 100
n="$(perf/kafka.sh run org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$kb" --topic lines \
  --group billing --from-beginning --max-messages 100 2>/dev/null | wc -l)"
check "ConsoleConsumer --group billing --from-beginning reads 100 (got $n)" test "$n" -eq 100
CG="perf/kafka.sh run org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server $kb"
described="$($CG --describe --group billing 2>/dev/null)"
check "kafka-consumer-groups --describe: billing at 100 on lines, lag 0" \
  test "$(awk '$1 == "billing" && $2 == "lines" && $4 == 100 && $6 == 0' <<<"$described" | wc -l)" -eq 1
brook_view="$(bin/brook group describe billing)"
check "bin/brook group describe billing: type classic" grep -q 'type: classic' <<<"$brook_view"
check "bin/brook group describe billing: lines committed at 100, as kafka-consumer-groups says" \
  test "$(awk '$1 == "lines" && $3 == 100' <<<"$brook_view" | wc -l)" -eq 1
check "kafka-consumer-groups --reset-offsets --to-earliest --execute" bash -c \
  "$CG --reset-offsets --to-earliest --group billing --topic lines --execute 2>/dev/null | grep -q 'billing *lines *0 *0'"
n="$("$KCAT" -b "$kb" -G billing lines -e -q | wc -l)"
check "kcat -G billing reads the 100 again from the reset offsets (got $n)" test "$n" -eq 100
check "kafka-consumer-groups --delete" bash -c "$CG --delete --group billing 2>/dev/null | grep -q successful"

# Consumer groups, as the README's section runs them.
n="$(bin/brook consume orders --group billing --from earliest | wc -l)"
check "consume --group prints every record once (got $n)" test "$n" -eq 200000
n="$(bin/brook consume orders --group billing --from earliest | wc -l)"
check "the group goes on where it committed: nothing left (got $n)" test "$n" -eq 0
billing="$(bin/brook group describe billing)"
echo "$billing"
check "group describe billing: 3 partitions, lag 0" test "$(awk '$1 == "orders" && $5 == 0' <<<"$billing" | wc -l)" -eq 3
check "group reset --to earliest" bin/brook group reset billing --to earliest --topic orders
n="$(bin/brook consume orders --group billing --from earliest | wc -l)"
check "after the reset the group reads everything again (got $n)" test "$n" -eq 200000
check "group create workers (ack mode)" bin/brook group create workers --mode ack \
  --config auto.offset.reset=earliest --config max.delivery.attempts=3
n="$(bin/brook consume orders --group workers --ack --format '%p/%o attempt %a: %v' | grep -c ' attempt 1: ')"
check "consume --ack prints and acks every record (got $n)" test "$n" -eq 200000
workers="$(bin/brook group describe workers)"
echo "$workers"
check "group describe workers: all settled" test "$(awk '$1 == "orders" && $3 == $4 && $6 == 0' <<<"$workers" | wc -l)" -eq 3
check "topic create clicks with retention config" bin/brook topic create clicks --partitions 3 \
  --config segment.roll=10m --config retention.ms=86400000
check "topic alter clicks retention.bytes" bin/brook topic alter clicks --set retention.bytes=10737418240
clicks="$(bin/brook topic describe clicks)"
check "topic describe clicks shows both limits and a 10m roll" bash -c \
  "grep -q 'retention.bytes=10737418240' <<<\"\$1\" && grep -q 'retention.ms=86400000' <<<\"\$1\" && grep -q 'segment.roll=10m' <<<\"\$1\"" _ "$clicks"

# Health, metrics and stats: the README's curl commands, on the port this broker chose.
http_port="$(grep -o 'HTTP on http://[^ ]*' "$log" | head -n 1 | sed 's/.*://')"
check "curl /healthz: ok" bash -c "curl -sf 127.0.0.1:$http_port/healthz | grep -qx ok"
check "curl /readyz: ready" bash -c "curl -sf 127.0.0.1:$http_port/readyz | grep -qx ready"
check "curl /metrics: orders' produced records" bash -c \
  "curl -sf 127.0.0.1:$http_port/metrics | grep -Eq '^brook_produced_records_total\\{topic=\"orders\"\\} [1-9]'"
check "curl /stats: JSON naming the topic" bash -c "curl -sf 127.0.0.1:$http_port/stats | grep -q '\"orders\"'"

# From Go: the README's example programs, against the same broker ($BROOK_BROKER).
go_example() { (cd client-go && go run "./examples/$1" "${@:2}") 2>&1 || true; }
out="$(go_example produce -topic orders -n 10)"
check "go example produce: 10 records with offsets" test "$(grep -c '^produced partition=[0-9]* offset=[0-9]' <<<"$out")" -eq 10
out="$(go_example consume -topic orders -n 10 -group go-billing)"
check "go example consume: 10 records in a group" grep -q '^consumed 10 records$' <<<"$out"
out="$(go_example ack -topic orders -n 10 -group go-workers)"
check "go example ack: at least 10 acked, one nacked and delivered again" bash -c \
  "grep -Eq '^acked [1-9][0-9]+ records\$' <<<\"\$1\" && grep -q 'attempt=2 .* -> ack' <<<\"\$1\"" _ "$out"

# kill -9 and start again: same records at the same offsets, the next produce continues.
before="$(bin/brook consume orders --from earliest --format '%p %o %v' | sort | md5sum)"
kill -9 "$broker_pid"
for _ in $(seq 1 100); do kill -0 "$broker_pid" 2>/dev/null || break; sleep 0.1; done
check "the broker JVM is gone after kill -9" bash -c "! kill -0 $broker_pid 2>/dev/null"
wait "$make_pid" 2>/dev/null || true
old_pid="$broker_pid"
start_broker
check "a new broker process serves after the restart" test "$broker_pid" != "$old_pid"
after="$(bin/brook consume orders --from earliest --format '%p %o %v' | sort | md5sum)"
check "records and offsets unchanged after kill -9" test "$before" = "$after"
next="$(echo 'after-restart' | bin/brook produce orders --partition 0 2>/dev/null; bin/brook consume orders --partition 0 --from-time 1970-01-01 --format '%o %v' | tail -n 1)"
end0="$(bin/brook topic describe orders | awk '$1 == "0" {print $3}')"
check "the next produce continues at the next offset ($next, end $end0)" test "$next" = "$((end0 - 1)) after-restart"

# Running it with TLS and tokens: the README's walkthrough, in a directory of its own with free
# ports (BROOK_* variables beat the properties file), then the CLI and curl as it shows them.
kill -9 "$broker_pid" 2>/dev/null || true
wait "$make_pid" 2>/dev/null || true
broker_pid="" make_pid=""
secure_port="$(free_port)" secure_http="$(free_port)"
readme_root="$ROOT"
(
  cd "$work" && mkdir -p secure
  set -e
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 365 \
    -subj "/CN=Brook dev CA" -keyout secure/ca-key.pem -out secure/ca.pem
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=localhost" \
    -keyout secure/broker-key.pem -out secure/broker.csr
  openssl x509 -req -in secure/broker.csr -CA secure/ca.pem -CAkey secure/ca-key.pem -CAcreateserial \
    -days 365 -extfile <(printf 'subjectAltName=DNS:localhost,IP:127.0.0.1') -out secure/broker.pem
  echo "alice=$(openssl rand -hex 24)" > secure/tokens
  printf 'alice * topic:*\nalice * group:*\n' > secure/permissions
  printf '%s\n' data.dir=secure/data tls.cert.file=secure/broker.pem tls.key.file=secure/broker-key.pem \
    auth.enabled=true auth.tokens.file=secure/tokens auth.permissions.file=secure/permissions \
    > secure/brook.properties
) >"$work/secure-setup.log" 2>&1
check "the walkthrough's openssl and files" test -s "$work/secure/brook.properties"
unset BROOK_DATA_DIR BROOK_KAFKA_LISTEN # with auth the Kafka listener stays off at its default (no SASL yet)
(cd "$work" && BROOK_GRPC_LISTEN="localhost:$secure_port" BROOK_HTTP_LISTEN="localhost:$secure_http" \
  exec "$readme_root/bin/brook" broker --config secure/brook.properties) >"$work/secure.log" 2>&1 &
broker_pid=$!
wait_ready "$work/secure.log" "$broker_pid" || true
check "secure broker logs TLS and auth on" grep -q 'Security: TLS on, mTLS off; auth on: 1 principals' "$work/secure.log"
export BROOK_BROKER="localhost:$secure_port"
(
  cd "$work"
  export BROOK_TOKEN="$(cut -d= -f2- secure/tokens)"
  b="$readme_root/bin/brook"
  check "secure: topic create payments" "$b" topic create payments --partitions 3 --tls-ca secure/ca.pem
  check "secure: produce 100" bash -c "seq 1 100 | '$b' produce payments --tls-ca secure/ca.pem"
  n="$("$b" consume payments --from earliest --max 100 --tls-ca secure/ca.pem | wc -l)"
  check "secure: consume prints 100 (got $n)" test "$n" -eq 100
  check "secure: curl /metrics with the token" bash -c "curl -s --cacert secure/ca.pem \
    -H 'Authorization: Bearer $BROOK_TOKEN' https://localhost:$secure_http/metrics \
    | grep -Eq '^brook_produced_records_total\\{topic=\"payments\"\\} 100'"
  code="$(curl -s -o /dev/null -w '%{http_code}' --cacert secure/ca.pem https://localhost:$secure_http/metrics)"
  check "secure: curl /metrics without the token is 401 (got $code)" test "$code" = 401
  out="$(BROOK_TOKEN= "$b" topic list --tls-ca secure/ca.pem 2>&1 || true)"
  check "secure: the CLI without a token is UNAUTHENTICATED" grep -q 'no bearer token or client certificate' <<<"$out"
  out="$("$b" topic list 2>&1 || true)"
  check "secure: a plaintext CLI does not get in" bash -c "! grep -q payments <<<\"\$1\"" _ "$out"
  echo "$passed $failed" > "$work/secure-counts"
)
read -r passed failed < "$work/secure-counts" || failed=$((failed + 1))

echo "readme-smoke: $passed passed, $failed failed"
[[ "$failed" -eq 0 ]]
