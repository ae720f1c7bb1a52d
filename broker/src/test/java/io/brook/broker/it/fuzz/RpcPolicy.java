package io.brook.broker.it.fuzz;

import io.grpc.MethodDescriptor.MethodType;
import io.grpc.Status;
import java.util.Map;
import java.util.Set;

/**
 * What counts as a correct answer from the broker under fuzzing.
 *
 * <p>Every call must end with a status within its deadline; a call still open at its deadline is a
 * hang. INTERNAL, UNKNOWN (an exception the broker did not catch), UNIMPLEMENTED and DATA_LOSS are
 * failures everywhere; so is UNAVAILABLE (the broker went away or is stopping). CANCELLED is right
 * only for a call the test cancelled itself, or for a client stream that sent a message over
 * max.request.bytes: gRPC resets a stream whose response headers went out (and a stream's go out
 * when it opens, see api.RequestGuard); a unary call gets RESOURCE_EXHAUSTED.
 *
 * <p>RPCs that may legitimately wait, and so may end with DEADLINE_EXCEEDED (the test gives them a
 * short deadline instead of the hang deadline):
 * <ul>
 *   <li>FetchService/Tail streams until the client goes: a valid tail never ends by itself;
 *   <li>GroupService/JoinGroup answers when the rebalance completes: when earlier fuzzed joins left
 *       members in the group that never rejoin, that is up to their rebalance_timeout_ms.
 * </ul>
 * FetchService/Fetch long-polls too, but the fuzzed broker runs with {@code fetch.max.wait.ms=1000},
 * which caps every max_wait_ms: a fetch must answer, and DEADLINE_EXCEEDED is a failure for it.
 */
final class RpcPolicy {
  static final long HANG_DEADLINE_MS = 20_000;
  static final long WAITING_DEADLINE_MS = 1_500;
  static final Map<String, String> MAY_WAIT = Map.of(
      "brook.v1.FetchService/Tail", "a tail never ends by itself",
      "brook.v1.GroupService/JoinGroup", "a join waits for the rebalance (rebalance_timeout_ms)");
  private static final Set<Status.Code> NEVER = Set.of(Status.Code.INTERNAL, Status.Code.UNKNOWN,
      Status.Code.UNIMPLEMENTED, Status.Code.DATA_LOSS, Status.Code.UNAVAILABLE);

  private RpcPolicy() {}

  static boolean supported(MethodType type) {
    return type == MethodType.UNARY || type == MethodType.SERVER_STREAMING || type == MethodType.CLIENT_STREAMING
        || type == MethodType.BIDI_STREAMING;
  }

  static long deadlineMs(String rpc) {
    return MAY_WAIT.containsKey(rpc) ? WAITING_DEADLINE_MS : HANG_DEADLINE_MS;
  }

  /** Null when the status is a correct answer; otherwise why it is not. */
  static String judge(String rpc, Status status, boolean cancelledByTest, boolean oversizeOnClientStream) {
    Status.Code code = status.getCode();
    if (NEVER.contains(code)) {
      return code + " is never a correct answer";
    }
    if (code == Status.Code.CANCELLED && !cancelledByTest && !oversizeOnClientStream) {
      return "CANCELLED, but the test did not cancel the call";
    }
    if (code == Status.Code.DEADLINE_EXCEEDED && !MAY_WAIT.containsKey(rpc)) {
      return "no answer within " + HANG_DEADLINE_MS + " ms: the call hangs";
    }
    return null;
  }
}
