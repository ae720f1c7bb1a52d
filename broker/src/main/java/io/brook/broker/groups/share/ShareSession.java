package io.brook.broker.groups.share;

import io.brook.broker.groups.MemberFault;
import io.brook.broker.groups.MemberFaultException;
import io.brook.broker.groups.TopicPartition;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * A Kafka share session (KIP-932): the partitions a member fetches from, kept between its ShareFetch
 * requests so that each names only what changed, and the epoch its next request must carry. Epoch 0
 * opens a session (a new one replaces the old), -1 closes it; any other must be the next one, which
 * is how a broker tells a lost or repeated request. Not thread-safe: its group's monitor guards it.
 */
public final class ShareSession {
  private final Set<TopicPartition> partitions = new LinkedHashSet<>();
  private int nextEpoch = 1;

  /** Checks a request's epoch on an open session and moves the session to the epoch after it. */
  public void advance(int epoch) {
    if (epoch != nextEpoch) {
      throw new MemberFaultException(MemberFault.INVALID_SHARE_SESSION_EPOCH, "share session epoch " + epoch
          + " is not the expected " + nextEpoch);
    }
    nextEpoch = epoch == Integer.MAX_VALUE ? 1 : epoch + 1;
  }

  public void add(Collection<TopicPartition> added) {
    partitions.addAll(added);
  }

  public void forget(Collection<TopicPartition> forgotten) {
    partitions.removeAll(forgotten);
  }

  public Set<TopicPartition> partitions() {
    return partitions;
  }

  /** The refusal of a request on a session the broker does not have (never opened, closed, or before a restart). */
  public static MemberFaultException notFound(String memberId) {
    return new MemberFaultException(MemberFault.SHARE_SESSION_NOT_FOUND, "member '" + memberId
        + "' has no share session here (open one with epoch 0)");
  }
}
