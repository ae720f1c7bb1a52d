package io.brook.broker.groups;

import io.brook.broker.delivery.AckMember;
import io.brook.broker.delivery.AckPartition;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.Settlement.Failure;
import io.brook.broker.groups.Settlement.Range;
import io.brook.broker.topics.Topic;
import java.util.List;

/**
 * Walks one settled range through its partition's window: runs an action on each offset the member
 * holds, and answers the others in runs (one failure per run of offsets with the same reason), so a
 * range's cost is bounded by the window, not by the up to a million offsets a client names.
 * Called under the group's monitor.
 */
final class SettleRuns {
  static final long MAX_RANGE = 1_000_000;

  interface OffsetAction {
    void apply(AckPartition ap, long offset);
  }

  private SettleRuns() {}

  /** Runs {@code action} on each offset of the range the member holds; true if it ran on any. */
  static boolean apply(AckGroup group, AckMember m, Range r, List<Failure> failures, OffsetAction action) {
    if (r.last() < r.first() || r.first() < 0) {
      failures.add(invalid(r, "invalid range " + r.first() + ".." + r.last()));
      return false;
    }
    if (r.last() - r.first() >= MAX_RANGE) {
      failures.add(invalid(r, "a range may span at most 1000000 offsets"));
      return false;
    }
    AckPartition ap = group.windows().of(new TopicPartition(r.topic(), r.partition()));
    if (ap == null) {
      BrokerError why;
      String msg;
      try {
        Topic t = group.ctx.topics().get(r.topic());
        t.partition(r.partition());
        why = BrokerError.NOT_LEASED;
        msg = "group '" + group.name() + "' has delivered nothing from " + r.topic() + "-" + r.partition();
      } catch (BrokerException e) {
        why = e.error();
        msg = e.getMessage();
      }
      failures.add(new Failure(r.topic(), r.partition(), r.first(), r.last(), why, msg));
      return false;
    }
    boolean any = false;
    // Only the window [start, next) needs a look per offset: below it everything is settled, above it
    // nothing was delivered. So a range's cost is bounded by the window, not by the (up to a million)
    // offsets a client names, repeated in every range of a request.
    long lo = Math.max(r.first(), ap.start());
    long hi = Math.min(r.last(), ap.next() - 1);
    AckPartition.Check runCheck = r.first() < lo ? AckPartition.Check.ALREADY_SETTLED : null;
    long runStart = r.first();
    for (long o = lo; o <= hi; o++) {
      AckPartition.Check c = ap.check(o, m);
      if (c == AckPartition.Check.OK) {
        action.apply(ap, o);
        any = true;
      }
      if (c != runCheck) {
        if (runCheck != null && runCheck != AckPartition.Check.OK) {
          failures.add(failure(r, runStart, o - 1, runCheck));
        }
        runCheck = c;
        runStart = o;
      }
    }
    if (hi < r.last() && runCheck != AckPartition.Check.NOT_DELIVERED) {
      long from = Math.max(r.first(), hi + 1);
      if (runCheck != null && runCheck != AckPartition.Check.OK) {
        failures.add(failure(r, runStart, from - 1, runCheck));
      }
      runCheck = AckPartition.Check.NOT_DELIVERED;
      runStart = from;
    }
    if (runCheck != null && runCheck != AckPartition.Check.OK) {
      failures.add(failure(r, runStart, r.last(), runCheck));
    }
    return any;
  }

  private static Failure failure(Range r, long first, long last, AckPartition.Check c) {
    String offsets = first == last ? "offset " + first : "offsets " + first + ".." + last;
    String where = r.topic() + "-" + r.partition();
    return switch (c) {
      case NOT_DELIVERED -> new Failure(r.topic(), r.partition(), first, last, BrokerError.NOT_LEASED,
          where + ": " + offsets + " not delivered yet");
      case NOT_LEASED -> new Failure(r.topic(), r.partition(), first, last, BrokerError.NOT_LEASED,
          where + ": " + offsets + " not leased to this member");
      case LEASE_EXPIRED -> new Failure(r.topic(), r.partition(), first, last, BrokerError.LEASE_EXPIRED,
          where + ": the lease on " + offsets + " expired or was handed back; it is delivered again");
      case ALREADY_SETTLED -> new Failure(r.topic(), r.partition(), first, last, BrokerError.ALREADY_SETTLED,
          where + ": " + offsets + " already settled");
      case OK -> throw new IllegalArgumentException("not a failure");
    };
  }

  static Failure invalid(Range r, String message) {
    return new Failure(r.topic(), r.partition(), r.first(), r.last(), BrokerError.INVALID_REQUEST, message);
  }
}
