#!/usr/bin/env bash
# franz-go's own client tests (github.com/twmb/franz-go, package pkg/kgo) against any Kafka bootstrap
# address: Brook's Kafka listener or Apache Kafka (perf/kafka.sh start). The module comes from the Go
# module proxy at the pinned version (`go mod download`, cached in the module cache); its tests run where
# the module cache keeps it, with `go test` (the build is cached in GOCACHE after the first run, ~40 s).
#
#   scripts/kgo-check.sh BOOTSTRAP [-run quick|groups|quick-groups|quick-groups-share|txn|share|broker|all|REGEX]
#
#   quick    (default) the tests that talk to a broker and need no consumer group, transaction or
#            share group: metadata, produce (idempotent, every codec), fetch by partition, topic admin
#   groups   the tests that need classic (or KIP-848) consumer groups, FindCoordinator or OffsetFetch
#   quick-groups  quick + groups in one go test (the suite runs its tests in parallel: about the time
#            of the longest, TestGroupETL)
#   quick-groups-share  quick + groups + share in one go test; what make test runs
#   txn      the tests that need transactions (Brook: expected to fail, transactions are out of scope)
#   share    the share-group (KIP-932) tests (they skip themselves on a broker without ShareFetch v2)
#   broker   quick + groups + txn + share: every test that talks to a broker
#   all      the whole package: also the ~110 tests that need no broker (kfake, codecs, unit tests)
#   REGEX    passed to go test -run as it is
# docs/KAFKA.md ("Test suites") lists each test, what it needs and its time against Kafka 4.3.1.
#
# Sizes, through the suite's own environment (defaults here are small; the suite's own are 500,000
# records over topics of up to 31 partitions): KGO_TEST_RECORDS (1000), KGO_TEST_MAX_TOPIC_PARTS (3),
# KGO_TEST_RF (1: one node), KGO_LOG_LEVEL (none), KGO_TIMEOUT (go test -timeout, default 15m).
# Ends with "kgo-check: N passed, N failed, N skipped" (top-level tests, from go test -v).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/scripts/tools-env.sh"

# The newest franz-go the Go module proxy served whole in the environment's package list.
FRANZ_GO_VERSION=v1.22.3

# Named lists: top-level test names of pkg/kgo at $FRANZ_GO_VERSION, read from its test files (not
# GROUPS: bash keeps that name for the user's group ids and ignores assignments to it).
QUICK_TESTS=(TestPing TestClient_Produce TestClient_ProduceLargeMessages TestIssue769 TestIssue831
  TestIssueProduceSyncManualPartitionNegativeDoesNotPanic TestIssueProduceBrokerTooOldFailsRecords
  TestAuditFlushWokenByBlockedProduceCancel TestAuditFlushNotStarvedByPromiseChain
  TestAddRemovePartitions TestConsumeMaxDecompressBatchBytes TestConsumeTopicRetrieval
  TestConsumeTopicRetrieval_Many TestDirectPartitionPurge TestHookPollStart TestIssue325 TestIssue337
  TestIssue434 TestIssue648 TestIssue810 TestIssue865 TestIssueFetchLargerThanBrokerMaxReadBytes
  TestPauseIssue489 TestPauseIssueOct2023 TestPooling)
# TestConsumeRegex needs no group to consume, but its internal topic is __consumer_offsets, which only a
# broker with groups (FindCoordinator) has: it is a group test on any broker but kfake.
GROUP_TESTS=(TestGroupSimple TestGroupETL TestIssue523 Test848RegexBrokerResolves TestIssue1034
  TestUnknownGroupOffsetFetchPinned TestConsumeRegex)
# What make test runs of them (quick-groups): every one. Test848RegexBrokerResolves expects a KIP-848 regex to
# match the internal __consumer_offsets and assign it, as Kafka does: Brook's KIP-848 engine counts it among
# the topics (groups/InternalTopic).
GROUP_TESTS_PASSING=("${GROUP_TESTS[@]}")
TXN_TESTS=(TestTxnEtl)
SHARE_TESTS=(TestShareGroup TestShareGroupETL TestShareGroupAckOnClose TestShareGroupOffsetsAdmin
  TestConsumeRegexShareSkipsInternal)

