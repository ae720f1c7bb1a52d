#!/usr/bin/env bash
# The Java client of the previous release (brook-client and brook-protocol as they were before issue 25's
# Kafka work, commit PREVIOUS_COMMIT), for the compatibility test that runs it against the current broker
# (PreviousClientIT). Built from this clone's own git history (git archive of that commit, then its own
# ./mvnw package of protocol and client-java, never installed into ~/.m2) into the tool cache, with its
# runtime dependencies beside it. Prints the directory of jars (the only line on stdout), so callers do
# LIB="$(scripts/previous-client.sh)" and run `java -cp "$LIB/*" ...`.
#
# Needs the commit in the clone's history (a shallow clone lacks it: `git fetch --unshallow`) and Maven's
# registry or a local repository holding the previous release's dependencies. Messages go to stderr and
# start with "previous-client:". MAVEN_ARGS passes extra flags to that build (e.g. -o).
set -euo pipefail

# The last commit before issue 25 (issue 24 closed; D44-D49 are issue 25's). Change it at each release.
PREVIOUS_COMMIT=8da45a88eb19229de625c8fabb0a905d1fb08105
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BROOK_TOOLS_DIR="${BROOK_TOOLS_DIR:-$HOME/.cache/brook/tools}"
DIR="$BROOK_TOOLS_DIR/brook-client-${PREVIOUS_COMMIT:0:12}"
STAMP="$DIR/installed"

say() { echo "previous-client: $*" >&2; }
tmp=""
trap '[[ -z "$tmp" ]] || rm -rf "$tmp"' EXIT

installed_ok() {
  [[ -f "$STAMP" ]] && compgen -G "$DIR/lib/brook-client-*.jar" >/dev/null && compgen -G "$DIR/lib/brook-protocol-*.jar" >/dev/null
}

build() {
  if ! git -C "$ROOT" cat-file -e "$PREVIOUS_COMMIT^{commit}" 2>/dev/null \
      && [[ "$(git -C "$ROOT" rev-parse --is-shallow-repository 2>/dev/null)" == true ]]; then
    say "a shallow clone: fetching its history for ${PREVIOUS_COMMIT:0:12}"
    git -C "$ROOT" fetch -q --unshallow >&2 || true
  fi
  if ! git -C "$ROOT" cat-file -e "$PREVIOUS_COMMIT^{commit}" 2>/dev/null; then
    say "commit $PREVIOUS_COMMIT (the previous release's client) is not in this clone's history"
    say "(a shallow clone? run: git -C $ROOT fetch --unshallow)"
    return 1
  fi
  local start=$SECONDS
  mkdir -p "$BROOK_TOOLS_DIR"
  tmp="$(mktemp -d "$BROOK_TOOLS_DIR/brook-client.XXXXXX")" # removed on exit
  say "building brook-client at ${PREVIOUS_COMMIT:0:12} into $DIR"
  git -C "$ROOT" archive --format=tar "$PREVIOUS_COMMIT" | tar -x -C "$tmp/"
  mkdir -p "$tmp/out/lib"
  # package, not install: the previous release's snapshot must never replace the current one in ~/.m2
  (cd "$tmp" && ./mvnw -B -q ${MAVEN_ARGS:-} -DskipTests -Dmaven.javadoc.skip=true -pl protocol,client-java -am \
      package dependency:copy-dependencies -DincludeScope=runtime -DexcludeGroupIds=io.brook \
      -DoutputDirectory="$tmp/out/lib" >&2) || { say "the build of ${PREVIOUS_COMMIT:0:12} failed"; return 1; }
  cp "$tmp"/protocol/target/brook-protocol-*.jar "$tmp"/client-java/target/brook-client-*.jar "$tmp/out/lib/"
  rm -f "$tmp"/out/lib/*-javadoc.jar "$tmp"/out/lib/*-sources.jar "$tmp"/out/lib/*-tests.jar "$tmp"/out/lib/*-benchmarks.jar
  echo "$PREVIOUS_COMMIT" >"$tmp/out/installed"
  rm -rf "$DIR"
  mv "$tmp/out" "$DIR"
  say "built in $((SECONDS - start)) s: $(ls "$DIR/lib" | wc -l) jars"
}

if installed_ok; then
  say "cached -> $DIR/lib (commit ${PREVIOUS_COMMIT:0:12})"
else
  mkdir -p "$BROOK_TOOLS_DIR"
  exec 9>"$BROOK_TOOLS_DIR/.brook-client.lock" # one builder at a time
  flock 9
  installed_ok || build
fi
echo "$DIR/lib"
