package io.brook.broker.api;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.MessageLite;
import io.brook.broker.errors.LimitExceededException;
import io.brook.protocol.batch.BatchFormat;
import io.brook.protocol.v1.FetchResponse;
import io.brook.protocol.v1.LeasedRecords;
import io.brook.protocol.v1.PartitionRecords;
import io.brook.protocol.v1.ReceiveResponse;
import io.brook.protocol.v1.TailResponse;

/**
 * The size every answer and stream message of the broker stays within, so that a client on gRPC's
 * default 4 MiB inbound limit can read all of them: 3 MiB, encoded. The one exception is a message
 * that holds a single record alone (a record up to the topic's max.message.bytes must still be
 * readable by a client that raised its limit). Answers that carry records are cut to fit as they are
 * built; {@link AnswerCapGuard} holds every other answer to it.
 */
final class AnswerCap {
  static final int BYTES = 3 << 20;
  /**
   * Room kept for what wraps the records of one partition in an answer: topic (at most 249 bytes),
   * partition, offsets, the message's own tags and lengths.
   */
  static final int PARTITION_OVERHEAD = 512;
  /** gRPC's frame header before each message on the wire (compression flag, length). */
  static final int FRAME_HEADER = 5;

  private AnswerCap() {}

  /**
   * Null when {@code answer} may go out; else why not: it is over the cap and is not a single record.
   * Answers carrying records are built within the cap, so for them this is a last line; other answers
   * (a group's committed offsets with long metadata, say) the client must ask for in parts.
   */
  static LimitExceededException check(Object answer) {
    if (!(answer instanceof MessageLite m)) {
      return null;
    }
    int size = m.getSerializedSize();
    if (size <= BYTES || records(answer) == 1) {
      return null;
    }
    return new LimitExceededException("answer.max.bytes", BYTES, "the answer would be " + size
        + " bytes, over the broker's answer cap of " + BYTES + " bytes (kept under gRPC's default 4 MiB client "
        + "limit): ask for less at a time (fewer partitions or records)");
  }

  /** Records an answer carries (a stored batch counts its own), or -1 for answers that carry none. */
  private static long records(Object answer) {
    if (answer instanceof FetchResponse f) {
      long n = 0;
      for (PartitionRecords p : f.getPartitionsList()) {
        n += records(p);
      }
      return n;
    }
    if (answer instanceof TailResponse t) {
      return records(t.getRecords());
    }
    if (answer instanceof ReceiveResponse r) {
      long n = 0;
      for (LeasedRecords b : r.getBatchesList()) {
        n += b.getRecordsCount();
      }
      return n;
    }
    return -1;
  }

  private static long records(PartitionRecords p) {
    long n = p.getRecordsCount();
    for (ByteString batch : p.getBatchesList()) {
      // either version: the count lies at another place in each (a Kafka batch's, in version 2)
      byte[] header = batch.substring(0, Math.min(batch.size(), BatchFormat.V2_HEADER_SIZE)).toByteArray();
      int needed = header.length > 0 && header[0] == BatchFormat.VERSION_2 ? BatchFormat.V2_HEADER_SIZE
          : BatchFormat.RECORD_COUNT + 4;
      n += header.length < needed ? 1 : BatchFormat.recordCount(header, 0);
    }
    return n;
  }

  /** The encoded size of {@code message} as field {@code field} of another: tag, length, body. */
  static int fieldSize(int field, MessageLite message) {
    return CodedOutputStream.computeMessageSize(field, message);
  }

  /** The encoded size of a bytes field of {@code length} bytes. */
  static int bytesFieldSize(int field, int length) {
    return CodedOutputStream.computeTagSize(field) + CodedOutputStream.computeUInt32SizeNoTag(length) + length;
  }
}
