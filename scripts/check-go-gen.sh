#!/usr/bin/env bash
# Fails when the committed Go code in client-go/gen differs from what the
# .proto files produce now with the pinned generators (scripts/gen-go.sh).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

bash scripts/gen-go.sh "$tmp" >/dev/null
if ! diff -r "$tmp/gen" client-go/gen >"$tmp/diff.txt"; then
  echo "check-go-gen: ERROR: client-go/gen is not what protocol/src/main/proto generates now:" >&2
  head -n 40 "$tmp/diff.txt" >&2
  echo "check-go-gen: run scripts/gen-go.sh and commit client-go/gen" >&2
  exit 1
fi
echo "check-go-gen: client-go/gen is current ($(find client-go/gen -name '*.go' | wc -l) files)"
