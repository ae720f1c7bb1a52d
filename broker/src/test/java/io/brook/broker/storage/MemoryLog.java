package io.brook.broker.storage;

import io.brook.broker.records.LogRecord;
import io.brook.broker.records.EncodedRecords;
import io.brook.protocol.batch.BatchFormat;
import io.brook.protocol.batch.BatchReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * A partition log in memory, for fast tests of the layers above (it lives with the tests: the broker
 * never runs it). It stores batches in the same encoded form as the Chronicle log and groups them into
 * segments by the same clock and roll; {@link PartitionLogContractTest} runs both through one contract.
 */
public final class MemoryLog implements PartitionLog {
  private final LogOptions options;
  private final List<byte[]> batches = new ArrayList<>();
  private final List<BatchHeader> headers = new ArrayList<>();
  private final List<Long> cycles = new ArrayList<>();
  private final ByteWriter scratch = new ByteWriter(4096);
  private final CRC32C crc = new CRC32C();
  private final BatchReader in = new BatchReader();
  private long endOffset;
  private long runningMax = Long.MIN_VALUE;
  private long endLogPosition;
  private boolean closed;

  public MemoryLog(LogOptions options) {
    this.options = options;
  }

  /** A {@link LogFactory}: {@code MemoryLog::open}, as the broker passes {@code ChronicleLog::open}. */
  public static MemoryLog open(Path dir, LogOptions options) {
    return new MemoryLog(options);
  }

  @Override
  public synchronized AppendResult append(AppendBatch batch) {
    ensureOpen();
    BatchHeader h = BatchCodec.encode(scratch, batch, endOffset, runningMax, endLogPosition, crc);
    int headerLength = scratch.position();
    byte[] stored = java.util.Arrays.copyOf(scratch.array(), h.storedLength());
    if (batch.kafka() != null) {
      System.arraycopy(batch.kafka().array(), BatchCodec.kafkaRecordsFrom(batch), stored, headerLength,
          BatchCodec.kafkaRecordsLength(batch));
    }
    batches.add(stored);
    headers.add(h);
    cycles.add(options.clock().millis() / options.roll().lengthMillis());
    runningMax = h.runningMaxTimestamp();
    endLogPosition = h.endLogPosition();
    endOffset = h.nextOffset();
    return new AppendResult(h.baseOffset(), h.recordCount(), h.appendTimeMs(), startOffset());
  }

  @Override
  public synchronized ReadResult read(long offset, int maxRecords, int maxBytes) {
    ensureOpen();
    long start = startOffset();
    if (offset < start || offset > endOffset) {
      throw new OffsetOutOfRangeException(offset, start, endOffset);
    }
    List<LogRecord> out = new ArrayList<>();
    int bytes = 0;
    long next = offset;
    for (int i = batchHolding(offset); i >= 0 && i < batches.size() && out.size() < maxRecords; i++) {
      byte[] b = batches.get(i);
      int before = out.size();
      bytes += BatchCodec.decode(b, 0, b.length, next, maxRecords - out.size(),
          out.isEmpty() ? maxBytes : maxBytes - bytes, out, in);
      if (out.size() == before) {
        break;
      }
      next = out.get(out.size() - 1).offset() + 1;
      if (next < headers.get(i).nextOffset()) {
        break;
      }
    }
    return new ReadResult(out, next);
  }

  @Override
  public synchronized BatchReadResult readBatches(long offset, int maxRecords, int maxBytes, boolean atLeastOne) {
    ensureOpen();
    long start = startOffset();
    if (offset < start || offset > endOffset) {
      throw new OffsetOutOfRangeException(offset, start, endOffset);
    }
    List<byte[]> out = new ArrayList<>();
    int bytes = 0;
    long next = offset;
    for (int i = batchHolding(offset); i >= 0 && i < batches.size() && next - offset < maxRecords; i++) {
      byte[] b = batches.get(i);
      if (bytes + b.length > maxBytes && !(atLeastOne && out.isEmpty())) {
        break;
      }
      out.add(b.clone());
      bytes += b.length;
      next = headers.get(i).nextOffset();
    }
    return new BatchReadResult(out, next, bytes);
  }

  /** Index of the batch holding offset, or -1 at the end. */
  private int batchHolding(long offset) {
    int lo = 0;
    int hi = headers.size() - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (headers.get(mid).baseOffset() <= offset) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found >= 0 && offset < headers.get(found).nextOffset() ? found : -1;
  }

  @Override
  public synchronized long startOffset() {
    return headers.isEmpty() ? endOffset : headers.get(0).baseOffset();
  }

  @Override
  public synchronized long endOffset() {
    return endOffset;
  }

  @Override
  public synchronized long offsetForTimestamp(long timestampMs) {
    for (int i = 0; i < headers.size(); i++) {
      if (headers.get(i).runningMaxTimestamp() >= timestampMs) {
        // The running max may count records retention deleted: the first batch reaching the
        // target on its own holds the answer.
        byte[] b = batches.get(i);
        long found = BatchCodec.firstOffsetAtOrAfter(b, 0, b.length, timestampMs, in);
        if (found >= 0) {
          return found;
        }
      }
    }
    return endOffset;
  }

  @Override
  public synchronized long sizeBytes() {
    return headers.isEmpty() ? 0 : endLogPosition - headers.get(0).logPosition();
  }

  @Override
  public synchronized int segmentCount() {
    return (int) cycles.stream().distinct().count();
  }

  @Override
  public synchronized List<SegmentInfo> segments() {
    List<SegmentInfo> out = new ArrayList<>();
    int first = 0;
    for (int i = 1; i <= headers.size(); i++) {
      if (i == headers.size() || !cycles.get(i).equals(cycles.get(first))) {
        BatchHeader head = headers.get(first);
        BatchHeader last = headers.get(i - 1);
        out.add(new SegmentInfo(head.baseOffset(), last.nextOffset(), last.endLogPosition() - head.logPosition(),
            last.appendTimeMs()));
        first = i;
      }
    }
    return out;
  }

  @Override
  public synchronized long deleteOldestSegments(int count) {
    ensureOpen();
    List<SegmentInfo> held = segments();
    int n = Math.min(count, held.size() - 1);
    if (n > 0) {
      int batchesGone = 0;
      long newStart = held.get(n).firstOffset();
      while (batchesGone < headers.size() && headers.get(batchesGone).baseOffset() < newStart) {
        batchesGone++;
      }
      batches.subList(0, batchesGone).clear();
      headers.subList(0, batchesGone).clear();
      cycles.subList(0, batchesGone).clear();
    }
    return startOffset();
  }

  @Override
  public synchronized void forEachBatch(long fromOffset, java.util.function.Consumer<BatchInfo> visitor) {
    for (int i = 0; i < batches.size(); i++) {
      if (headers.get(i).nextOffset() > fromOffset) {
        byte[] b = batches.get(i);
        visitor.accept(BatchCodec.info(b, 0, b.length));
      }
    }
  }

  @Override
  public void flush() {
    // Nothing to force: memory is as durable as it gets.
  }

  private void ensureOpen() {
    if (closed) {
      throw new StorageException("the in-memory partition log is closed");
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
  }
}
