package io.brook.broker.api;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.records.LogRecord;
import io.brook.broker.records.RecordHeader;
import io.brook.protocol.v1.Header;
import io.brook.protocol.v1.Record;
import java.util.ArrayList;
import java.util.List;

/** Converts records between the wire (brook.v1.Record) and storage (LogRecord), nothing more. */
final class RecordMapper {
  private RecordMapper() {}

  static List<LogRecord> toLog(List<Record> records) {
    List<LogRecord> out = new ArrayList<>(records.size());
    for (int i = 0; i < records.size(); i++) {
      Record r = records.get(i);
      long ts = -1;
      if (r.hasTimestampMs()) {
        ts = r.getTimestampMs();
        if (ts < 0) {
          throw new BrokerException(BrokerError.INVALID_RECORD, "record " + i + " has a negative timestamp " + ts
              + " (leave timestamp_ms unset for the broker's time)");
        }
      }
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

  /** The storage hands over fresh arrays it never touches again: no copy needed. */
  private static ByteString wrap(byte[] bytes) {
    return bytes.length == 0 ? ByteString.EMPTY : UnsafeByteOperations.unsafeWrap(bytes);
  }
}
