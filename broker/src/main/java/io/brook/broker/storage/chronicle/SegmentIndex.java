package io.brook.broker.storage.chronicle;

import io.brook.broker.storage.BatchHeader;
import io.brook.broker.storage.SegmentInfo;
import io.brook.broker.storage.StorageException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Finds batches by offset and by time across the segments, without Chronicle: it keeps one entry per
 * segment (the base offset of its first batch) and reads batch headers through {@link Headers}.
 *
 * <p>A batch's place is {@code (cycle, sequence)}: sequences are contiguous within a segment, and a
 * batch holds one or more offsets. To find offset X: the segment whose first offset is the greatest
 * at or below X, then a binary search over its sequences by base offset. The time index works the
 * same way on the running max timestamp every batch header carries. Thread-safe: appends add
 * segments while readers look them up.
 */
final class SegmentIndex {
  /** Reads the header of the batch at {@code sequence} of segment {@code cycle}; null when there is none. */
  @FunctionalInterface
  interface Headers {
    BatchHeader at(int cycle, long sequence);
  }

  /** A batch's place: its segment's cycle and its sequence in it. */
  record Position(int cycle, long sequence) {}

  /** First offset of each segment → the segment. */
  private final ConcurrentSkipListMap<Long, Segment> segments = new ConcurrentSkipListMap<>();
  /** The last batch's append time of segments no longer written (by cycle): they never change. */
  private final Map<Integer, Long> closedSegmentAppendTime = new ConcurrentHashMap<>();

  SegmentIndex(List<Segment> recovered) {
    for (Segment s : recovered) {
      segments.put(s.firstOffset(), s);
    }
  }

  /** A new segment: its first batch was just appended. */
  void add(Segment s) {
    segments.put(s.firstOffset(), s);
  }

  int size() {
    return segments.size();
  }

  /** The oldest segment's first offset; only when there is a segment. */
  long firstOffset() {
    return segments.firstKey();
  }

  /** Bytes of the batches held, given the log position after the last one. */
  long sizeBytes(long endLogPosition) {
    Map.Entry<Long, Segment> first = segments.firstEntry();
    return first == null ? 0 : endLogPosition - first.getValue().firstLogPosition();
  }

  /** Removes up to {@code count} oldest segments, never the last one (being written), oldest first. */
  List<Segment> removeOldest(int count) {
    List<Segment> removed = new ArrayList<>();
    for (int i = 0; i < count && segments.size() > 1; i++) {
      Segment s = segments.pollFirstEntry().getValue();
      closedSegmentAppendTime.remove(s.cycle());
      removed.add(s);
    }
    return removed;
  }

  /**
   * The place of the batch holding {@code offset}, which is below {@code endOffset}; null when no
   * segment holds it (below the oldest).
   */
  Position locate(long offset, long endOffset, Headers headers) {
    Map.Entry<Long, Segment> entry = segments.floorEntry(offset);
    if (entry == null) {
      return null;
    }
    Segment s = entry.getValue();
    long offsetsInSegment = endOf(s, endOffset) - s.firstOffset();
    // Sequence of the last batch at or below offset: batches hold >= 1 record, so at most offsetsInSegment.
    long lo = 0;
    long hi = Math.min(offsetsInSegment - 1, offset - s.firstOffset());
    while (lo < hi) {
      long mid = (lo + hi + 1) >>> 1;
      BatchHeader h = headers.at(s.cycle(), mid);
      if (h == null || h.baseOffset() > offset) {
        hi = mid - 1;
      } else {
        lo = mid;
      }
    }
    return new Position(s.cycle(), lo);
  }

  /**
   * The place of the first batch whose running max timestamp reaches {@code timestampMs}, where the
   * search for the first record at or after it starts (after retention, running maxima may count
   * deleted records). Only for a log holding a batch whose running max reaches it.
   */
  Position firstBatchReaching(long timestampMs, long endOffset, Headers headers) {
    // The last segment whose first batch's running max is below the target holds the answer, or the
    // answer is the first batch of the segment after it.
    Segment chosen = null;
    for (Segment s : segments.values()) {
      if (s.firstRunningMax() >= timestampMs) {
        break;
      }
      chosen = s;
    }
    if (chosen == null) {
      return new Position(segments.firstEntry().getValue().cycle(), 0);
    }
    Map.Entry<Long, Segment> following = segments.higherEntry(chosen.firstOffset());
    long lo = 0;
    long hi = endOf(chosen, endOffset) - chosen.firstOffset(); // one past the max sequence
    while (lo < hi) {
      long mid = (lo + hi) >>> 1;
      BatchHeader h = headers.at(chosen.cycle(), mid);
      if (h == null || h.runningMaxTimestamp() >= timestampMs) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    if (headers.at(chosen.cycle(), lo) == null && following != null) {
      return new Position(following.getValue().cycle(), 0);
    }
    return new Position(chosen.cycle(), lo);
  }

  /**
   * The segments as retention sees them, oldest first. The last one ends at the log's end; a closed
   * one's last append time is read once (through {@code headers}) and kept.
   */
  List<SegmentInfo> describe(long endOffset, long endLogPosition, long lastAppendTimeMs, Headers headers) {
    List<Segment> held = new ArrayList<>(segments.values());
    List<SegmentInfo> out = new ArrayList<>(held.size());
    for (int i = 0; i < held.size(); i++) {
      Segment s = held.get(i);
      if (i == held.size() - 1) {
        out.add(new SegmentInfo(s.firstOffset(), endOffset, endLogPosition - s.firstLogPosition(), lastAppendTimeMs));
        break;
      }
      Segment next = held.get(i + 1);
      Long appended = closedSegmentAppendTime.get(s.cycle());
      if (appended == null) {
        Position p = locate(next.firstOffset() - 1, endOffset, headers);
        BatchHeader last = p == null ? null : headers.at(p.cycle(), p.sequence());
        if (last == null) {
          throw new StorageException("the last batch of segment " + s.file() + " cannot be read");
        }
        appended = last.appendTimeMs();
        closedSegmentAppendTime.put(s.cycle(), appended);
      }
      out.add(new SegmentInfo(s.firstOffset(), next.firstOffset(), next.firstLogPosition() - s.firstLogPosition(),
          appended));
    }
    return out;
  }

  /** One past the last offset of segment {@code s}: the next segment's first offset, or the log's end. */
  private long endOf(Segment s, long endOffset) {
    Map.Entry<Long, Segment> following = segments.higherEntry(s.firstOffset());
    return following == null ? endOffset : following.getKey();
  }
}
