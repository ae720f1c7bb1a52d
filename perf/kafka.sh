#!/usr/bin/env bash
# shellcheck shell=bash
# The Kafka peer of the performance harness (issue 11): Apache Kafka 4.3.1 (server, kafka-tools and
# kafka-clients, one version, no 4.4 jar), resolved from Maven Central by perf/kafka/pom.xml into
# $HOME/.cache/brook/kafka-4.3.1/libs, run as one KRaft combined node (broker and controller,
# node.id 1) on 127.0.0.1 with free ports and its data in a directory of the caller's.
#
#   perf/kafka.sh resolve                 resolves the jars (once; a stamp marks a complete folder)
#   perf/kafka.sh start DIR               formats DIR (once), starts Kafka, waits until it is ready, writes
#                                         DIR/kafka.env (KAFKA_BOOTSTRAP, KAFKA_PID, ...)
#   perf/kafka.sh stop DIR                SIGTERM, up to 30 s, then SIGKILL; nothing is left running
#   perf/kafka.sh run CLASS [ARGS...]     runs a Kafka tool's main class (ProducerPerformance, ...)
#
# Or source it (. perf/kafka.sh) and call kafka_resolve, kafka_start DIR, kafka_stop DIR, kafka_run;
# a caller's trap stops the node with kafka_stop DIR. Share groups (KIP-932) are on: the share.version
# feature is set to 1 at format time (4.3 has no group.share.enable; the feature gates them). A share
# group still reads nothing until its share.auto.offset.reset is earliest, a GROUP config that is set
# through the Admin API (kafka_share_group_earliest GROUP).
# Settings through env: KAFKA_HEAP_OPTS (default -Xmx1g -Xms1g, as kafka-server-start.sh),
# KAFKA_READY_TIMEOUT (seconds, default 90), KAFKA_STOP_TIMEOUT (seconds, default 30),
# BROOK_CACHE (default $HOME/.cache/brook), KAFKA_TOOLS_HEAP_OPTS (default -Xmx512m).

KAFKA_VERSION=4.3.1
KAFKA_HOME_DIR="${BROOK_CACHE:-$HOME/.cache/brook}/kafka-$KAFKA_VERSION"
KAFKA_LIBS="$KAFKA_HOME_DIR/libs"
KAFKA_STAMP="$KAFKA_HOME_DIR/libs.complete"
KAFKA_REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The JVM flags of Kafka's own kafka-run-class.sh (MaxInlineLevel=15 is JDK 17's default anyway).
KAFKA_JVM_PERFORMANCE_OPTS="-server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35
  -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true"

# kafka_check_libs DIR: the folder holds the three artifacts at 4.3.1 and no other Kafka version.
kafka_check_libs() {
  local dir=$1 jar bad
  for jar in "kafka_2.13-$KAFKA_VERSION.jar" "kafka-tools-$KAFKA_VERSION.jar" "kafka-clients-$KAFKA_VERSION.jar" \
      "kafka-server-$KAFKA_VERSION.jar" log4j-core-*.jar log4j-slf4j-impl-*.jar; do
    compgen -G "$dir/$jar" >/dev/null || { echo "kafka: $jar missing from $dir" >&2; return 1; }
  done
  # Every Apache Kafka artifact (kafka_2.13, kafka-*, connect-*) must be this version: never a 4.4 jar.
  bad="$(cd "$dir" && ls | grep -E '^(kafka[-_]|connect-|trogdor)' | grep -v -- "-$KAFKA_VERSION\.jar\$" || true)"
  if [[ -n "$bad" ]]; then
    echo "kafka: Kafka jars of another version than $KAFKA_VERSION in $dir:" $bad >&2
    return 1
  fi
}

# kafka_resolve: the lib folder, resolved once through the repo's Maven wrapper. The stamp names every
# jar and the pom's checksum; a folder that lacks one of them, or an older pom's, is resolved again.
kafka_resolve() {
  local pom="$KAFKA_REPO/perf/kafka/pom.xml" sum tmp
  sum="$(sha256sum "$pom" | cut -d' ' -f1)"
  if [[ -f "$KAFKA_STAMP" && "$(head -1 "$KAFKA_STAMP")" == "pom $sum" ]] \
      && tail -n +2 "$KAFKA_STAMP" | (cd "$KAFKA_LIBS" 2>/dev/null && xargs -r ls >/dev/null 2>&1) \
      && kafka_check_libs "$KAFKA_LIBS" 2>/dev/null; then
    return 0
  fi
  mkdir -p "$KAFKA_HOME_DIR"
  tmp="$(mktemp -d "$KAFKA_HOME_DIR/libs.XXXXXX")"
  echo "kafka: resolving Kafka $KAFKA_VERSION into $KAFKA_LIBS" >&2
  if ! (cd "$KAFKA_REPO" && ./mvnw -B -q -f perf/kafka/pom.xml dependency:copy-dependencies \
      -DoutputDirectory="$tmp" >&2) || ! kafka_check_libs "$tmp"; then
    rm -rf "$tmp"
    return 1
  fi
  rm -rf "$KAFKA_LIBS" "$KAFKA_STAMP"
  mv "$tmp" "$KAFKA_LIBS"
  { echo "pom $sum"; (cd "$KAFKA_LIBS" && ls); } >"$KAFKA_STAMP"
}

