package io.brook.broker.cli;

import io.brook.client.consumer.ConsumerRecord;
import io.brook.protocol.v1.Header;
import io.brook.protocol.v1.Record;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

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
    List<io.brook.client.Header> headers = new ArrayList<>(r.getHeadersCount());
    for (Header h : r.getHeadersList()) {
      headers.add(new io.brook.client.Header(h.getKey(), h.getValue().toByteArray()));
    }
    write(partition, r.getOffset(), r.getTimestampMs(), r.hasKey() ? r.getKey().toByteArray() : null,
        r.getValue().toByteArray(), headers, attempt, out);
  }

  /** A record as the client's consumer returns it (keys and values as bytes). */
  void write(ConsumerRecord<byte[], byte[]> r, OutputStream out) throws IOException {
    write(r.partition(), r.offset(), r.timestampMs(), r.key(), r.value(), r.headers(), 0, out);
  }

  private void write(int partition, long offset, long timestampMs, byte[] key, byte[] value,
      List<io.brook.client.Header> headers, int attempt, OutputStream out) throws IOException {
    for (int i = 0; i < template.length(); i++) {
      char c = template.charAt(i);
      if (c != '%') {
        out.write(c < 0x80 ? new byte[] {(byte) c} : String.valueOf(c).getBytes(StandardCharsets.UTF_8));
        continue;
      }
      char f = template.charAt(++i);
      switch (f) {
        case 'v' -> out.write(value);
        case 'k' -> {
          if (key != null) {
            out.write(key);
          }
        }
        case 'o' -> out.write(Long.toString(offset).getBytes(StandardCharsets.US_ASCII));
        case 'p' -> out.write(Integer.toString(partition).getBytes(StandardCharsets.US_ASCII));
        case 't' -> out.write(Long.toString(timestampMs).getBytes(StandardCharsets.US_ASCII));
        case 'a' -> {
          if (attempt > 0) {
            out.write(Integer.toString(attempt).getBytes(StandardCharsets.US_ASCII));
          }
        }
        case 'T' -> out.write(Instant.ofEpochMilli(timestampMs).toString().getBytes(StandardCharsets.US_ASCII));
        case 'h' -> {
          for (int h = 0; h < headers.size(); h++) {
            io.brook.client.Header header = headers.get(h);
            if (h > 0) {
              out.write(',');
            }
            out.write(header.key().getBytes(StandardCharsets.UTF_8));
            out.write('=');
            out.write(header.value());
          }
        }
        default -> out.write('%');
      }
    }
    out.write('\n');
  }
}
