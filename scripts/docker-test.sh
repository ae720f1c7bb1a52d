#!/usr/bin/env bash
# The container image, proven with a real Docker engine (a step of `make test`, after Maven built the
# jar): starts a private dockerd and makes the local JRE base image (scripts/docker-env.sh; nothing
# can be pulled here), builds deploy/docker/Dockerfile on it, then runs deploy/image-test (Testcontainers:
# the image used through the Java client, restarted on its volume, the chart's helm test script
# against it, the environment of the chart's pod as `helm template brook deploy/helm/brook` renders
# it, and the chart's pod under auth and TLS (ci/auth-values.yaml) serving Kafka clients over SASL,
# with helm from scripts/helm-tools.sh). Stops the dockerd it started, whatever happens.
# Ends with "docker-test: N passed, N failed, N skipped" (test-all's closing line adds it up).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
. scripts/lib.sh
. scripts/docker-env.sh
. scripts/helm-tools.sh
STEP=docker-test
IMAGE="brook:test-$$"
passed=0 failed=0 skipped=0
log="$(mktemp)"
rendered="$(mktemp --suffix=.yaml)"
rendered_auth="$(mktemp --suffix=.yaml)"

finish() {
  local rc=$?
  if [[ $rc -ne 0 && $failed -eq 0 ]]; then
    echo "docker-test: FAIL stopped early (rc $rc): see above"
    failed=1
  fi
  docker_down || true
  rm -f "$log" "$rendered" "$rendered_auth"
  echo "docker-test: $passed passed, $failed failed, $skipped skipped"
  [[ $rc -eq 0 && $failed -eq 0 ]] || exit 1
}
trap finish EXIT

[[ -f broker/target/brook.jar && -f broker/target/jvm.flags ]] || {
  echo "docker-test: broker/target/brook.jar is missing: run ./mvnw package first" >&2
  exit 1
}

start=$SECONDS
docker_up
docker_base_image
echo "docker-test: engine and base image ready in $((SECONDS - start)) s"

build_image() {
  DOCKER_BUILDKIT=0 docker build -q -f deploy/docker/Dockerfile --build-arg "BASE_IMAGE=$BROOK_BASE_IMAGE" \
    -t "$IMAGE" . >/dev/null
}
check "docker build deploy/docker/Dockerfile on $BROOK_BASE_IMAGE -> $IMAGE" build_image

image_config() {
  local user entry
  user="$(docker image inspect -f '{{.Config.User}}' "$IMAGE")"
  entry="$(docker image inspect -f '{{json .Config.Entrypoint}}' "$IMAGE")"
  [[ "$user" == 10001:10001 && "$entry" == '["/opt/brook/bin/brook","broker"]' ]] ||
    { echo "user $user, entrypoint $entry"; return 1; }
  docker image inspect -f '{{json .Config.Volumes}}' "$IMAGE" | grep -q '"/var/lib/brook"' || return 1
  local ports
  ports="$(docker image inspect -f '{{json .Config.ExposedPorts}}' "$IMAGE")"
  [[ "$ports" == *'"7070/tcp"'* && "$ports" == *'"7080/tcp"'* && "$ports" == *'"9092/tcp"'* ]] ||
    { echo "exposed ports $ports, want 7070, 7080 and 9092 (Kafka)"; return 1; }
}
check "image runs as 10001:10001, entrypoint brook broker, volume /var/lib/brook, exposes 7070 7080 9092" image_config

# Whether the broker has the Kafka listener (kafka.listen): then each test container binds it on a
# loopback port of its own, as gRPC and HTTP (host network), never the image's or the chart's 9092.
kafka_listener=false
if bin/brook config 2>/dev/null | grep -q '^kafka\.listen '; then kafka_listener=true; fi
echo "docker-test: the broker has the Kafka listener: $kafka_listener"

# The Java tests (Maven's reactor builds the client they use; no other module's tests run here).
image_tests() {
  ./mvnw -B -P image-test -pl protocol,client-java,deploy/image-test verify -Dbrook.image="$IMAGE" \
    -Dbrook.chart.rendered="$rendered" -Dbrook.chart.rendered.auth="$rendered_auth" \
    -Dbrook.kafka.listener="$kafka_listener" \
    -Dtest=NoSuchTest -Dsurefire.failIfNoSpecifiedTests=false 2>&1 | tee "$log"
  return "${PIPESTATUS[0]}"
}
if [[ $failed -gt 0 ]]; then
  # without the image Testcontainers would try to pull it, for minutes
  echo "docker-test: FAIL the image tests: not run, the image was not built as it should be"
  failed=$((failed + 1))
  exit 1
fi

# The chart as `helm install brook deploy/helm/brook` makes it: ImageIT starts the image with its pod's
# environment (the service-link variables of its Services included); ChartKafkaSaslIT starts its pod
# with auth and TLS on (its generated tokens and certificate) and connects Kafka clients over SASL.
render_chart() {
  install_helm && "$HELM" template brook deploy/helm/brook -n brook >"$rendered" &&
    "$HELM" template brook deploy/helm/brook -n brook -f deploy/helm/brook/ci/auth-values.yaml >"$rendered_auth"
}
check "helm template brook deploy/helm/brook (default values, ci/auth-values.yaml), for the image tests of the chart's pod" render_chart

rc=0
image_tests || rc=$?
# Count the image tests as Failsafe reports them.
counts="$(sed -e 's/\x1b\[[0-9;]*m//g' "$log" |
  sed -n 's/^\[[A-Z]*\] Tests run: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\), Skipped: \([0-9]*\)$/\1 \2 \3 \4/p' |
  tail -n1)"
if [[ -n "$counts" ]]; then
  read -r run fail err skip <<<"$counts"
  passed=$((passed + run - fail - err - skip)); failed=$((failed + fail + err)); skipped=$((skipped + skip))
fi
if [[ $rc -ne 0 && ( -z "$counts" || $((fail + err)) -eq 0 ) ]]; then
  echo "docker-test: FAIL the image tests' Maven run (rc $rc) without a failed test: see above"
  failed=$((failed + 1))
fi
docker rmi -f "$IMAGE" >/dev/null 2>&1 || true
