package io.brook.client.ack;

import io.brook.client.TopicPartition;
import io.brook.client.errors.BrookException;
import io.brook.protocol.v1.OffsetRange;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The settle messages the background sender put on the stream, followed until the broker answers
 * them ({@code ReceiveResponse.settled_seq}), so that {@link AckConsumer#flush()} can report the
 * outcome of every settle queued before it, whoever sent it. Keeps the failures (refusals, unknown
 * outcomes) that no flush returned yet, at most {@link #MAX_UNREPORTED} for an application that never
 * flushes. Only streams whose broker confirms settles are followed. Thread-safe.
 */
final class SentSettles {
  static final int MAX_UNREPORTED = 10_000;

  private static final class Sent {
    final ReceiveStream stream;
    final PendingSettles.Batch batch;
    /** The send has not returned yet. */
    boolean sending = true;
    /**
     * A flush that gave up waiting returned it as of unknown outcome: its answer then goes to the
     * failure handler only, so that no settle is returned by two flushes.
     */
    boolean reported;

    Sent(ReceiveStream stream, PendingSettles.Batch batch) {
      this.stream = stream;
      this.batch = batch;
    }
  }

  private record Outcome(long seq, SettleFailure failure) {}

  private long seq;
  private final TreeMap<Long, Sent> awaiting = new TreeMap<>();
  private final List<Outcome> unreported = new ArrayList<>();
  private int dropped;

  /** Numbers a batch about to be sent on {@code s}. */
  synchronized long track(ReceiveStream s, PendingSettles.Batch b) {
    awaiting.put(++seq, new Sent(s, b));
    return seq;
  }

  /**
   * The send of message {@code n} returned. A failed one is forgotten (its settles go back to the
   * queue); answers false when the broker answered it anyway, so they must not be sent again.
   */
  synchronized boolean sendDone(long n, boolean ok) {
    Sent m = awaiting.get(n);
    if (m == null) {
      return false;
    }
    if (!ok) {
      awaiting.remove(n);
      notifyAll();
      return true;
    }
    m.sending = false;
    if (m.stream.ended()) { // it ended while we sent: ended() has run, or will find nothing
      end(n, m);
      notifyAll();
    }
    return true;
  }

  /** The broker applied message {@code n} of {@code s}; {@code refused} are its settles that did not apply. */
  synchronized void answered(ReceiveStream s, long n, List<SettleFailure> refused) {
    Sent answered = awaiting.get(n);
    if (answered == null) {
      return;
    }
    // The broker answers in order: the messages before it applied too.
    awaiting.headMap(n, true).values().removeIf(m -> m.stream == s);
    if (!answered.reported) {
      refused.forEach(f -> keep(n, f));
    }
    notifyAll();
  }

  /** Stream {@code s} ended: cleanly, which confirms what was sent on it, or with an error (outcome unknown). */
  synchronized void ended(ReceiveStream s) {
    for (Iterator<Map.Entry<Long, Sent>> it = awaiting.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Long, Sent> e = it.next();
      if (e.getValue().stream == s && !e.getValue().sending) {
        it.remove();
        unknownIfFailed(e.getKey(), e.getValue());
      }
    }
    notifyAll();
  }

  private void end(long n, Sent m) {
    awaiting.remove(n);
    unknownIfFailed(n, m);
  }

  private void unknownIfFailed(long n, Sent m) {
    Throwable error = m.stream.error();
    if (error != null && !m.reported) {
      BrookException why = new BrookException(SettleFailure.OUTCOME_UNKNOWN, "sent in the background, but the "
          + "stream ended before the broker answered, so whether it applied them is unknown", error);
      failures(m.batch, why).forEach(f -> keep(n, f));
    }
  }

  private void keep(long n, SettleFailure f) {
    if (unreported.size() >= MAX_UNREPORTED) {
      dropped++;
    } else {
      unreported.add(new Outcome(n, f));
    }
  }

  /** The number of the last message sent (or being sent). */
  synchronized long last() {
    return seq;
  }

  /**
   * Waits until every message up to {@code upTo} has its outcome (or the deadline passes, or the
   * thread is interrupted: those still unanswered are reported of unknown outcome), then returns,
   * and forgets, the failures of those messages.
   */
  synchronized List<SettleFailure> collect(long upTo, long deadlineNanos, String timeout) {
    List<SettleFailure> out = new ArrayList<>();
    while (awaiting.headMap(upTo, true).values().stream().anyMatch(m -> !m.reported)) {
      long left = deadlineNanos - System.nanoTime();
      String why = null;
      if (left <= 0) {
        why = "no answer from the broker within " + timeout;
      } else {
        try {
          TimeUnit.NANOSECONDS.timedWait(this, left);
          continue;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          why = "flush was interrupted before the broker answered";
        }
      }
      BrookException unknown = new BrookException(SettleFailure.OUTCOME_UNKNOWN, "sent in the background; " + why
          + ", so whether it applied them is unknown");
      for (Sent m : awaiting.headMap(upTo, true).values()) {
        if (!m.reported) {
          out.addAll(failures(m.batch, unknown));
          m.reported = true;
        }
      }
      break;
    }
    for (Iterator<Outcome> it = unreported.iterator(); it.hasNext(); ) {
      Outcome o = it.next();
      if (o.seq() <= upTo) {
        out.add(o.failure());
        it.remove();
      }
    }
    if (dropped > 0) {
      System.getLogger(AckConsumer.class.getName()).log(System.Logger.Level.WARNING, dropped + " more settles did "
          + "not apply and are not listed by flush: over " + MAX_UNREPORTED + " since the last flush (the failure "
          + "handler had the refused ones)");
      dropped = 0;
    }
    return out;
  }

  private static List<SettleFailure> failures(PendingSettles.Batch b, BrookException error) {
    List<SettleFailure> out = new ArrayList<>();
    for (OffsetRange r : b.ranges()) {
      long last = r.hasLastOffset() ? r.getLastOffset() : r.getFirstOffset();
      out.add(new SettleFailure(new TopicPartition(r.getTopic(), r.getPartition()), r.getFirstOffset(), last, error));
    }
    return out;
  }
}