# kafka_java_check: the java on PATH is JDK 17 or later (Kafka 4's broker needs 17).
kafka_java_check() {
  local major
  major="$(java -version 2>&1 | sed -E -n 's/.* version "([0-9]+).*/\1/p' | head -1)"
  [[ -n "$major" && "$major" -ge 17 ]] || { echo "kafka: java on PATH is '${major:-none}', Kafka 4 needs 17+" >&2; return 1; }
}

# kafka_run CLASS [ARGS...]: a Kafka tool's main class on the lib folder, logging warnings to stderr
# (a log4j2 configuration kept beside the lib folder).
kafka_run() {
  local cfg="$KAFKA_HOME_DIR/tools-log4j2.properties"
  if [[ ! -f "$cfg" ]]; then
    mkdir -p "$KAFKA_HOME_DIR"
    printf '%s\n' 'rootLogger.level = WARN' 'rootLogger.appenderRef.err.ref = STDERR' 'appender.err.type = Console' \
      'appender.err.name = STDERR' 'appender.err.target = SYSTEM_ERR' 'appender.err.layout.type = PatternLayout' \
      'appender.err.layout.pattern = [%d] %p %m (%c)%n' >"$cfg.$$" && mv "$cfg.$$" "$cfg"
  fi
  java ${KAFKA_TOOLS_HEAP_OPTS:--Xmx512m} $KAFKA_JVM_PERFORMANCE_OPTS -Dlog4j2.configurationFile="file:$cfg" \
    -cp "$KAFKA_LIBS/*" "$@"
}

# kafka_share_group_earliest GROUP: sets the share group's share.auto.offset.reset to earliest (a
# GROUP config resource, Admin incrementalAlterConfigs through kafka-configs' main class), so that it
# reads the records already in the topic. Needs KAFKA_BOOTSTRAP (source DIR/kafka.env).
kafka_share_group_earliest() {
  kafka_run kafka.admin.ConfigCommand --bootstrap-server "$KAFKA_BOOTSTRAP" --alter --entity-type groups \
    --entity-name "$1" --add-config share.auto.offset.reset=earliest
}

_kafka_uuid() { # a random cluster id as Kafka's Uuid.toString prints it: 16 bytes, url-safe base64
  python3 -c 'import base64,os
while True:
    s = base64.urlsafe_b64encode(os.urandom(16)).decode().rstrip("=")
    if not s.startswith("-"): print(s); break'
}

# kafka_start DIR: formats a KRaft combined node in DIR and starts it; returns once it is ready. A DIR
# started before (its data formatted) is started again as it is: same ports, same data, no format,
# which is what the harness's start-to-ready workloads time.
kafka_start() {
  local dir port cport t0 pid restart=false
  dir="$(mkdir -p "$1" && cd "$1" && pwd)"
  kafka_resolve || return 1
  kafka_java_check || return 1
  [[ -f "$KAFKA_REPO/scripts/lib.sh" ]] && . "$KAFKA_REPO/scripts/lib.sh"
  if [[ -f "$dir/data/meta.properties" && -f "$dir/server.properties" ]]; then
    restart=true
    port="$(sed -n 's|^listeners=PLAINTEXT://127.0.0.1:\([0-9]*\),.*|\1|p' "$dir/server.properties")"
    cport="$(sed -n 's|^controller.quorum.bootstrap.servers=127.0.0.1:||p' "$dir/server.properties")"
    [[ -f "$dir/server.log" ]] && mv "$dir/server.log" "$dir/server.log.1"
  else
    port="$(free_port)"
    cport="$(free_port)"
    while [[ "$cport" == "$port" ]]; do cport="$(free_port)"; done
    cat >"$dir/server.properties" <<EOF
# KRaft combined mode: one process is the broker and the (single-voter) controller.
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$dir/data
num.partitions=1
# One node: the internal topics (consumer offsets, transactions, share-group state) have one replica.
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
EOF
  fi
  cat >"$dir/log4j2.properties" <<EOF
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = FILE
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = $dir/server.log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
EOF
  # --standalone: this node is the only voter of a dynamic quorum (KIP-853), as 4.x's quickstart does.
  # share.version=1 turns share groups (KIP-932) on.
  if ! $restart && ! kafka_run kafka.tools.StorageTool format --config "$dir/server.properties" --cluster-id "$(_kafka_uuid)" \
      --standalone --feature share.version=1 >"$dir/format.log" 2>&1; then
    echo "kafka: formatting failed:" >&2
    cat "$dir/format.log" >&2
    return 1
  fi
  t0="$(date +%s%N)" # ready time: from the server JVM's launch, as Brook's is from its own
  # The node outlives this script: it must not keep the caller's other descriptors open (a lock taken
  # with `flock FILE perf/kafka.sh start` would be held for as long as Kafka runs).
  (
    for fd in $(ls "/proc/$BASHPID/fd"); do
      [[ $fd -gt 2 ]] && eval "exec $fd>&-"
    done
    exec java ${KAFKA_HEAP_OPTS:--Xmx1g -Xms1g} $KAFKA_JVM_PERFORMANCE_OPTS -Dkafka.logs.dir="$dir" \
      -Dlog4j2.configurationFile="file:$dir/log4j2.properties" -cp "$KAFKA_LIBS/*" \
      kafka.Kafka "$dir/server.properties" >"$dir/kafka.out" 2>&1 </dev/null
  ) &
  pid=$!
  {
    echo "KAFKA_PID=$pid"
    echo "KAFKA_DIR=$dir"
  } >"$dir/kafka.env"
  local polls=$(( ${KAFKA_READY_TIMEOUT:-90} * 50 ))
  for _ in $(seq 1 "$polls"); do
    if grep -q "Kafka Server started" "$dir/server.log" 2>/dev/null \
        && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
      {
        echo "KAFKA_BOOTSTRAP=127.0.0.1:$port"
        echo "KAFKA_CONTROLLER=127.0.0.1:$cport"
        echo "KAFKA_PID=$pid"
        echo "KAFKA_DIR=$dir"
        echo "KAFKA_VERSION=$KAFKA_VERSION"
        echo "KAFKA_READY_MS=$ms"
      } >"$dir/kafka.env"
      echo "KAFKA_BOOTSTRAP=127.0.0.1:$port"
      echo "KAFKA_PID=$pid"
      echo "kafka: ready in $ms ms ($($restart && echo restart || echo 'formatted, then started'))" >&2
      return 0
    fi
    _kafka_alive "$pid" || break
    sleep 0.02
  done
  echo "kafka: the node did not become ready; kafka.out and the end of server.log:" >&2
  cat "$dir/kafka.out" >&2
  tail -n 40 "$dir/server.log" >&2 2>/dev/null
  kafka_stop "$dir" >&2
  return 1
}

