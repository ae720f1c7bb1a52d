#!/usr/bin/env bash
# Generates the Go code of Brook's gRPC contract (protocol/src/main/proto) into
# client-go/gen/brook/v1 (package brookv1), with pinned generators only:
#   protoc              the same Maven artifact the Java build uses (version
#                       ${protobuf.version} in pom.xml), copied into the tools dir
#   protoc-gen-go       version pinned in client-go/tools/go.mod
#   protoc-gen-go-grpc  version pinned in client-go/tools/go.mod
# protobuf's own .proto files (descriptor.proto) come from scripts/protoc-include.sh.
# The .proto files carry no go_package option (adding one now would be a
# breaking change of the released contract, see D23): the import path is
# given here with protoc's M flags instead.
#
# Usage: scripts/gen-go.sh [OUT_MODULE_DIR]   (default client-go; the code lands
# in OUT_MODULE_DIR/gen/brook/v1). scripts/check-go-gen.sh generates into a
# temporary directory and compares.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=tools-env.sh
. scripts/tools-env.sh

OUT="${1:-client-go}"
MODULE=github.com/brook-io/brook/client-go
GO_PKG="$MODULE/gen/brook/v1;brookv1"
PROTO_DIR=protocol/src/main/proto

for tool in protoc-gen-go protoc-gen-go-grpc; do
  if [ ! -x "$BROOK_TOOLS_DIR/bin/$tool" ]; then
    echo "gen-go: ERROR: $tool missing in $BROOK_TOOLS_DIR/bin; run scripts/install-tools.sh" >&2
    exit 2
  fi
done

protoc="$(bash scripts/protoc-path.sh)"
wkt="$(bash scripts/protoc-include.sh)" # descriptor.proto, which error_options.proto extends

mapping=()
protos=()
while IFS= read -r f; do
  rel="${f#"$PROTO_DIR"/}"
  protos+=("$rel")
  mapping+=("M$rel=$GO_PKG")
done < <(find "$PROTO_DIR" -name '*.proto' | sort)

go_opts="module=$MODULE"
for m in "${mapping[@]}"; do go_opts="$go_opts,$m"; done

rm -rf "$OUT/gen/brook/v1"
mkdir -p "$OUT"
"$protoc" -I "$PROTO_DIR" -I "$wkt" \
  --plugin=protoc-gen-go="$BROOK_TOOLS_DIR/bin/protoc-gen-go" \
  --plugin=protoc-gen-go-grpc="$BROOK_TOOLS_DIR/bin/protoc-gen-go-grpc" \
  --go_out="$OUT" --go_opt="$go_opts" \
  --go-grpc_out="$OUT" --go-grpc_opt="$go_opts" \
  "${protos[@]}"
echo "gen-go: $(find "$OUT/gen/brook/v1" -name '*.go' | wc -l) files in $OUT/gen/brook/v1 (protoc $("$protoc" --version | awk '{print $2}'))"
