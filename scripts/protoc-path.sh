#!/usr/bin/env bash
# Prints the path of the protoc executable the Java build uses: Maven artifact
# com.google.protobuf:protoc:${protobuf.version} (pom.xml), fetched through
# ./mvnw into the tools dir the first time and cached there.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BROOK_TOOLS_DIR="${BROOK_TOOLS_DIR:-$HOME/.cache/brook/tools}"

version="$(sed -n 's:.*<protobuf.version>\(.*\)</protobuf.version>.*:\1:p' pom.xml | head -n1)"
[ -n "$version" ] || { echo "protoc-path: ERROR: no <protobuf.version> in pom.xml" >&2; exit 2; }
case "$(uname -m)" in
  x86_64 | amd64) arch=x86_64 ;;
  aarch64 | arm64) arch=aarch_64 ;;
  *) echo "protoc-path: ERROR: no protoc artifact for $(uname -m)" >&2; exit 2 ;;
esac
dir="$BROOK_TOOLS_DIR/protoc"
exe="$dir/protoc-$version-linux-$arch.exe"
if [ ! -x "$exe" ]; then
  mkdir -p "$dir"
  ./mvnw -B -q dependency:copy -Dartifact="com.google.protobuf:protoc:$version:exe:linux-$arch" \
    -DoutputDirectory="$dir" >&2
  chmod +x "$exe"
fi
echo "$exe"