_kafka_alive() { # PID lives: not gone, and not a zombie with no thread left (a JVM's main thread
  # turns zombie while its other threads still finish the shutdown, so a zombie leader can be alive)
  local st
  st="$(awk '/^State:/ {s=$2} /^Threads:/ {t=$2} END {print s, t}' "/proc/$1/status" 2>/dev/null)" || return 1
  [[ -n "${st% *}" ]] || return 1
  [[ "${st% *}" != Z || "${st#* }" -gt 1 ]]
}

# kafka_stop DIR: stops the node started in DIR: SIGTERM (a controlled shutdown), up to
# KAFKA_STOP_TIMEOUT seconds (30), then
# SIGKILL. Only the pid of DIR/kafka.env, and only if it is still the java running kafka.Kafka on DIR.
kafka_stop() {
  local dir=$1 pid
  [[ -f "$dir/kafka.env" ]] || return 0
  pid="$(sed -n 's/^KAFKA_PID=//p' "$dir/kafka.env" | tail -1)"
  [[ -n "$pid" ]] || return 0
  if _kafka_alive "$pid" && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null \
      | grep -qF "kafka.Kafka $(cd "$dir" && pwd)/server.properties"; then
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 1 $(( ${KAFKA_STOP_TIMEOUT:-30} * 10 ))); do
      _kafka_alive "$pid" || break
      sleep 0.1
    done
    if _kafka_alive "$pid"; then
      echo "kafka: pid $pid still running ${KAFKA_STOP_TIMEOUT:-30} s after SIGTERM; SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null
      for _ in $(seq 1 50); do _kafka_alive "$pid" || break; sleep 0.1; done
    fi
  fi
  wait "$pid" 2>/dev/null || true # reaps it when this shell started it
  # Started by another shell (perf/kafka.sh start), the dead JVM is a zombie until init reaps it
  # (about a second here); wait for that too, so that a caller's kill -0 sees it gone.
  for _ in $(seq 1 50); do [[ -e "/proc/$pid" ]] || break; sleep 0.1; done
  sed -i '/^KAFKA_PID=/d' "$dir/kafka.env"
  ! _kafka_alive "$pid"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  set -euo pipefail
  case "${1:-}" in
    resolve) kafka_resolve && echo "$KAFKA_LIBS" ;;
    start) [[ $# -eq 2 ]] || { echo "usage: $0 start DIR" >&2; exit 2; }; kafka_start "$2" ;;
    stop) [[ $# -eq 2 ]] || { echo "usage: $0 stop DIR" >&2; exit 2; }; kafka_stop "$2" ;;
    run) shift; kafka_resolve && kafka_run "$@" ;;
    *) echo "usage: $0 resolve | start DIR | stop DIR | run CLASS [ARGS...]" >&2; exit 2 ;;
  esac
fi
