#!/usr/bin/env bash
# Debian's kcat (the librdkafka-based Kafka command-line client) for the Kafka-protocol tests, installed
# without root and cached: `apt-get download` of kcat at the pinned version and of every package of its
# dependency closure that this machine lacks (on bookworm: librdkafka1 and libyajl2), `dpkg -x` of them
# into $BROOK_TOOLS_DIR/kcat-$KCAT_VERSION, and a wrapper bin/kcat there that runs the extracted binary
# with the extracted libraries first on LD_LIBRARY_PATH. Prints the wrapper's path (the only line on
# stdout), so callers do KCAT="$(scripts/kcat.sh)".
#
#   scripts/kcat.sh            installs once (a stamp names the packages and versions), prints the path
#   scripts/kcat.sh -V         the same, then runs `kcat -V` (kcat's and librdkafka's versions)
#
# Needs Debian's apt with package lists (apt-get download works as any user; as root, with no list
# that knows kcat, it runs `apt-get update` once). Messages go to stderr and start with "kcat:".
set -euo pipefail

# Debian bookworm's kcat 1.7.1 is built on librdkafka 2.0.2, whose consumer defaults to
# isolation.level=read_committed (see docs/KAFKA.md, "Test suites").
KCAT_VERSION=1.7.1-2
BROOK_TOOLS_DIR="${BROOK_TOOLS_DIR:-$HOME/.cache/brook/tools}"
KCAT_DIR="$BROOK_TOOLS_DIR/kcat-$KCAT_VERSION"
KCAT="$KCAT_DIR/bin/kcat"
STAMP="$KCAT_DIR/installed"

say() { echo "kcat: $*" >&2; }
tmp=""
trap '[[ -z "$tmp" ]] || rm -rf "$tmp"' EXIT

# The packages of kcat's dependency closure (Depends and PreDepends only) not installed here, as
# NAME=VERSION with the candidate version apt would download.
missing_packages() {
  local p
  apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
      --no-enhances "kcat=$KCAT_VERSION" 2>/dev/null | grep -v '^[ <]' | sort -u | while read -r p; do
    [[ "$p" == kcat ]] && continue
    [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" == "install ok installed" ]] && continue
    echo "$p=$(apt-cache policy "$p" | sed -n 's/^ *Candidate: //p')"
  done
}

installed_ok() {
  [[ -x "$KCAT" && -f "$STAMP" ]] && "$KCAT" -V >/dev/null 2>&1
}

offered() { # apt's lists know kcat at the pinned version (no grep -q on a pipe: pipefail and SIGPIPE)
  [[ "$(apt-cache policy kcat 2>/dev/null)" == *" $KCAT_VERSION "* ]]
}

install() {
  if ! offered; then
    if [[ $(id -u) -eq 0 ]]; then
      say "no package list offers kcat $KCAT_VERSION: apt-get update"
      apt-get update -q >/dev/null 2>&1 || true
    fi
    offered || {
      say "Debian's kcat $KCAT_VERSION is not in apt's package lists (run apt-get update as root once)"; return 1; }
  fi
  local pkgs start=$SECONDS
  mapfile -t pkgs < <(echo "kcat=$KCAT_VERSION"; missing_packages)
  say "installing ${pkgs[*]} into $KCAT_DIR (apt-get download + dpkg -x, no root needed)"
  mkdir -p "$BROOK_TOOLS_DIR"
  tmp="$(mktemp -d "$BROOK_TOOLS_DIR/kcat.XXXXXX")" # removed on exit
  local sandbox=() # as root, apt's _apt user could not write into a root-owned cache: download as root
  [[ $(id -u) -eq 0 ]] && sandbox=(-o APT::Sandbox::User=root)
  (cd "$tmp" && apt-get download -q "${sandbox[@]}" "${pkgs[@]}" >&2) || { say "apt-get download ${pkgs[*]} failed"; return 1; }
  mkdir -p "$tmp/root/bin"
  local deb
  for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$tmp/root"; done
  [[ -x "$tmp/root/usr/bin/kcat" ]] || { say "the kcat package holds no usr/bin/kcat"; return 1; }
  # The wrapper finds the extracted libraries (librdkafka.so.1, libyajl.so.2) before the system's.
  cat >"$tmp/root/bin/kcat" <<'EOF'
#!/bin/sh
# Debian's kcat with its libraries extracted beside it (made by scripts/kcat.sh).
here="$(cd "$(dirname "$0")/.." && pwd)"
LD_LIBRARY_PATH="$here/usr/lib/x86_64-linux-gnu:$here/usr/lib:$here/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  exec "$here/usr/bin/kcat" "$@"
EOF
  # a multiarch directory other than x86_64's (arm64 ...) too
  local arch
  arch="$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)"
  sed -i "s/x86_64-linux-gnu/$arch/g" "$tmp/root/bin/kcat"
  chmod 755 "$tmp/root/bin/kcat"
  if ! out="$("$tmp/root/bin/kcat" -V 2>&1)"; then
    say "the extracted kcat does not run:"
    echo "$out" >&2
    LD_LIBRARY_PATH="$tmp/root/usr/lib/$arch" ldd "$tmp/root/usr/bin/kcat" | grep 'not found' >&2 || true
    return 1
  fi
  printf '%s\n' "${pkgs[@]}" >"$tmp/root/installed"
  rm -rf "$KCAT_DIR"
  mv "$tmp/root" "$KCAT_DIR"
  say "installed in $((SECONDS - start)) s: $(echo "$out" | head -1)"
}

if installed_ok; then
  say "cached -> $KCAT ($(tr '\n' ' ' <"$STAMP"))"
else
  # one installer at a time (two test scripts starting together)
  mkdir -p "$BROOK_TOOLS_DIR"
  exec 9>"$BROOK_TOOLS_DIR/.kcat.lock"
  flock 9
  installed_ok || install
fi
echo "$KCAT"
if [[ "${1:-}" == -V ]]; then "$KCAT" -V >&2; fi
