package io.brook.client.it;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What is written to System.err while it is open, still passed on to the real stderr. The client's
 * System.Logger goes to SLF4J on this module's classpath (slf4j-jdk-platform-logging), whose
 * slf4j-simple writes "[thread] LEVEL logger - message" lines to System.err: the lines an
 * application's log would get.
 */
final class StderrCapture implements AutoCloseable {
  private final PrintStream original = System.err;
  private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

  StderrCapture() {
    OutputStream tee = new OutputStream() {
      @Override
      public void write(int b) {
        synchronized (captured) {
          captured.write(b);
        }
        original.write(b);
      }

      @Override
      public void write(byte[] b, int off, int len) {
        synchronized (captured) {
          captured.write(b, off, len);
        }
        original.write(b, off, len);
      }
    };
    System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
  }

  /** The lines written so far that contain every one of {@code parts}. */
  List<String> lines(String... parts) {
    String text;
    synchronized (captured) {
      text = captured.toString(StandardCharsets.UTF_8);
    }
    return text.lines().filter(l -> List.of(parts).stream().allMatch(l::contains)).toList();
  }

  @Override
  public void close() {
    System.setErr(original);
  }
}
