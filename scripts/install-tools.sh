#!/usr/bin/env bash
# Installs the Go-built tools Brook's tests need, pinned to exact versions:
#   buf      (lint / breaking-change checks of the .proto contract)
#   grpcurl  (calls the broker from README smoke tests)
#   protoc-gen-go, protoc-gen-go-grpc, staticcheck: the tools of client-go/tools/go.mod
#            (`go install tool` there; the versions are that go.mod's)
#
# Idempotent and cached: binaries go to $BROOK_TOOLS_DIR/bin (GOBIN), default
# $HOME/.cache/brook/tools. Each tool has a stamp file recording the exact
# module@version (and Go version) it was built from; a changed pin, a changed
# Go toolchain or a missing binary rebuilds that tool, anything else is cached.
# Building buf from source takes ~150 s the first time.
#
# Use the tools with:  . scripts/tools-env.sh
set -euo pipefail

# --- pins (change here; the stamp makes the next run rebuild) ---------------
TOOLS=(
  "buf     github.com/bufbuild/buf/cmd/buf           v1.75.0"
  "grpcurl github.com/fullstorydev/grpcurl/cmd/grpcurl v1.9.4"
)

BROOK_TOOLS_DIR="${BROOK_TOOLS_DIR:-$HOME/.cache/brook/tools}"
BIN_DIR="$BROOK_TOOLS_DIR/bin"
STAMP_DIR="$BROOK_TOOLS_DIR/stamps"

if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  PATH="$PATH:/usr/local/go/bin"
fi
if ! command -v go >/dev/null 2>&1; then
  echo "install-tools: ERROR: 'go' not found on PATH nor at /usr/local/go/bin/go." >&2
  echo "install-tools: buf and grpcurl are built from source with Go (buf v1.75.0 needs go >= 1.26.7); install Go first." >&2
  exit 2
fi
GO_VERSION="$(go env GOVERSION)"

mkdir -p "$BIN_DIR" "$STAMP_DIR"

# Serialize concurrent runs (e.g. two shells) so they do not build over each other.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$BROOK_TOOLS_DIR/.lock"
  flock 9
fi

for entry in "${TOOLS[@]}"; do
  read -r name pkg version <<<"$entry"
  ldflags=""
  # grpcurl's --version is only set through -ldflags (its own release builds do this).
  [ "$name" = grpcurl ] && ldflags="-X main.version=$version"
  want="$pkg@$version $GO_VERSION ldflags=[$ldflags]"
  stamp="$STAMP_DIR/$name"
  start=$SECONDS
  if [ -x "$BIN_DIR/$name" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    echo "install-tools: $name $version cached ($((SECONDS - start)) s) -> $BIN_DIR/$name"
    continue
  fi
  rm -f "$stamp"
  if ! GOBIN="$BIN_DIR" GOFLAGS="${GOFLAGS:-} -buildvcs=false" go install -ldflags="$ldflags" "$pkg@$version"; then
    echo "install-tools: ERROR: go install $pkg@$version failed" >&2
    exit 1
  fi
  printf '%s\n' "$want" >"$stamp"
  echo "install-tools: $name $version built ($((SECONDS - start)) s) -> $BIN_DIR/$name"
done

# The Go client's tools, pinned by client-go/tools/go.mod (+ go.sum).
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
want="$(cat "$ROOT/client-go/tools/go.mod" "$ROOT/client-go/tools/go.sum" | sha256sum | cut -d' ' -f1) $GO_VERSION"
stamp="$STAMP_DIR/client-go-tools"
start=$SECONDS
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] &&
  [ -x "$BIN_DIR/protoc-gen-go" ] && [ -x "$BIN_DIR/protoc-gen-go-grpc" ] && [ -x "$BIN_DIR/staticcheck" ]; then
  echo "install-tools: client-go/tools (protoc-gen-go, protoc-gen-go-grpc, staticcheck) cached ($((SECONDS - start)) s)"
else
  rm -f "$stamp"
  if ! GOBIN="$BIN_DIR" GOFLAGS="${GOFLAGS:-} -buildvcs=false" go -C "$ROOT/client-go/tools" install tool; then
    echo "install-tools: ERROR: go install tool in client-go/tools failed" >&2
    exit 1
  fi
  printf '%s\n' "$want" >"$stamp"
  echo "install-tools: client-go/tools (protoc-gen-go, protoc-gen-go-grpc, staticcheck) built ($((SECONDS - start)) s) -> $BIN_DIR"
fi
