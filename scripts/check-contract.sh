#!/usr/bin/env bash
# Checks Brook's gRPC contract (protocol/src/main/proto, module in ./buf.yaml):
#   1. buf lint      (STANDARD rules)
#   2. buf breaking  against the last *released* contract, the committed buf
#      image protocol/api/brook-v1.binpb. That image is updated ONLY when a
#      contract version is released (scripts/release-contract.sh), never as
#      part of an ordinary change: a failure here means the change would break
#      existing clients; make it compatible (add fields/RPCs, reserve removed
#      numbers and names) or put it in a new package (brook.v2).
#   3. a self-test of step 2: in a temporary copy of the proto directory it
#      deletes a field, then renumbers one, and requires buf breaking to flag
#      each (guards against a check that silently passes, e.g. a wrong image).
# Works offline (no buf dependencies, no remote plugins). Needs buf from
# scripts/install-tools.sh.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=tools-env.sh
. scripts/tools-env.sh

PROTO_DIR=protocol/src/main/proto
IMAGE=protocol/api/brook-v1.binpb

if ! command -v buf >/dev/null 2>&1; then
  echo "check-contract: ERROR: buf not found; run scripts/install-tools.sh first" >&2
  exit 2
fi
if [ ! -f "$IMAGE" ]; then
  echo "check-contract: ERROR: $IMAGE missing; it is created by scripts/release-contract.sh" >&2
  exit 2
fi

echo "check-contract: buf lint"
buf lint
echo "check-contract: buf breaking $PROTO_DIR --against $IMAGE"
buf breaking "$PROTO_DIR" --against "$IMAGE"

# --- self-test: the breaking check must catch a deleted and a renumbered field
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# The first plain field declaration ("[optional|repeated] TYPE name = N;") of
# the first released .proto file (sorted, listed in the image) that has one: a file
# added since the release can change freely, so mutating it proves nothing.
FIELD_RE='^[[:space:]]+((optional|repeated)[[:space:]]+)?[A-Za-z_][A-Za-z0-9_.]*[[:space:]]+[a-z_][a-z0-9_]*[[:space:]]*=[[:space:]]*[0-9]+[[:space:]]*;'
target=""
for f in $(buf ls-files "$IMAGE" | sort); do
  if grep -qE "$FIELD_RE" "$PROTO_DIR/$f"; then
    target="./$f"
    break
  fi
done
if [ -z "$target" ]; then
  echo "check-contract: ERROR: self-test found no field declaration to mutate" >&2
  exit 1
fi

# mutate NAME AWK_ACTION: copies the workspace to $tmp/NAME, applies the awk
# action to the first field line of $target, and runs buf breaking there.
mutate() {
  local name=$1 action=$2 ws="$tmp/$1" out rc
  mkdir -p "$ws/$(dirname "$PROTO_DIR")"
  cp buf.yaml "$ws/"
  cp -R "$PROTO_DIR" "$ws/$PROTO_DIR"
  awk -v re="$FIELD_RE" "!done && \$0 ~ re { done = 1; $action } { print }" \
    "$PROTO_DIR/$target" >"$ws/$PROTO_DIR/$target"
  if cmp -s "$PROTO_DIR/$target" "$ws/$PROTO_DIR/$target"; then
    echo "check-contract: ERROR: self-test mutation '$name' changed nothing" >&2
    return 1
  fi
  set +e
  out="$(cd "$ws" && buf breaking "$PROTO_DIR" --against "$ROOT/$IMAGE" 2>&1)"
  rc=$?
  set -e
  # A compile error also exits non-zero: require buf's breaking-change wording.
  if [ "$rc" -ne 0 ] && grep -qE 'Previously present field|changed from|was deleted' <<<"$out"; then
    echo "check-contract: self-test '$name' in ${target#./}: flagged as breaking, as it must be"
  else
    echo "check-contract: ERROR: self-test '$name' in ${target#./} was NOT flagged (rc=$rc):" >&2
    echo "$out" >&2
    return 1
  fi
}
mutate delete-field 'next'
mutate renumber-field 'sub(/=[[:space:]]*[0-9]+/, "= 9999")'
echo "check-contract: OK"
