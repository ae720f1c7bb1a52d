package io.brook.broker.it.crash;

import java.util.SplittableRandom;

/**
 * Record contents derived from the run's seed and the record's id (its key): nothing has to be
 * remembered to check that a fetched value is exactly what was produced.
 */
final class Payloads {
  private Payloads() {}

  /** The unique id of producer {@code producer}'s {@code n}th record; it is the record's key. */
  static String key(int producer, long n) {
    return "P" + producer + "-" + n;
  }

  static byte[] value(long seed, String key) {
    SplittableRandom r = new SplittableRandom(seed ^ (key.hashCode() * 0x9E3779B97F4A7C15L));
    byte[] v = new byte[r.nextInt(300)];
    for (int i = 0; i < v.length; i++) {
      v[i] = (byte) r.nextInt(256);
    }
    return v;
  }
}
