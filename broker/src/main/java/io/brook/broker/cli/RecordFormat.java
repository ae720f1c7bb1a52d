package io.brook.broker.cli;

import io.brook.protocol.v1.Header;
import io.brook.protocol.v1.Record;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * How {@code consume} prints a record: a template where %v is the value, %k the key (empty when
 * none), %o the offset, %p the partition, %t the timestamp in ms, %T it as ISO-8601, %h the headers
 * as name=value pairs separated by commas, %a the delivery attempt (ack mode: 1 on the first delivery;
 * empty otherwise), %% a percent sign; \t and \n are tab and newline. Keys and
 * values are written as their raw bytes. Every record ends with a newline.
 */
final class RecordFormat {
  private final String template;

  RecordFormat(String template) {
    for (int i = 0; i < template.length(); i++) {
      if (template.charAt(i) == '%') {
        if (i + 1 >= template.length() || "vkoptTha%".indexOf(template.charAt(i + 1)) < 0) {
          throw new CliException("--format: unknown placeholder at '" + template.substring(i)
              + "' (use %v %k %o %p %t %T %h %a %%)", BrookCli.EXIT_USAGE);
        }
        i++;
      }
    }
    this.template = template.replace("\\t", "\t").replace("\\n", "\n");
  }

  void write(int partition, Record r, OutputStream out) throws IOException {
    write(partition, r, 0, out);
  }

  /** {@code attempt}: the delivery attempt of an ack-mode record, 0 when there is none (%a prints nothing). */
  void write(int partition, Record r, int attempt, OutputStream out) throws IOException {
    for (int i = 0; i < template.length(); i++) {
      char c = template.charAt(i);
      if (c != '%') {
        out.write(c < 0x80 ? new byte[] {(byte) c} : String.valueOf(c).getBytes(StandardCharsets.UTF_8));
        continue;
      }
      char f = template.charAt(++i);
      switch (f) {
        case 'v' -> r.getValue().writeTo(out);
        case 'k' -> {
          if (r.hasKey()) {
            r.getKey().writeTo(out);
          }
        }
        case 'o' -> out.write(Long.toString(r.getOffset()).getBytes(StandardCharsets.US_ASCII));
        case 'p' -> out.write(Integer.toString(partition).getBytes(StandardCharsets.US_ASCII));
        case 't' -> out.write(Long.toString(r.getTimestampMs()).getBytes(StandardCharsets.US_ASCII));
        case 'a' -> {
          if (attempt > 0) {
            out.write(Integer.toString(attempt).getBytes(StandardCharsets.US_ASCII));
          }
        }
        case 'T' -> out.write(Instant.ofEpochMilli(r.getTimestampMs()).toString().getBytes(StandardCharsets.US_ASCII));
        case 'h' -> {
          for (int h = 0; h < r.getHeadersCount(); h++) {
            Header header = r.getHeaders(h);
            if (h > 0) {
              out.write(',');
            }
            out.write(header.getKeyBytes().toByteArray());
            out.write('=');
            header.getValue().writeTo(out);
          }
        }
        default -> out.write('%');
      }
    }
    out.write('\n');
  }
}
