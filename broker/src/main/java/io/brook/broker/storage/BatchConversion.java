package io.brook.broker.storage;

import io.brook.broker.records.LogRecord;
import io.brook.protocol.batch.BatchFormat;
import io.brook.protocol.batch.BatchReader;
import io.brook.protocol.batch.CorruptBatchException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * A stored batch in the form a reader asks for (D46): version 1 for a raw-fetch client that reads
 * only it, a bare Kafka record batch v2 for a Kafka fetch. A batch already in that form is returned
 * as it is (or, for Kafka, the embedded batch is cut out); only one in the other version is decoded
 * and encoded again, so only old data or old clients pay.
 */
public final class BatchConversion {
  private BatchConversion() {}

  /** {@code stored} (a whole stored batch) in version 1; the same array when it is already. */
  public static byte[] toVersion1(byte[] stored, BatchReader in) {
    if (BatchFormat.version(stored, 0) == BatchFormat.VERSION) {
      return stored;
    }
    BatchHeader h = BatchCodec.header(stored, 0, stored.length);
    AppendBatch records = records(stored, h, in);
    ByteWriter out = new ByteWriter(stored.length + 64);
    BatchHeader written = Version1Encoder.encode(out, records, h.baseOffset(), h.runningMaxTimestamp(),
        h.logPosition(), new CRC32C());
    return Arrays.copyOf(out.array(), written.storedLength());
  }

  /**
   * {@code stored} (a whole stored batch) in version 2, whose Kafka part follows Brook's prefix (what
   * a Kafka fetch sends, with its assigned offsets); the same array when it is already (checked, as
   * every read is).
   */
  public static byte[] toVersion2(byte[] stored, BatchReader in) {
    BatchHeader h = BatchCodec.header(stored, 0, stored.length); // a corrupt prefix fails here
    if (BatchFormat.version(stored, 0) == BatchFormat.VERSION_2) {
      return stored;
    }
    AppendBatch records = records(stored, h, in);
    ByteWriter out = new ByteWriter(stored.length + 128);
    BatchHeader written = Version2Encoder.encode(out, records, h.baseOffset(), h.runningMaxTimestamp(),
        h.logPosition(), new CRC32C());
    return Arrays.copyOf(out.array(), written.storedLength());
  }

  /** The batch's records, producer and timestamp type, as an append of them would carry them. */
  private static AppendBatch records(byte[] stored, BatchHeader h, BatchReader in) {
    List<LogRecord> records = new ArrayList<>(h.recordCount());
    try {
      in.wrap(stored, 0, stored.length);
      boolean logAppendTime = in.logAppendTime();
      while (in.next()) {
        records.add(BatchCodec.toRecord(in));
      }
      return new AppendBatch(records, h.appendTimeMs(), logAppendTime, BatchCodec.producer(stored, 0));
    } catch (CorruptBatchException e) {
      throw new StorageException(e.getMessage());
    }
  }
}
