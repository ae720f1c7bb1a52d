#!/usr/bin/env bash
# Usage: perf/cli-ab.sh TREE LABEL -- TREE is a checkout whose broker jar is built (./mvnw -DskipTests package);
# the CLI of this checkout produces and consumes. Run two trees in turn under the same load.
# A/B: broker CPU and wall time for 1M CLI-produced lines (the Java producer's stream) and a tail/fetch consume.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tree=$1; label=$2
d=$(mktemp -d); port=$((17200 + RANDOM % 500)); hport=$((port + 1000))
(cd $tree && exec bin/brook broker --data-dir $d --grpc-listen 127.0.0.1:$port --http-listen 127.0.0.1:$hport --set kafka.listen= > $d/log 2>&1) &
sleep 8
pid=$(pgrep -f "data-dir $d" | head -1)
cpu() { awk '{print $14+$15}' /proc/$1/stat; }
export BROOK_BROKER=127.0.0.1:$port
for r in 1 2 3; do
  "$here"/bin/brook topic create t$r --partitions 1 >/dev/null
  c0=$(cpu $pid); t0=$(date +%s.%N)
  seq 1 1000000 | "$here"/bin/brook produce t$r >/dev/null
  t1=$(date +%s.%N); c1=$(cpu $pid)
  n=$("$here"/bin/brook consume t$r --from earliest --max 1000000 | wc -l)
  t2=$(date +%s.%N); c2=$(cpu $pid)
  echo "$label run $r: produce wall $(echo "$t1-$t0" | bc) s broker cpu $((c1-c0)) ticks; consume $n wall $(echo "$t2-$t1" | bc) s broker cpu $((c2-c1)) ticks"
done
kill $pid; sleep 2; rm -rf $d
