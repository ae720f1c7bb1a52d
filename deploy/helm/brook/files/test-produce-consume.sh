#!/bin/sh
# Produces one record to a Brook broker and reads it back with the brook CLI of the image.
# The chart's `helm test` pod runs this, and so does scripts/docker-test.sh against a container.
#   BROOK_BROKER       host:port of the broker's gRPC port (required)
#   BROOK_TEST_TOPIC   topic to use, created with one partition when missing (default helm-test)
#   BROOK_TLS_CA       PEM file of the CA to trust: TLS on (optional)
#   BROOK_TOKEN_FILE   file holding a bearer token (optional; or BROOK_TOKEN)
set -eu
: "${BROOK_BROKER:?set BROOK_BROKER to the broker's host:port}"
topic="${BROOK_TEST_TOPIC:-helm-test}"

set -- --broker "$BROOK_BROKER"
if [ -n "${BROOK_TLS_CA:-}" ]; then set -- "$@" --tls-ca "$BROOK_TLS_CA"; fi
if [ -n "${BROOK_TOKEN_FILE:-}" ]; then set -- "$@" --token-file "$BROOK_TOKEN_FILE"; fi

if ! brook topic describe "$topic" "$@" >/dev/null 2>&1; then
  brook topic create "$topic" --partitions 1 "$@"
fi
value="brook-test-$(date +%s)-$$"
echo "$value" | brook produce "$topic" "$@"
if brook consume "$topic" --from earliest --format '%o %v' "$@" | grep " $value\$"; then
  echo "test-produce-consume: ok: produced and read back $value on $topic at $BROOK_BROKER"
else
  echo "test-produce-consume: FAILED: $value was produced to $topic but not read back" >&2
  exit 1
fi
