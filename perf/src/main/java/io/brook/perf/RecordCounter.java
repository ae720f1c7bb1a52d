package io.brook.perf;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Records per second, next to a benchmark's primary (calls per second) score: each call adds the
 * records it handled. JMH reports it as the secondary metric {@code records}, which the table scripts
 * read.
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.OPERATIONS)
public class RecordCounter {
  public long records;

  @Setup(Level.Iteration)
  public void reset() {
    records = 0;
  }
}
