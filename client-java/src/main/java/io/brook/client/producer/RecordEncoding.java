package io.brook.client.producer;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import io.brook.client.Header;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * A record in protobuf wire format, as an element of {@code ProduceBatch.records} (field 3): the
 * tag, the length, then {@code brook.v1.Record}'s fields. {@code send} writes each record straight
 * into its batch's buffer in this form, so the hot path builds no message objects and the sender
 * copies each batch's bytes into the request once (RecordEncodingTest checks the bytes against the
 * generated classes).
 */
final class RecordEncoding {
  static final int RECORDS_FIELD = 3; // ProduceBatch.records
  private static final int KEY = 1;
  private static final int VALUE = 2;
  private static final int HEADERS = 3;
  private static final int TIMESTAMP = 4;
  private static final int HEADER_KEY = 1;
  private static final int HEADER_VALUE = 2;

  private RecordEncoding() {}

  /** Bytes of the Record message itself. A null key: no key; a null timestamp: the broker's time. */
  static int recordSize(byte[] key, byte[] value, List<Header> headers, Long timestampMs) {
    int size = 0;
    if (key != null) {
      size += CodedOutputStream.computeByteArraySize(KEY, key);
    }
    if (value != null && value.length > 0) {
      size += CodedOutputStream.computeByteArraySize(VALUE, value);
    }
    for (Header h : headers) {
      int header = headerSize(h);
      size += CodedOutputStream.computeTagSize(HEADERS) + CodedOutputStream.computeUInt32SizeNoTag(header) + header;
    }
    if (timestampMs != null) {
      size += CodedOutputStream.computeInt64Size(TIMESTAMP, timestampMs);
    }
    return size;
  }

  /** Bytes of the record as a ProduceBatch element: tag, length and the record. */
  static int elementSize(int recordSize) {
    return CodedOutputStream.computeTagSize(RECORDS_FIELD) + CodedOutputStream.computeUInt32SizeNoTag(recordSize)
        + recordSize;
  }

  /** Writes the element (elementSize(recordSize) bytes) at buf[at]. */
  static void write(byte[] buf, int at, int recordSize, byte[] key, byte[] value, List<Header> headers,
      Long timestampMs) {
    CodedOutputStream out = CodedOutputStream.newInstance(buf, at, elementSize(recordSize));
    try {
      out.writeTag(RECORDS_FIELD, WireFormat.WIRETYPE_LENGTH_DELIMITED);
      out.writeUInt32NoTag(recordSize);
      if (key != null) {
        out.writeByteArray(KEY, key);
      }
      if (value != null && value.length > 0) {
        out.writeByteArray(VALUE, value);
      }
      for (Header h : headers) {
        out.writeTag(HEADERS, WireFormat.WIRETYPE_LENGTH_DELIMITED);
        out.writeUInt32NoTag(headerSize(h));
        if (!h.key().isEmpty()) {
          out.writeString(HEADER_KEY, h.key());
        }
        if (h.value().length > 0) {
          out.writeByteArray(HEADER_VALUE, h.value());
        }
      }
      if (timestampMs != null) {
        out.writeInt64(TIMESTAMP, timestampMs);
      }
      out.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new UncheckedIOException("record encoding overran its computed size", e);
    }
  }

  private static int headerSize(Header h) {
    return (h.key().isEmpty() ? 0 : CodedOutputStream.computeStringSize(HEADER_KEY, h.key()))
        + (h.value().length == 0 ? 0 : CodedOutputStream.computeByteArraySize(HEADER_VALUE, h.value()));
  }
}
