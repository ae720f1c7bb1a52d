#!/usr/bin/env bash
# Releases the current gRPC contract: rewrites protocol/api/brook-v1.binpb, the
# buf image of protocol/src/main/proto that scripts/check-contract.sh checks
# every later change against. Run this ONLY when a contract version is
# released (and commit the image with the release); ordinary changes never
# touch the image, or the breaking-change check would stop protecting clients.
#
# Refuses to release a contract that breaks the previously released one unless
# given --force (a breaking change belongs in a new package such as brook.v2).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=tools-env.sh
. scripts/tools-env.sh

PROTO_DIR=protocol/src/main/proto
IMAGE=protocol/api/brook-v1.binpb
force=0
case "${1:-}" in
  "") ;;
  --force) force=1 ;;
  *) echo "usage: $0 [--force]" >&2; exit 2 ;;
esac

if ! command -v buf >/dev/null 2>&1; then
  echo "release-contract: ERROR: buf not found; run scripts/install-tools.sh first" >&2
  exit 2
fi

buf lint
if [ -f "$IMAGE" ] && ! buf breaking "$PROTO_DIR" --against "$IMAGE"; then
  if [ "$force" -ne 1 ]; then
    echo "release-contract: ERROR: the contract breaks the released one (above); not released. Use --force only for a deliberate break." >&2
    exit 1
  fi
  echo "release-contract: WARNING: releasing a breaking contract (--force)" >&2
fi
mkdir -p "$(dirname "$IMAGE")"
buf build "$PROTO_DIR" -o "$IMAGE"
echo "release-contract: wrote $IMAGE ($(wc -c <"$IMAGE") bytes, sha256 $(sha256sum "$IMAGE" | cut -c1-16)); commit it with the release"
