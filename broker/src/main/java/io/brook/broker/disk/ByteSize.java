package io.brook.broker.disk;

import java.util.Locale;

/** Byte counts for people: exact bytes and a rounded binary unit. */
final class ByteSize {
  private ByteSize() {}

  static String of(long bytes) {
    return bytes + " bytes (" + human(bytes) + ")";
  }

  static String human(long bytes) {
    long abs = Math.abs(bytes);
    if (abs < 1024) {
      return bytes + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = bytes;
    int u = -1;
    while (Math.abs(v) >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
  }
}
