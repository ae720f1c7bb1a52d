package io.brook.broker.storage.chronicle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.storage.BatchHeader;
import io.brook.broker.storage.SegmentInfo;
import io.brook.broker.storage.StorageException;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The segment index without Chronicle: segments of batch headers held in lists, read through the same
 * {@link SegmentIndex.Headers} the engine reads Chronicle documents through.
 */
class SegmentIndexTest {
  /** Batches by segment: cycle {@code 10 + i} holds {@code batches.get(i)}. */
  private final List<List<BatchHeader>> batches = new ArrayList<>();
  private long nextOffset;
  private long logPosition;
  private final AtomicInteger headerReads = new AtomicInteger();
  private final SegmentIndex.Headers headers = (cycle, sequence) -> {
    headerReads.incrementAndGet();
    List<BatchHeader> segment = batches.get(cycle - 10);
    return sequence < segment.size() ? segment.get((int) sequence) : null;
  };

  /** Appends a segment of batches with these record counts, running max timestamps and append times. */
  private Segment segment(int[] counts, long[] runningMax, long[] appendTimes) {
    List<BatchHeader> segment = new ArrayList<>();
    for (int i = 0; i < counts.length; i++) {
      BatchHeader h = new BatchHeader(counts[i], nextOffset, runningMax[i], appendTimes[i], logPosition, 100);
      segment.add(h);
      nextOffset = h.nextOffset();
      logPosition = h.endLogPosition();
    }
    batches.add(segment);
    BatchHeader first = segment.get(0);
    return new Segment(9 + batches.size(), first.baseOffset(), first.runningMaxTimestamp(), first.logPosition(),
        new File("segment-" + batches.size()));
  }

  /** Three segments: offsets [0, 10) in batches of 1, 4, 5; [10, 13) in 3 of 1; [13, 33) in 2 of 10. */
  private SegmentIndex threeSegments() {
    List<Segment> segments = List.of(
        segment(new int[] {1, 4, 5}, new long[] {100, 120, 120}, new long[] {1, 2, 3}),
        segment(new int[] {1, 1, 1}, new long[] {130, 160, 200}, new long[] {4, 5, 6}),
        segment(new int[] {10, 10}, new long[] {200, 300}, new long[] {7, 8}));
    return new SegmentIndex(segments);
  }

  @Test
  void everyOffsetIsFoundInTheBatchThatHoldsIt() {
    SegmentIndex index = threeSegments();
    for (long offset = 0; offset < nextOffset; offset++) {
      SegmentIndex.Position p = index.locate(offset, nextOffset, headers);
      BatchHeader h = headers.at(p.cycle(), p.sequence());
      assertThat(h.baseOffset()).as("offset %d", offset).isLessThanOrEqualTo(offset);
      assertThat(h.nextOffset()).as("offset %d", offset).isGreaterThan(offset);
    }
    assertThat(index.locate(4, nextOffset, headers)).isEqualTo(new SegmentIndex.Position(10, 1));
    assertThat(index.locate(12, nextOffset, headers)).isEqualTo(new SegmentIndex.Position(11, 2));
    assertThat(index.locate(32, nextOffset, headers)).isEqualTo(new SegmentIndex.Position(12, 1));
  }

  @Test
  void anOffsetBelowTheOldestSegmentHasNoPlace() {
    SegmentIndex index = threeSegments();
    index.removeOldest(1);
    assertThat(index.locate(9, nextOffset, headers)).isNull();
    assertThat(index.locate(10, nextOffset, headers)).isEqualTo(new SegmentIndex.Position(11, 0));
  }

  @Test
  void theTimeIndexFindsTheFirstBatchWhoseRunningMaxReachesTheTarget() {
    SegmentIndex index = threeSegments();
    assertThat(index.firstBatchReaching(50, nextOffset, headers)).as("before everything: the first batch")
        .isEqualTo(new SegmentIndex.Position(10, 0));
    assertThat(index.firstBatchReaching(110, nextOffset, headers)).isEqualTo(new SegmentIndex.Position(10, 1));
    assertThat(index.firstBatchReaching(150, nextOffset, headers)).isEqualTo(new SegmentIndex.Position(11, 1));
    assertThat(index.firstBatchReaching(200, nextOffset, headers)).as("a segment's last batch")
        .isEqualTo(new SegmentIndex.Position(11, 2));
    assertThat(index.firstBatchReaching(125, nextOffset, headers))
        .as("past a segment's last batch: the next segment's first").isEqualTo(new SegmentIndex.Position(11, 0));
    assertThat(index.firstBatchReaching(250, nextOffset, headers)).isEqualTo(new SegmentIndex.Position(12, 1));
  }

  @Test
  void segmentsAreDescribedAndAClosedSegmentsLastAppendIsReadOnce() {
    SegmentIndex index = threeSegments();
    List<SegmentInfo> described = index.describe(nextOffset, logPosition, 99, headers);
    assertThat(described).containsExactly(new SegmentInfo(0, 10, 300, 3), new SegmentInfo(10, 13, 300, 6),
        new SegmentInfo(13, 33, 200, 99));
    int reads = headerReads.get();
    assertThat(index.describe(nextOffset, logPosition, 99, headers)).isEqualTo(described);
    assertThat(headerReads.get()).as("closed segments never change: read once").isEqualTo(reads);
    assertThat(index.sizeBytes(logPosition)).isEqualTo(800);
  }

  @Test
  void deletionTakesTheOldestButNeverTheSegmentBeingWritten() {
    SegmentIndex index = threeSegments();
    assertThat(index.removeOldest(5)).extracting(Segment::cycle).containsExactly(10, 11);
    assertThat(index.size()).isEqualTo(1);
    assertThat(index.firstOffset()).isEqualTo(13);
    assertThat(index.sizeBytes(logPosition)).isEqualTo(200);
    assertThat(index.removeOldest(1)).isEmpty();
    index.add(segment(new int[] {1}, new long[] {400}, new long[] {9}));
    assertThat(index.locate(33, nextOffset, headers)).isEqualTo(new SegmentIndex.Position(13, 0));
  }

  @Test
  void aClosedSegmentWhoseLastBatchCannotBeReadFailsTheListing() {
    SegmentIndex index = threeSegments();
    SegmentIndex.Headers lost = (cycle, sequence) -> cycle == 10 ? null : headers.at(cycle, sequence);
    assertThatThrownBy(() -> index.describe(nextOffset, logPosition, 99, lost))
        .isInstanceOf(StorageException.class).hasMessageContaining("segment-1");
  }
}
