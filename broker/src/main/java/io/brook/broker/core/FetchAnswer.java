package io.brook.broker.core;

import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.BatchReadResult;
import io.brook.broker.storage.ReadResult;
import io.brook.broker.topics.Partition;
import io.brook.protocol.batch.BatchFormat;
import java.util.List;

/**
 * Fills the records of one answer (a fetch's, over all its partitions, or one tail message) within
 * the client's record and byte limits and the door's cap ({@link AnswerSize}): records are counted by
 * payload against max_bytes, and by their encoded size against the cap. The first record always
 * comes, so a record larger than both still goes out, alone.
 */
final class FetchAnswer {
  private final int maxRecords;
  private final int maxBytes;
  private final AnswerSize size;
  private int records;
  private int bytes;
  /** Encoded size of the answer so far (an upper bound: each partition counts its overhead in full). */
  private int wire;

  FetchAnswer(int maxRecords, int maxBytes, AnswerSize size) {
    this.maxRecords = maxRecords;
    this.maxBytes = maxBytes;
    this.size = size;
  }

  /** Whether another partition may still add records. */
  boolean hasRoom() {
    return records < maxRecords && (records == 0 || (bytes < maxBytes && wire + size.partitionOverhead()
        < size.capBytes()));
  }

  /** Counts a partition's entry in the answer, with or without records. */
  void partition() {
    wire += size.partitionOverhead();
  }

  int records() {
    return records;
  }

  /** Adds records of {@code p} from {@code offset} to {@code out} while they fit; returns the next offset. */
  long addRecords(Partition p, long offset, List<LogRecord> out) {
    ReadResult rr = p.read(offset, maxRecords - records, records == 0 ? maxBytes : maxBytes - bytes);
    long next = offset;
    int bytesBefore = bytes;
    int added = 0;
    for (LogRecord r : rr.records()) {
      // "At least one record" holds for the answer, not for each partition: a partition read after
      // others must not push the answer past max_bytes or the cap.
      int recordSize = size.recordSize(r);
      if (records > 0 && (bytes + r.payloadSize() > maxBytes || wire + recordSize > size.capBytes())) {
        break;
      }
      out.add(r);
      bytes += r.payloadSize();
      wire += recordSize;
      records++;
      added++;
      next = r.offset() + 1;
    }
    p.topic().traffic().fetched(added, bytes - bytesBefore);
    return next;
  }

  /**
   * Raw batches: the stored bytes go out as they are, without a copy; the client decodes them. A first
   * batch that alone would break the cap and holds more than one record goes as records instead (to
   * {@code records}), from {@code offset}, so that only a single record is ever larger than the cap.
   *
   * @return the next offset
   */
  long addBatches(Partition p, long offset, List<byte[]> out, List<LogRecord> records) {
    int room = Math.max(0, Math.min(maxBytes - bytes, size.capBytes() - wire));
    BatchReadResult br = p.readBatches(offset, maxRecords - this.records, room, this.records == 0);
    long next = br.batches().isEmpty() ? br.nextOffset() : offset;
    int added = 0;
    for (byte[] batch : br.batches()) {
      int batchSize = size.batchSize(batch.length);
      int count = BatchFormat.intAt(batch, BatchFormat.RECORD_COUNT);
      if (wire + batchSize > size.capBytes()) {
        if (this.records > 0 || added > 0) {
          break; // the stored batches' framing took the last bytes: the rest come next time
        }
        if (count > 1) {
          return addRecords(p, offset, records);
        }
      }
      out.add(batch);
      wire += batchSize;
      added += batch.length;
      next = BatchFormat.longAt(batch, BatchFormat.BASE_OFFSET) + count;
    }
    int read = (int) (next - offset);
    this.records += read;
    bytes += added;
    p.topic().traffic().fetched(read, added);
    return next;
  }
}
