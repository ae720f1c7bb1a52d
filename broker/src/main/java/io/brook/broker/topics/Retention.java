package io.brook.broker.topics;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.storage.SegmentInfo;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies each topic's retention.ms and retention.bytes: deletes whole segments, oldest first, never
 * the one being written. Runs on its own thread; the log takes its locks only to drop the segments
 * from its index, so producers and consumers go on while the files are removed.
 *
 * <p>By time, a segment goes when its last batch was appended more than retention.ms ago. By size, the
 * oldest segments go while the partition would still hold at least retention.bytes without them (as
 * Kafka does): a partition holds between retention.bytes and retention.bytes plus one segment.
 */
public final class Retention {
  private static final Logger log = LoggerFactory.getLogger(Retention.class);

  private final TopicManager topics;
  private final InstantSource clock;
  private final AtomicLong segmentsDeleted = new AtomicLong();
  private final AtomicLong recordsDeleted = new AtomicLong();
  private final AtomicLong bytesDeleted = new AtomicLong();
  private final AtomicLong segmentsHeld = new AtomicLong();
  private volatile RetentionHold hold = RetentionHold.NONE;

  /** What one pass deleted from one partition. */
  public record Deletion(Partition partition, int segments, long records, long bytes, long newStart, String reason) {}

  public Retention(TopicManager topics, InstantSource clock) {
    this.topics = topics;
    this.clock = clock;
  }

  /** Who may hold back deletions (the forwarder, set once it exists). */
  public void hold(RetentionHold hold) {
    this.hold = hold;
  }

  /** One pass over every partition; a failing partition is logged and the others go on. */
  public List<Deletion> run() {
    List<Deletion> done = new ArrayList<>();
    long now = clock.millis();
    for (Partition p : topics.allPartitions()) {
      try {
        Deletion d = apply(p, now);
        if (d != null) {
          done.add(d);
        }
      } catch (BrokerException e) {
        if (e.error() != BrokerError.UNKNOWN_TOPIC) { // deleted meanwhile: nothing to retain
          log.warn("Retention of {} failed: {}", p.name(), e.getMessage());
        }
      }
    }
    return done;
  }

  private Deletion apply(Partition p, long now) {
    TopicConfig config = p.topic().config();
    List<SegmentInfo> segments = p.segments();
    Decision d = held(p, segments, decide(segments, config.retentionMs(), config.retentionBytes(), now));
    if (d.count() == 0) {
      return null;
    }
    long oldStart = segments.get(0).firstOffset();
    long bytes = segments.subList(0, d.count()).stream().mapToLong(SegmentInfo::sizeBytes).sum();
    long newStart = p.deleteOldestSegments(d.count());
    Deletion deletion = new Deletion(p, d.count(), newStart - oldStart, bytes, newStart, d.reason());
    segmentsDeleted.addAndGet(d.count());
    recordsDeleted.addAndGet(deletion.records());
    bytesDeleted.addAndGet(bytes);
    log.info("Retention deleted {} segment(s) of {}: offsets {} to {}, {} bytes ({}); the log now starts at {}",
        d.count(), p.name(), oldStart, newStart - 1, bytes, d.reason(), newStart);
    topics.logStartAdvanced(p);
    return deletion;
  }

  /** How many of the oldest segments to delete, and which limit asked for it. */
  record Decision(int count, String reason) {}

  /** The decision cut to the segments wholly below what the hold keeps; the cut ones are counted. */
  private Decision held(Partition p, List<SegmentInfo> segments, Decision d) {
    if (d.count() == 0) {
      return d;
    }
    long keepFrom = hold.keepFrom(p);
    int count = 0;
    while (count < d.count() && segments.get(count).endOffset() <= keepFrom) {
      count++;
    }
    if (count < d.count()) {
      segmentsHeld.addAndGet(d.count() - count);
      log.debug("Retention of {} holds {} segment(s) from offset {} for a forward route", p.name(), d.count() - count,
          keepFrom);
    }
    return count == d.count() ? d : new Decision(count, d.reason());
  }

  static Decision decide(List<SegmentInfo> segments, long retentionMs, long retentionBytes, long now) {
    long remaining = segments.stream().mapToLong(SegmentInfo::sizeBytes).sum();
    int count = 0;
    boolean byTime = false;
    boolean bySize = false;
    for (int i = 0; i < segments.size() - 1; i++) { // never the last: it is being written
      SegmentInfo s = segments.get(i);
      boolean expired = retentionMs >= 0 && s.lastAppendTimeMs() <= now - retentionMs;
      boolean overSize = retentionBytes >= 0 && remaining - s.sizeBytes() >= retentionBytes;
      if (!expired && !overSize) {
        break;
      }
      byTime |= expired;
      bySize |= overSize && !expired;
      remaining -= s.sizeBytes();
      count++;
    }
    String reason = byTime && bySize ? "retention.ms=" + retentionMs + ", retention.bytes=" + retentionBytes
        : byTime ? "retention.ms=" + retentionMs : "retention.bytes=" + retentionBytes;
    return new Decision(count, reason);
  }

  public long segmentsDeleted() {
    return segmentsDeleted.get();
  }

  public long recordsDeleted() {
    return recordsDeleted.get();
  }

  /** Segments retention would have deleted but kept for a hold, summed over passes. */
  public long segmentsHeld() {
    return segmentsHeld.get();
  }

  public long bytesDeleted() {
    return bytesDeleted.get();
  }
}
