package io.brook.broker.topics;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.storage.SegmentRoll;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A topic's effective settings: the broker's defaults overlaid with the keys set on the topic.
 *
 * @param maxRecordBytes the largest record (key + value + headers) of a batch that comes by gRPC
 * @param maxMessageBytes Kafka's max.message.bytes: the largest Kafka record batch as stored (after
 *     compression), for batches that come as Kafka batches
 * @param overrides only the keys set on the topic (what is persisted); the rest follow the defaults
 */
public record TopicConfig(long retentionMs, long retentionBytes, SegmentRoll segmentRoll, int maxRecordBytes,
    int maxMessageBytes, boolean logAppendTime, Map<String, String> overrides) {
  public static final String RETENTION_MS = "retention.ms";
  public static final String RETENTION_BYTES = "retention.bytes";
  public static final String SEGMENT_ROLL = "segment.roll";
  /** Brook's per-record limit; before issue 25 it was called max.message.bytes (TopicMetadata migrates it). */
  public static final String MAX_RECORD_BYTES = "max.record.bytes";
  /** Kafka's name with Kafka's meaning: a whole batch as stored, after compression. */
  public static final String MAX_MESSAGE_BYTES = "max.message.bytes";
  public static final String TIMESTAMP_TYPE = "message.timestamp.type";
  public static final Set<String> KEYS = Set.of(RETENTION_MS, RETENTION_BYTES, SEGMENT_ROLL, MAX_RECORD_BYTES,
      MAX_MESSAGE_BYTES, TIMESTAMP_TYPE);
  public static final long DEFAULT_RETENTION_MS = 7L * 24 * 3600 * 1000;
  /** Kafka's default max.message.bytes (1 MiB plus a batch header and a record's overhead). */
  public static final int DEFAULT_MAX_MESSAGE_BYTES = 1048588;

  public TopicConfig {
    overrides = Map.copyOf(overrides);
  }

  /** Defaults with no overrides. */
  public static TopicConfig defaults(long retentionMs, long retentionBytes, SegmentRoll roll, int maxRecordBytes,
      int maxMessageBytes) {
    return new TopicConfig(retentionMs, retentionBytes, roll, maxRecordBytes, maxMessageBytes, false, Map.of());
  }

  /** Defaults with no overrides and Kafka's default max.message.bytes. */
  public static TopicConfig defaults(long retentionMs, long retentionBytes, SegmentRoll roll, int maxRecordBytes) {
    return defaults(retentionMs, retentionBytes, roll, maxRecordBytes, DEFAULT_MAX_MESSAGE_BYTES);
  }

  /** This config's defaults with {@code overrides} applied; refuses unknown keys and bad values. */
  public TopicConfig withOverrides(Map<String, String> newOverrides) {
    Map<String, String> all = new TreeMap<>(overrides);
    all.putAll(newOverrides);
    long retMs = retentionMs;
    long retBytes = retentionBytes;
    SegmentRoll roll = segmentRoll;
    int maxRecord = maxRecordBytes;
    int maxMsg = maxMessageBytes;
    boolean appendTime = logAppendTime;
    for (Map.Entry<String, String> e : newOverrides.entrySet()) {
      String v = e.getValue() == null ? "" : e.getValue().trim();
      switch (e.getKey()) {
        case RETENTION_MS -> retMs = longAtLeast(e.getKey(), v, -1);
        case RETENTION_BYTES -> retBytes = longAtLeast(e.getKey(), v, -1);
        case SEGMENT_ROLL -> roll = parseRoll(v);
        case MAX_RECORD_BYTES -> maxRecord = (int) Math.min(Integer.MAX_VALUE, longAtLeast(e.getKey(), v, 1));
        case MAX_MESSAGE_BYTES -> maxMsg = (int) Math.min(Integer.MAX_VALUE, longAtLeast(e.getKey(), v, 1));
        case TIMESTAMP_TYPE -> appendTime = parseTimestampType(v);
        default -> throw invalid("unknown topic config key '" + e.getKey() + "': known keys are "
            + String.join(", ", new TreeSet<>(KEYS)));
      }
    }
    return new TopicConfig(retMs, retBytes, roll, maxRecord, maxMsg, appendTime, all);
  }

  /** The defaults a topic's overrides apply to, re-applied after removing {@code removed}. */
  public static TopicConfig of(TopicConfig defaults, Map<String, String> overrides, Collection<String> removed) {
    Map<String, String> kept = new LinkedHashMap<>(overrides);
    for (String key : removed) {
      if (!KEYS.contains(key)) {
        throw invalid("unknown topic config key '" + key + "'");
      }
      kept.remove(key);
    }
    return defaults.withOverrides(kept);
  }

  /** Every key with its effective value. */
  public Map<String, String> effective() {
    Map<String, String> m = new TreeMap<>();
    m.put(RETENTION_MS, String.valueOf(retentionMs));
    m.put(RETENTION_BYTES, String.valueOf(retentionBytes));
    m.put(SEGMENT_ROLL, segmentRoll.label());
    m.put(MAX_RECORD_BYTES, String.valueOf(maxRecordBytes));
    m.put(MAX_MESSAGE_BYTES, String.valueOf(maxMessageBytes));
    m.put(TIMESTAMP_TYPE, logAppendTime ? "LogAppendTime" : "CreateTime");
    return m;
  }

  private static long longAtLeast(String key, String v, long min) {
    try {
      long n = Long.parseLong(v);
      if (n < min) {
        throw invalid(key + " must be >= " + min + ", got " + v);
      }
      return n;
    } catch (NumberFormatException e) {
      throw invalid(key + " must be a whole number, got '" + v + "'");
    }
  }

  private static SegmentRoll parseRoll(String v) {
    try {
      return SegmentRoll.parse(v);
    } catch (IllegalArgumentException e) {
      throw invalid(SEGMENT_ROLL + ": " + e.getMessage());
    }
  }

  private static boolean parseTimestampType(String v) {
    if (v.equalsIgnoreCase("CreateTime")) {
      return false;
    }
    if (v.equalsIgnoreCase("LogAppendTime")) {
      return true;
    }
    throw invalid(TIMESTAMP_TYPE + " must be CreateTime or LogAppendTime, got '" + v + "'");
  }

  private static BrokerException invalid(String message) {
    return new BrokerException(BrokerError.INVALID_REQUEST, message);
  }
}
