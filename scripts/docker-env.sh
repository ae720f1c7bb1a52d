# shellcheck shell=bash
# A Docker engine and a JRE base image for the image tests, on a machine that may have neither and
# cannot pull from a registry. Source it (. scripts/docker-env.sh), then:
#   docker_up          installs Debian's docker.io when dockerd is missing, and starts a private
#                      dockerd (own data root, exec root and socket under a temp dir; no iptables,
#                      no bridge: containers use the host network). Exports DOCKER_HOST and the
#                      Testcontainers settings. An engine already answering on $DOCKER_HOST is
#                      used as it is and left running.
#   docker_down        stops the dockerd docker_up started (by its pid) and removes its temp dir.
#   docker_base_image  makes $BROOK_BASE_IMAGE (a Debian bookworm minbase with
#                      openjdk-17-jre-headless) in the engine: debootstrap once into a tarball
#                      cached in $BROOK_DOCKER_CACHE, then `docker import` of that tarball.
# Needs root (dockerd, debootstrap), as CI has. Messages start with "docker-env:".

BROOK_DOCKER_CACHE="${BROOK_DOCKER_CACHE:-$HOME/.cache/brook/docker}"
BROOK_BASE_IMAGE="${BROOK_BASE_IMAGE:-brook-ci/debian-jre:17}"
BROOK_BASE_SUITE=bookworm
BROOK_BASE_PACKAGES=openjdk-17-jre-headless
DOCKERD_PID=""
DOCKERD_DIR=""

_docker_answers() {
  docker version --format '{{.Server.Version}}' >/dev/null 2>&1
}

_apt_install() { # packages...
  echo "docker-env: apt-get install $*"
  # No service may start from the install (docker.io would start and enable the system dockerd,
  # with its bridge and firewall rules): policy-rc.d answering 101 forbids it, while apt runs.
  local policy=/usr/sbin/policy-rc.d placed="" rc=0
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && placed=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null 2>&1 ||
    { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null; } ||
    rc=$?
  [[ -z $placed ]] || rm -f "$policy"
  return "$rc"
}

docker_up() {
  if [[ -n "${DOCKER_HOST:-}" ]] && _docker_answers; then
    echo "docker-env: using the engine at $DOCKER_HOST (left running)"
  else
    command -v dockerd >/dev/null 2>&1 || _apt_install docker.io || {
      echo "docker-env: cannot install docker.io (apt-get failed)" >&2; return 1; }
    command -v docker >/dev/null 2>&1 || { echo "docker-env: no docker client" >&2; return 1; }
    DOCKERD_DIR="$(mktemp -d /tmp/brook-dockerd.XXXXXX)"
    dockerd --data-root "$DOCKERD_DIR/data" --exec-root "$DOCKERD_DIR/exec" \
      --pidfile "$DOCKERD_DIR/dockerd.pid" -H "unix://$DOCKERD_DIR/docker.sock" \
      --iptables=false --ip-masq=false --bridge=none >"$DOCKERD_DIR/dockerd.log" 2>&1 &
    DOCKERD_PID=$!
    export DOCKER_HOST="unix://$DOCKERD_DIR/docker.sock"
    local i
    for i in $(seq 1 300); do
      _docker_answers && break
      if ! kill -0 "$DOCKERD_PID" 2>/dev/null; then
        echo "docker-env: dockerd exited at start; its log:" >&2
        tail -20 "$DOCKERD_DIR/dockerd.log" >&2
        return 1
      fi
      sleep 0.1
    done
    _docker_answers || { echo "docker-env: dockerd did not answer within 30 s" >&2; return 1; }
    echo "docker-env: dockerd $(docker version --format '{{.Server.Version}}') started (pid $DOCKERD_PID, $DOCKER_HOST)"
  fi
  # Testcontainers: talk to this engine, reach containers on localhost, no reaper container and
  # no start-up checks (both pull images, which cannot be pulled here: the checks retried an
  # alpine pull for two minutes); the tests remove their containers themselves.
  export TESTCONTAINERS_RYUK_DISABLED=true TESTCONTAINERS_HOST_OVERRIDE=localhost TESTCONTAINERS_CHECKS_DISABLE=true
}

docker_down() {
  [[ -n "$DOCKERD_PID" ]] || return 0
  local ids
  ids="$(docker ps -aq 2>/dev/null || true)"
  if [[ -n "$ids" ]]; then
    # shellcheck disable=SC2086
    docker rm -f $ids >/dev/null 2>&1 || true
  fi
  kill "$DOCKERD_PID" 2>/dev/null || true
  local i
  for i in $(seq 1 150); do
    kill -0 "$DOCKERD_PID" 2>/dev/null || break
    sleep 0.1
  done
  kill -9 "$DOCKERD_PID" 2>/dev/null || true
  # containerd-shims it left behind (none when the containers were removed first)
  pkill -f "containerd-shim.*$DOCKERD_DIR" 2>/dev/null || true
  # what dockerd left mounted under its dirs (its network namespace, overlay layers), deepest first
  local m
  for m in $(awk -v d="$DOCKERD_DIR/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
  rm -rf "$DOCKERD_DIR"
  echo "docker-env: dockerd stopped (pid $DOCKERD_PID)"
  DOCKERD_PID=""
}

docker_base_image() {
  if docker image inspect "$BROOK_BASE_IMAGE" >/dev/null 2>&1; then
    echo "docker-env: base image $BROOK_BASE_IMAGE present"
    return 0
  fi
  local tarball="$BROOK_DOCKER_CACHE/$BROOK_BASE_SUITE-minbase-$BROOK_BASE_PACKAGES.tar"
  if [[ ! -s "$tarball" ]]; then
    command -v debootstrap >/dev/null 2>&1 || _apt_install debootstrap || {
      echo "docker-env: cannot install debootstrap" >&2; return 1; }
    local mirror rootfs start=$SECONDS
    mirror="$(sed -n 's/^URIs: *\(http[^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)"
    mirror="${mirror:-http://deb.debian.org/debian}"
    rootfs="$(mktemp -d /tmp/brook-rootfs.XXXXXX)"
    echo "docker-env: debootstrap $BROOK_BASE_SUITE (minbase + $BROOK_BASE_PACKAGES) from $mirror ..."
    if ! debootstrap --variant=minbase --include="$BROOK_BASE_PACKAGES" "$BROOK_BASE_SUITE" "$rootfs" "$mirror" \
      >"$rootfs.log" 2>&1; then
      echo "docker-env: debootstrap failed; the end of its log:" >&2
      tail -20 "$rootfs.log" >&2
      rm -rf "$rootfs" "$rootfs.log"
      return 1
    fi
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    mkdir -p "$BROOK_DOCKER_CACHE"
    tar -C "$rootfs" -cf "$tarball.part" . && mv "$tarball.part" "$tarball"
    rm -rf "$rootfs" "$rootfs.log"
    echo "docker-env: base rootfs cached in $tarball ($((SECONDS - start)) s)"
  fi
  docker import --change 'CMD ["/bin/bash"]' "$tarball" "$BROOK_BASE_IMAGE" >/dev/null
  echo "docker-env: base image $BROOK_BASE_IMAGE imported from $tarball"
}
