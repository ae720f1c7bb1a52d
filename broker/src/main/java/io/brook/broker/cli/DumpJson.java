package io.brook.broker.cli;

import io.brook.broker.storage.dump.DumpSummary;
import io.brook.broker.storage.dump.DumpedBatch;
import io.brook.broker.records.LogRecord;
import java.io.PrintWriter;
import java.nio.file.Path;

/**
 * {@code brook dump --json}: JSON lines, one object per line with a "type" (partition, segment, batch,
 * record, summary), so a program can stream a large partition.
 */
final class DumpJson implements DumpPrinter {
  private final PrintWriter out;

  DumpJson(PrintWriter out) {
    this.out = out;
  }

  @Override
  public void partition(Path dir) {
    out.println("{\"type\":\"partition\",\"dir\":" + str(dir.toString()) + "}");
  }

  @Override
  public void segment(String fileName, int cycle) {
    out.println("{\"type\":\"segment\",\"file\":" + str(fileName) + ",\"cycle\":" + cycle + "}");
  }

  @Override
  public void batch(DumpedBatch b) {
    StringBuilder sb = new StringBuilder(256).append("{\"type\":\"batch\",\"segment\":").append(str(b.segment()))
        .append(",\"base_offset\":").append(b.baseOffset()).append(",\"records\":").append(b.recordCount())
        .append(",\"append_time_ms\":").append(b.appendTimeMs()).append(",\"first_timestamp_ms\":")
        .append(b.firstTimestamp()).append(",\"max_timestamp_ms\":").append(b.maxTimestamp());
    if (!b.producer().isNone()) {
      sb.append(",\"producer_id\":").append(b.producer().producerId()).append(",\"producer_epoch\":")
          .append(b.producer().epoch()).append(",\"base_sequence\":").append(b.producer().baseSequence());
    }
    sb.append(",\"size_bytes\":").append(b.sizeBytes()).append(",\"checksum_ok\":").append(b.checksumOk())
        .append(",\"format_version\":").append(b.version()).append(",\"compression\":").append(str(b.compression()))
        .append(",\"problem\":").append(b.problem() == null ? "null" : str(b.problem())).append('}');
    out.println(sb);
  }

  @Override
  public void record(LogRecord r) {
    StringBuilder sb = new StringBuilder(128).append("{\"type\":\"record\",\"offset\":").append(r.offset())
        .append(",\"timestamp_ms\":").append(r.timestamp());
    if (r.key() == null) {
      sb.append(",\"key\":null");
    } else {
      String text = DumpPrinter.printable(r.key());
      sb.append(text != null ? ",\"key\":" + str(text) : ",\"key_hex\":\"" + DumpPrinter.hex(r.key()) + "\"");
    }
    sb.append(",\"value_size\":").append(r.value().length).append(",\"headers\":").append(r.headers().size())
        .append('}');
    out.println(sb);
  }

  @Override
  public void summary(DumpSummary s) {
    StringBuilder sb = new StringBuilder(512).append("{\"type\":\"summary\",\"dir\":").append(str(s.dir().toString()))
        .append(",\"roll\":").append(str(s.roll())).append(",\"broker_running\":").append(s.brokerRunning())
        .append(",\"segments\":").append(s.segments()).append(",\"batches\":").append(s.batches())
        .append(",\"records\":").append(s.records()).append(",\"bytes\":").append(s.bytes())
        .append(",\"first_offset\":").append(s.firstOffset() < 0 ? "null" : Long.toString(s.firstOffset()))
        .append(",\"last_offset\":").append(s.lastOffset() < 0 ? "null" : Long.toString(s.lastOffset()))
        .append(",\"gaps\":").append(s.gaps()).append(",\"overlaps\":").append(s.overlaps())
        .append(",\"checksum_failures\":").append(s.checksumFailures()).append(",\"malformed_batches\":")
        .append(s.malformedBatches()).append(",\"inconsistencies\":").append(s.inconsistencies())
        .append(",\"tail\":").append(str(DumpText.tail(s.tail()))).append(",\"corrupt\":").append(s.corrupt())
        .append(",\"problems\":[");
    for (int i = 0; i < s.problems().size(); i++) {
      sb.append(i == 0 ? "" : ",").append(str(s.problems().get(i)));
    }
    out.println(sb.append("]}"));
  }

  /** Quotes strings as RFC 8259 asks (no HTML escaping: '<' stays '<'). */
  private static final com.google.gson.Gson GSON = new com.google.gson.GsonBuilder().disableHtmlEscaping().create();

  /** A JSON string literal. */
  static String str(String s) {
    return GSON.toJson(s);
  }

}
