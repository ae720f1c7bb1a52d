package io.brook.broker.cli;

import io.brook.broker.storage.dump.DumpSummary;
import io.brook.broker.storage.dump.DumpedBatch;
import io.brook.broker.records.LogRecord;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Locale;

/** {@code brook dump}'s text: one line per segment, batch and record, key=value fields, a summary line. */
final class DumpText implements DumpPrinter {
  private final PrintWriter out;

  DumpText(PrintWriter out) {
    this.out = out;
  }

  @Override
  public void partition(Path dir) {
    out.println("partition " + dir);
  }

  @Override
  public void segment(String fileName, int cycle) {
    out.println("segment " + fileName + " (cycle " + cycle + ")");
  }

  @Override
  public void batch(DumpedBatch b) {
    StringBuilder line = new StringBuilder("batch");
    if (b.baseOffset() >= 0) {
      line.append(" base=").append(b.baseOffset()).append(" count=").append(b.recordCount())
          .append(" appended=").append(time(b.appendTimeMs())).append(" first.ts=").append(time(b.firstTimestamp()))
          .append(" max.ts=").append(time(b.maxTimestamp()));
      if (!b.producer().isNone()) {
        line.append(" producer.id=").append(b.producer().producerId()).append(" producer.epoch=")
            .append(b.producer().epoch()).append(" base.seq=").append(b.producer().baseSequence());
      }
    }
    line.append(" size=").append(b.sizeBytes()).append(" crc=").append(b.checksumOk() ? "ok" : "BAD")
        .append(" format=v").append(b.version());
    if (!b.compression().equals("none")) {
      line.append(" compression=").append(b.compression());
    }
    out.println(line);
    if (b.problem() != null) {
      out.println("  PROBLEM " + b.problem());
    }
  }

  @Override
  public void record(LogRecord r) {
    String key = r.key() == null ? "none" : DumpPrinter.printable(r.key()) != null
        ? '"' + DumpPrinter.printable(r.key()).replace("\\", "\\\\").replace("\"", "\\\"") + '"'
        : "0x" + DumpPrinter.hex(r.key());
    out.println("  record offset=" + r.offset() + " ts=" + time(r.timestamp()) + " key=" + key + " value.size="
        + r.value().length + " headers=" + r.headers().size());
  }

  @Override
  public void summary(DumpSummary s) {
    String offsets = s.batches() == 0 || s.firstOffset() < 0 ? "first=none last=none"
        : "first=" + s.firstOffset() + " last=" + s.lastOffset();
    out.println("summary segments=" + s.segments() + " batches=" + s.batches() + " records=" + s.records()
        + " bytes=" + s.bytes() + " " + offsets + " " + counts(s) + " tail=" + tail(s.tail())
        + " roll=" + s.roll() + (s.corrupt() ? " CORRUPT" : " ok"));
    s.problems().forEach(p -> out.println("  PROBLEM " + p));
  }

  /** The corruption counters, e.g. "gaps=0 overlaps=0 checksum.failures=0 malformed=0 inconsistencies=0". */
  static String counts(DumpSummary s) {
    return "gaps=" + s.gaps() + " overlaps=" + s.overlaps() + " checksum.failures=" + s.checksumFailures()
        + " malformed=" + s.malformedBatches() + " inconsistencies=" + s.inconsistencies();
  }

  static String tail(DumpSummary.Tail t) {
    return t.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  private static String time(long ms) {
    return Instant.ofEpochMilli(ms).toString();
  }
}
