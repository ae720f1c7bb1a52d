package io.brook.broker.forward;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** A route's counts since the broker started: forwarded, dropped by retention, failed attempts by kind. */
final class RouteCounters {
  private final LongAdder records = new LongAdder();
  private final LongAdder bytes = new LongAdder();
  private final LongAdder dropped = new LongAdder();
  private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();
  private volatile String lastError;
  private volatile long lastErrorAtMs;

  void forwarded(long recordBytes) {
    records.increment();
    bytes.add(recordBytes);
  }

  void dropped(long count) {
    dropped.add(count);
  }

  void failed(String kind, String message) {
    errors.computeIfAbsent(kind, k -> new LongAdder()).increment();
    lastError = message;
    lastErrorAtMs = System.currentTimeMillis();
  }

  long records() {
    return records.sum();
  }

  long bytes() {
    return bytes.sum();
  }

  long dropped() {
    return dropped.sum();
  }

  Map<String, Long> errors() {
    Map<String, Long> out = new TreeMap<>();
    errors.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }

  String lastError() {
    return lastError;
  }

  long lastErrorAtMs() {
    return lastErrorAtMs;
  }
}
