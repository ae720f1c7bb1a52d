package io.brook.broker.api;

import com.google.protobuf.UnsafeByteOperations;
import io.brook.broker.storage.BatchReadResult;
import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.ReadResult;
import io.brook.broker.topics.Partition;
import io.brook.protocol.batch.BatchFormat;
import io.brook.protocol.v1.PartitionRecords;
import io.brook.protocol.v1.Record;

/**
 * Fills the records of one answer (a fetch's, over all its partitions, or one tail message) within
 * the client's record and byte limits and the {@link AnswerCap}: records are counted by payload
 * against max_bytes, and by their encoded size against the cap. The first record always comes, so a
 * record larger than both still goes out, alone.
 */
final class RecordsAnswer {
  private final int maxRecords;
  private final int maxBytes;
  private int records;
  private int bytes;
  /** Encoded size of the answer so far (an upper bound: each partition counts its overhead in full). */
  private int wire;

  RecordsAnswer(int maxRecords, int maxBytes) {
    this.maxRecords = maxRecords;
    this.maxBytes = maxBytes;
  }

  /** Whether another partition may still add records. */
  boolean hasRoom() {
    return records < maxRecords && (records == 0 || (bytes < maxBytes && wire + AnswerCap.PARTITION_OVERHEAD
        < AnswerCap.BYTES));
  }

  /** Counts a partition's entry in the answer, with or without records. */
  void partition() {
    wire += AnswerCap.PARTITION_OVERHEAD;
  }

  int records() {
    return records;
  }

  /** Adds records of {@code p} from {@code offset} while they fit; sets the next offset. */
  void addRecords(Partition p, long offset, PartitionRecords.Builder pr) {
    ReadResult rr = p.read(offset, maxRecords - records, records == 0 ? maxBytes : maxBytes - bytes);
    long next = offset;
    int bytesBefore = bytes;
    int added = 0;
    for (LogRecord r : rr.records()) {
      // "At least one record" holds for the answer, not for each partition: a partition read after
      // others must not push the answer past max_bytes or the cap.
      Record wireRecord = RecordMapper.toWire(r);
      int size = AnswerCap.fieldSize(PartitionRecords.RECORDS_FIELD_NUMBER, wireRecord);
      if (records > 0 && (bytes + r.payloadSize() > maxBytes || wire + size > AnswerCap.BYTES)) {
        break;
      }
      pr.addRecords(wireRecord);
      bytes += r.payloadSize();
      wire += size;
      records++;
      added++;
      next = r.offset() + 1;
    }
    pr.setNextOffset(next);
    p.topic().traffic().fetched(added, bytes - bytesBefore);
  }

  /**
   * Raw batches: the stored bytes go out as they are, wrapped without a copy; the client decodes them.
   * A first batch that alone would break the cap and holds more than one record goes as records
   * instead, from {@code offset}, so that only a single record is ever larger than the cap.
   */
  void addBatches(Partition p, long offset, PartitionRecords.Builder pr) {
    int room = Math.max(0, Math.min(maxBytes - bytes, AnswerCap.BYTES - wire));
    BatchReadResult br = p.readBatches(offset, maxRecords - records, room, records == 0);
    long next = br.batches().isEmpty() ? br.nextOffset() : offset;
    int added = 0;
    for (byte[] batch : br.batches()) {
      int size = AnswerCap.bytesFieldSize(PartitionRecords.BATCHES_FIELD_NUMBER, batch.length);
      int count = BatchFormat.intAt(batch, BatchFormat.RECORD_COUNT);
      if (wire + size > AnswerCap.BYTES) {
        if (records > 0 || added > 0) {
          break; // the stored batches' framing took the last bytes: the rest come next time
        }
        if (count > 1) {
          addRecords(p, offset, pr);
          return;
        }
      }
      pr.addBatches(UnsafeByteOperations.unsafeWrap(batch));
      wire += size;
      added += batch.length;
      next = BatchFormat.longAt(batch, BatchFormat.BASE_OFFSET) + count;
    }
    int read = (int) (next - offset);
    records += read;
    bytes += added;
    pr.setNextOffset(next);
    p.topic().traffic().fetched(read, added);
  }
}
