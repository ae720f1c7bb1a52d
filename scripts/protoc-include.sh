#!/usr/bin/env bash
# Prints a directory holding protobuf's own .proto files (google/protobuf/*.proto) for protoc's -I:
# errors.proto's options extend google/protobuf/descriptor.proto, which the protoc executable of
# scripts/protoc-path.sh does not bring. They are taken from the protobuf-java jar of the same
# ${protobuf.version} (pom.xml), fetched through ./mvnw the first time and cached in the tools dir.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BROOK_TOOLS_DIR="${BROOK_TOOLS_DIR:-$HOME/.cache/brook/tools}"

version="$(sed -n 's:.*<protobuf.version>\(.*\)</protobuf.version>.*:\1:p' pom.xml | head -n1)"
[ -n "$version" ] || { echo "protoc-include: ERROR: no <protobuf.version> in pom.xml" >&2; exit 2; }
dir="$BROOK_TOOLS_DIR/protoc/include-$version"
if [ ! -f "$dir/google/protobuf/descriptor.proto" ]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  ./mvnw -B -q dependency:copy -Dartifact="com.google.protobuf:protobuf-java:$version" \
    -DoutputDirectory="$tmp" >&2
  mkdir -p "$tmp/include"
  (cd "$tmp/include" && jar xf "$tmp/protobuf-java-$version.jar" google/protobuf)
  rm -rf "$dir"
  mv "$tmp/include" "$dir"
fi
echo "$dir"
