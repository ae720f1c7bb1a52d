package io.brook.broker.api;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.UnsafeByteOperations;
import io.brook.broker.records.IncomingBatch;
import io.brook.broker.records.LogRecord;
import io.brook.broker.records.RecordHeader;
import io.brook.protocol.v1.Header;
import io.brook.protocol.v1.Record;
import java.util.ArrayList;
import java.util.List;

/** Converts records between the wire (brook.v1.Record) and the record model (LogRecord), nothing more. */
final class RecordMapper {
  private RecordMapper() {}

  static List<LogRecord> toLog(List<Record> records) {
    List<LogRecord> out = new ArrayList<>(records.size());
    for (int i = 0; i < records.size(); i++) {
      Record r = records.get(i);
      // As sent: the core's validator refuses a negative one.
      long ts = r.hasTimestampMs() ? r.getTimestampMs() : IncomingBatch.Listed.NO_TIMESTAMP;
      List<RecordHeader> headers = List.of();
      if (r.getHeadersCount() > 0) {
        headers = new ArrayList<>(r.getHeadersCount());
        for (Header h : r.getHeadersList()) {
          headers.add(new RecordHeader(h.getKeyBytes().toByteArray(), h.getValue().toByteArray()));
        }
      }
      out.add(LogRecord.of(r.hasKey() ? r.getKey().toByteArray() : null, r.getValue().toByteArray(), ts, headers));
    }
    return out;
  }

  static Record toWire(LogRecord r) {
    Record.Builder b = Record.newBuilder()
        .setOffset(r.offset())
        .setTimestampMs(r.timestamp())
        .setValue(wrap(r.value()));
    if (r.key() != null) {
      b.setKey(wrap(r.key()));
    }
    for (RecordHeader h : r.headers()) {
      // Header names are stored as the UTF-8 bytes they arrived as.
      b.addHeaders(Header.newBuilder().setKeyBytes(wrap(h.nameUtf8())).setValue(wrap(h.value())));
    }
    return b.build();
  }

  /**
   * The encoded size of {@link #toWire}{@code (r)}, computed without building it: a fetch measures
   * every record it considers, and builds only those that go out.
   */
  static int wireSize(LogRecord r) {
    int size = CodedOutputStream.computeInt64Size(Record.TIMESTAMP_MS_FIELD_NUMBER, r.timestamp()); // always set
    if (r.offset() != 0) {
      size += CodedOutputStream.computeInt64Size(Record.OFFSET_FIELD_NUMBER, r.offset());
    }
    if (r.key() != null) {
      size += CodedOutputStream.computeByteArraySize(Record.KEY_FIELD_NUMBER, r.key());
    }
    if (r.value().length > 0) {
      size += CodedOutputStream.computeByteArraySize(Record.VALUE_FIELD_NUMBER, r.value());
    }
    for (RecordHeader h : r.headers()) {
      int header = 0;
      if (h.nameUtf8().length > 0) {
        header += CodedOutputStream.computeByteArraySize(Header.KEY_FIELD_NUMBER, h.nameUtf8());
      }
      if (h.value().length > 0) {
        header += CodedOutputStream.computeByteArraySize(Header.VALUE_FIELD_NUMBER, h.value());
      }
      size += messageFieldSize(Record.HEADERS_FIELD_NUMBER, header);
    }
    return size;
  }

  /** Tag, length and body of a message field whose body is {@code size} bytes. */
  static int messageFieldSize(int field, int size) {
    return CodedOutputStream.computeTagSize(field) + CodedOutputStream.computeUInt32SizeNoTag(size) + size;
  }

  /** The storage hands over fresh arrays it never touches again: no copy needed. */
  private static ByteString wrap(byte[] bytes) {
    return bytes.length == 0 ? ByteString.EMPTY : UnsafeByteOperations.unsafeWrap(bytes);
  }
}