usage() { echo "usage: $0 BOOTSTRAP [-run quick|groups|quick-groups|quick-groups-share|txn|share|broker|all|REGEX]" >&2; exit 2; }
[[ $# -eq 1 || ( $# -eq 3 && "$2" == -run ) ]] || usage
BOOTSTRAP=$1
LIST=${3:-quick}
anchored() { local IFS='|'; echo "^($*)\$"; }
case "$LIST" in
  quick) RUN="$(anchored "${QUICK_TESTS[@]}")" ;;
  groups) RUN="$(anchored "${GROUP_TESTS[@]}")" ;;
  quick-groups) RUN="$(anchored "${QUICK_TESTS[@]}" "${GROUP_TESTS_PASSING[@]}")" ;;
  quick-groups-share) RUN="$(anchored "${QUICK_TESTS[@]}" "${GROUP_TESTS_PASSING[@]}" "${SHARE_TESTS[@]}")" ;;
  txn) RUN="$(anchored "${TXN_TESTS[@]}")" ;;
  share) RUN="$(anchored "${SHARE_TESTS[@]}")" ;;
  broker) RUN="$(anchored "${QUICK_TESTS[@]}" "${GROUP_TESTS[@]}" "${TXN_TESTS[@]}" "${SHARE_TESTS[@]}")" ;;
  all) RUN=. ;;
  *) RUN=$LIST ;;
esac

command -v go >/dev/null || { echo "kgo-check: go is needed (scripts/tools-env.sh looks in /usr/local/go/bin)" >&2; exit 1; }
dir="$(go mod download -json "github.com/twmb/franz-go@$FRANZ_GO_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
[[ -n "$dir" && -d "$dir/pkg/kgo" ]] || { echo "kgo-check: go mod download github.com/twmb/franz-go@$FRANZ_GO_VERSION failed" >&2; exit 1; }
echo "kgo-check: franz-go $FRANZ_GO_VERSION pkg/kgo against $BOOTSTRAP, -run $LIST" \
  "(KGO_TEST_RECORDS=${KGO_TEST_RECORDS:-1000} KGO_TEST_MAX_TOPIC_PARTS=${KGO_TEST_MAX_TOPIC_PARTS:-3})"

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
rc=0
(cd "$dir" && KGO_SEEDS="$BOOTSTRAP" KGO_TEST_RF="${KGO_TEST_RF:-1}" KGO_TEST_RECORDS="${KGO_TEST_RECORDS:-1000}" \
  KGO_TEST_MAX_TOPIC_PARTS="${KGO_TEST_MAX_TOPIC_PARTS:-3}" KGO_LOG_LEVEL="${KGO_LOG_LEVEL:-none}" \
  go test -count=1 -v -timeout "${KGO_TIMEOUT:-15m}" ./pkg/kgo/ -run "$RUN" 2>&1) | tee "$log" || rc=$?

# Top-level results only (subtests are indented).
p="$(grep -cE '^--- PASS: ' "$log" || true)"
f="$(grep -cE '^--- FAIL: ' "$log" || true)"
s="$(grep -cE '^--- SKIP: ' "$log" || true)"
if [[ $rc -ne 0 && $f -eq 0 ]]; then
  echo "kgo-check: go test exited $rc without a failed test (a build failure, a panic or the timeout): see above"
  f=$((f + 1))
fi
if [[ $((p + f + s)) -eq 0 ]]; then
  echo "kgo-check: no test matched -run $RUN"
  f=1
fi
grep -E '^--- FAIL: ' "$log" | sed 's/^/kgo-check: failed /' || true
echo "kgo-check: $p passed, $f failed, $s skipped"
[[ $f -eq 0 ]]
