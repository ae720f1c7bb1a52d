package io.brook.broker.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Lines of an input stream, read on a daemon thread of their own and handed over in chunks. A read
 * from stdin cannot be interrupted, so a command waiting for the next line could not otherwise
 * stop on a signal: {@link #stop} makes a waiting {@link #next} return at once. A chunk is handed
 * over as soon as no more input is ready, so a line typed is sent without waiting for the next.
 */
final class StdinLines {
  private static final int CHUNK_LINES = 1024;
  private static final Object END = new Object();
  private static final Object STOP = new Object();

  /** Chunks (List of String), then END or the IOException that ended the reading. */
  private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(8);

  StdinLines(InputStream in) {
    Thread reader = new Thread(() -> read(new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8),
        1 << 16)), "brook-stdin");
    reader.setDaemon(true); // may stay blocked in a read when the command stops
    reader.start();
  }

  private void read(BufferedReader in) {
    try {
      try {
        List<String> chunk = new ArrayList<>();
        for (String line; (line = in.readLine()) != null; ) {
          chunk.add(line);
          if (chunk.size() == CHUNK_LINES || !in.ready()) {
            queue.put(chunk);
            chunk = new ArrayList<>();
          }
        }
        if (!chunk.isEmpty()) {
          queue.put(chunk);
        }
        queue.put(END);
      } catch (IOException e) {
        queue.put(e);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The next lines, in order; null at the end of the input or after {@link #stop}. */
  @SuppressWarnings("unchecked")
  List<String> next() throws IOException, InterruptedException {
    Object o = queue.take();
    if (o == END || o == STOP) {
      return null;
    }
    if (o instanceof IOException e) {
      throw e;
    }
    return (List<String>) o;
  }

  /**
   * Wakes a {@link #next} waiting for input. When the queue is full nothing waits, and the caller
   * sees its own stop flag before it asks again.
   */
  void stop() {
    queue.offer(STOP);
  }
}
