#!/usr/bin/env bash
# Brook is Java 17 bytecode that must run on JDK 17 and 25: start the broker through bin/brook on
# each JDK this machine has (JAVA_HOME/default java, and every /usr/lib/jvm/*), produce and consume
# through the CLI on the same JDK, and fail on any JVM warning (a missing flag for that JDK shows up
# as "WARNING: ..." at start).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
. scripts/lib.sh
passed=0 failed=0
declare -A seen=()
javas=("$(command -v java)")
for j in /usr/lib/jvm/*/bin/java; do [[ -x "$j" ]] && javas+=("$j"); done

for java in "${javas[@]}"; do
  real="$(readlink -f "$java")"
  [[ -n "${seen[$real]:-}" ]] && continue
  seen[$real]=1
  version="$("$java" -version 2>&1 | sed -n 's/.* version "\([0-9]*\).*/\1/p' | head -n1)"
  [[ "$version" =~ ^[0-9]+$ ]] && (( version >= 17 )) || continue
  work="$(mktemp -d)"
  port="$(free_port)"
  export BROOK_JAVA="$java" BROOK_BROKER="127.0.0.1:$port"
  bin/brook broker --data-dir "$work/data" --grpc-listen "127.0.0.1:$port" --http-listen 127.0.0.1:0 --kafka-listen= >"$work/broker.log" 2>&1 &
  pid=$!
  ok=1
  wait_ready "$work/broker.log" $pid || ok=0
  bin/brook topic create jdk --partitions 2 >"$work/cli.log" 2>&1 || ok=0
  seq 1 5000 | bin/brook produce jdk >>"$work/cli.log" 2>&1 || ok=0
  count="$(bin/brook consume jdk 2>>"$work/cli.log" | wc -l)"
  [[ "$count" -eq 5000 ]] || ok=0
  kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true
  if grep -q "WARNING" "$work/broker.log" "$work/cli.log"; then ok=0; fi
  if (( ok )); then
    passed=$((passed + 1)); echo "jdk-smoke: ok   JDK $version ($real): broker up, 5000 records produced and consumed, no JVM warnings"
  else
    failed=$((failed + 1)); echo "jdk-smoke: FAIL JDK $version ($real) (consumed $count)"; cat "$work/broker.log" "$work/cli.log"
  fi
  rm -rf "$work"
done
echo "jdk-smoke: $passed passed, $failed failed"
(( failed == 0 && passed > 0 ))
