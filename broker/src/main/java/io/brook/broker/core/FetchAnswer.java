package io.brook.broker.core;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.BatchCodec;
import io.brook.broker.storage.BatchConversion;
import io.brook.broker.storage.BatchHeader;
import io.brook.broker.storage.BatchReadResult;
import io.brook.broker.storage.ReadResult;
import io.brook.broker.storage.StorageException;
import io.brook.broker.topics.Partition;
import io.brook.protocol.batch.BatchFormat;
import io.brook.protocol.batch.BatchReader;
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
  /** Decodes batches a reader needs in another version; made on the first such batch. */
  private BatchReader converter;

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
   * Raw batches, in the form the reader reads ({@link BatchForm}): stored bytes go out as they are,
   * without a copy, when the form is the stored one; a batch in the other version is converted, and
   * limits and the cap count what the reader receives. A first batch that alone would break the cap
   * and holds more than one record goes as records instead (to {@code records}), from {@code offset},
   * so that only a single record is ever larger than the cap; a Kafka reader takes no records, so
   * its first batch always comes whole.
   *
   * @return the next offset
   */
  long addBatches(Partition p, long offset, int partitionMaxBytes, BatchForm form, List<byte[]> out,
      List<LogRecord> records) {
    long next = offset;
    int read = 0;
    int added = 0;
    reading:
    while (true) {
      int room = Math.max(0, Math.min(Math.min(maxBytes - bytes, partitionMaxBytes) - added, size.capBytes() - wire));
      BatchReadResult br = p.readBatches(next, maxRecords - this.records - read, room, this.records + read == 0);
      if (br.batches().isEmpty() && form != BatchForm.STORED_AS_IS && this.records + read > 0) {
        // The log sizes its read by stored bytes: the next batch may fit once converted (a Kafka
        // batch inside version 2 is always smaller; version 1 of an uncompressed one too), so it is
        // read alone and measured as the reader will receive it.
        br = p.readBatches(next, 1, 0, true);
      }
      if (br.batches().isEmpty()) {
        if (read == 0) {
          next = br.nextOffset();
        }
        break;
      }
      for (byte[] stored : br.batches()) {
        BatchHeader h;
        byte[] batch;
        try {
          h = BatchCodec.header(stored, 0, stored.length);
          batch = inForm(stored, form);
        } catch (StorageException e) {
          throw new BrokerException(BrokerError.STORAGE_ERROR, "read of " + p.name() + " failed: " + e.getMessage());
        }
        int length = form == BatchForm.KAFKA ? batch.length - BatchFormat.V2_PREFIX_SIZE : batch.length;
        int batchSize = size.batchSize(length);
        boolean first = this.records + read == 0;
        if (!first && (wire + batchSize > size.capBytes() || bytes + added + length > maxBytes
            || added + length > partitionMaxBytes)) {
          break reading; // the batches' framing or a conversion took the last bytes: the rest come next time
        }
        if (first && wire + batchSize > size.capBytes() && h.recordCount() > 1 && form != BatchForm.KAFKA) {
          return addRecords(p, offset, records);
        }
        out.add(batch);
        wire += batchSize;
        added += length;
        read += (int) (h.nextOffset() - next);
        next = h.nextOffset();
      }
      // As stored, the log's sizes are the reader's and one read is all; converted, read on into
      // the room the conversion left.
      if (form == BatchForm.STORED_AS_IS || this.records + read >= maxRecords) {
        break;
      }
    }
    this.records += read;
    bytes += added;
    p.topic().traffic().fetched(read, added);
    return next;
  }

  private byte[] inForm(byte[] stored, BatchForm form) {
    return switch (form) {
      case STORED_AS_IS -> stored;
      case STORED_V1 -> BatchConversion.toVersion1(stored, reader());
      case KAFKA -> BatchConversion.toVersion2(stored, reader());
      case RECORDS -> throw new IllegalArgumentException("records are not read as batches");
    };
  }

  private BatchReader reader() {
    if (converter == null) {
      converter = new BatchReader();
    }
    return converter;
  }
}
