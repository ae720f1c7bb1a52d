package io.brook.client.producer;

import com.google.protobuf.CodedOutputStream;
import io.brook.client.Header;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * A record in the records section of the Brook batch format ({@code BatchFormat}), as
 * {@code ProduceBatch.encoded_records} carries it: a varint body length, then a zig-zag varint
 * timestamp delta from the batch's base timestamp, a varint key length + 1 (0 = no key), the key, a
 * varint value length, the value, a varint header count and per header a varint name length, the
 * UTF-8 name, a varint value length and the value. Since D49 only a broker older than
 * {@code kafka_batch} gets records in this form, rewritten from the batch's Kafka records. The
 * varints are protobuf's (unsigned LEB128, and sint64 for the delta), so CodedOutputStream writes
 * them (ProduceRequestEncodingTest reads the bytes back with the broker's BatchReader).
 */
final class RecordEncoding {
  private RecordEncoding() {}

  /** Bytes of the record's body (after its length) with this timestamp delta. */
  static int bodySize(byte[] key, byte[] value, List<Header> headers, long delta) {
    return CodedOutputStream.computeSInt64SizeNoTag(delta) + bodyWithoutDelta(key, value, headers);
  }

  /** Bytes of a record whose body is {@code body} bytes: the length, then the body. */
  static int size(int body) {
    return CodedOutputStream.computeUInt32SizeNoTag(body) + body;
  }

  /**
   * Writes the record, whose {@link #bodySize} is {@code body}, at buf[at]: {@link #size}(body)
   * bytes. A null key: no key; a null value: empty.
   */
  static void write(byte[] buf, int at, int body, byte[] key, byte[] value, List<Header> headers, long delta) {
    CodedOutputStream out = CodedOutputStream.newInstance(buf, at, size(body));
    try {
      out.writeUInt32NoTag(body);
      out.writeSInt64NoTag(delta);
      if (key == null) {
        out.writeUInt32NoTag(0);
      } else {
        out.writeUInt32NoTag(key.length + 1);
        out.writeRawBytes(key);
      }
      writeBytes(out, value);
      out.writeUInt32NoTag(headers.size());
      for (Header h : headers) {
        out.writeStringNoTag(h.key());
        writeBytes(out, h.value());
      }
      out.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new UncheckedIOException("record encoding overran its computed size", e);
    }
  }

  private static void writeBytes(CodedOutputStream out, byte[] bytes) throws IOException {
    if (bytes == null) {
      out.writeUInt32NoTag(0);
    } else {
      out.writeByteArrayNoTag(bytes);
    }
  }

  private static int bodyWithoutDelta(byte[] key, byte[] value, List<Header> headers) {
    int size = key == null ? 1 : CodedOutputStream.computeUInt32SizeNoTag(key.length + 1) + key.length;
    size += value == null ? 1 : CodedOutputStream.computeByteArraySizeNoTag(value);
    size += CodedOutputStream.computeUInt32SizeNoTag(headers.size());
    for (Header h : headers) {
      size += CodedOutputStream.computeStringSizeNoTag(h.key()) + CodedOutputStream.computeByteArraySizeNoTag(h.value());
    }
    return size;
  }
}
