# shellcheck shell=bash
# Helpers the test and perf scripts share. Source it: . scripts/lib.sh

# A free TCP port on 127.0.0.1.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# wait_ready LOG PID [TENTHS]: waits until the broker logging to LOG says "Brook ready", while
# PID (the broker, or the make/launcher in front of it) lives; 60 s by default.
wait_ready() {
  local log=$1 pid=$2 tenths=${3:-600}
  for _ in $(seq 1 "$tenths"); do
    grep -q "Brook ready" "$log" 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "the broker did not become ready; its log:" >&2
  cat "$log" >&2
  return 1
}

# start_broker DIR [ARGS...]: starts bin/brook broker on DIR/data and a free loopback port, logging
# to DIR/broker.log, and waits until it is ready. Sets BROKER_PID and BROKER_PORT; the caller stops it.
# No Kafka listener (never a clash on localhost:9092) unless ARGS has --kafka-listen, which wins.
start_broker() {
  local dir=$1
  shift
  BROKER_PORT="$(free_port)"
  bin/brook broker --data-dir "$dir/data" --grpc-listen "127.0.0.1:$BROKER_PORT" --http-listen 127.0.0.1:0 --set kafka.listen= "$@" >"$dir/broker.log" 2>&1 &
  BROKER_PID=$!
  wait_ready "$dir/broker.log" "$BROKER_PID"
}

# check DESCRIPTION COMMAND...: runs COMMAND and counts it in passed or failed, printing
# "$STEP: ok   DESCRIPTION" or "$STEP: FAIL DESCRIPTION" (STEP is the calling script's name).
check() {
  local what="$1"; shift
  if "$@"; then passed=$((passed + 1)); echo "$STEP: ok   $what"
  else failed=$((failed + 1)); echo "$STEP: FAIL $what"; fi
}
