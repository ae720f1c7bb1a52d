package io.brook.perf.harness;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * What a forward route must have done (issue 28, D72), checked from both ends: the source topic as Brook
 * holds it (every record, read back after the run) and the target topic as Kafka holds it, read in order.
 * Each Kafka record must name a Brook record by its origin headers and carry the same key, value, headers
 * and timestamp; per partition the first copies come in origin-offset order, and any later copy repeats an
 * origin already shown (at-least-once, D68); every Brook record must be there. Memory stays small for a
 * million records: one 64-bit digest and one int per source record, nothing per target record.
 */
final class ForwardVerifier {
  static final String ORIGIN_TOPIC = "brook.origin.topic";
  static final String ORIGIN_PARTITION = "brook.origin.partition";
  static final String ORIGIN_OFFSET = "brook.origin.offset";
  static final String ORIGIN_CLUSTER = "brook.origin.cluster";
  /** The producer's sequence number of a record (decimal), a header of the check's own. */
  static final String SEQ = "seq";

  /** One verdict: what was checked, whether it held, and the evidence. */
  record Check(String what, boolean ok, String detail) {}

  private final String sourceTopic;
  private final Source[] sources;
  private final Target[] targets;
  private String cluster;
  private long clusterMismatches;
  private String firstClusterMismatch;

  ForwardVerifier(String sourceTopic, int partitions) {
    this.sourceTopic = sourceTopic;
    this.sources = new Source[partitions];
    this.targets = new Target[partitions];
    for (int p = 0; p < partitions; p++) {
      sources[p] = new Source();
      targets[p] = new Target();
    }
  }

  /** A record of the source topic as Brook holds it (any order). */
  void source(ConsumerRecord<byte[], byte[]> r) {
    Source s = sources[r.partition()];
    s.put(r.offset(), digest(r), seqOf(r));
  }

  /** The next record of the target topic's partition {@code r.partition()}, in offset order. */
  void target(ConsumerRecord<byte[], byte[]> r) {
    Target t = targets[r.partition()];
    t.records++;
    String topic = header(r, ORIGIN_TOPIC);
    String partition = header(r, ORIGIN_PARTITION);
    String offset = header(r, ORIGIN_OFFSET);
    String c = header(r, ORIGIN_CLUSTER);
    if (topic == null || partition == null || offset == null || c == null) {
      t.fault("noOrigin", "Kafka " + r.partition() + "@" + r.offset() + " lacks a brook.origin.* header");
      return;
    }
    if (cluster == null) {
      cluster = c;
    } else if (!cluster.equals(c) || c.isEmpty()) {
      clusterMismatches++;
      if (firstClusterMismatch == null) {
        firstClusterMismatch = "Kafka " + r.partition() + "@" + r.offset() + ": '" + c + "' after '" + cluster + "'";
      }
    }
    int op;
    long oo;
    try {
      op = Integer.parseInt(partition);
      oo = Long.parseLong(offset);
    } catch (NumberFormatException e) {
      t.fault("noOrigin", "Kafka " + r.partition() + "@" + r.offset() + ": origin " + partition + "/" + offset
          + " is not decimal");
      return;
    }
    String at = "Kafka " + r.partition() + "@" + r.offset() + " (origin " + topic + "/" + op + "@" + oo + ")";
    if (!topic.equals(sourceTopic) || op < 0 || op >= sources.length || !sources[op].has(oo)) {
      t.fault("phantom", at + " names no record of Brook's " + sourceTopic);
      return;
    }
    if (op != r.partition()) {
      t.fault("partition", at + " is in partition " + r.partition() + ", its origin in " + op);
    }
    Source s = sources[op];
    if (s.digest(oo) != digest(r)) {
      t.fault("content", at + ": key, value, headers or timestamp differ from Brook's record");
    }
    if (s.forwarded(oo)) {
      t.duplicates++; // a repeat of an origin this partition already showed: at-least-once
      return;
    }
    s.markForwarded(oo);
    if (oo <= t.lastFirst) {
      t.fault("order", at + " comes first after origin offset " + t.lastFirst);
    }
    t.lastFirst = Math.max(t.lastFirst, oo);
  }

  /** The verdicts, once both topics were read; {@code produced}: the sequence numbers 0..n-1 acknowledged. */
  List<Check> verdicts(long produced) {
    List<Check> out = new ArrayList<>();
    BitSet seqs = new BitSet();
    long sourceRecords = 0;
    long sourceRepeats = 0;
    long missing = 0;
    String firstMissing = null;
    for (int p = 0; p < sources.length; p++) {
      Source s = sources[p];
      for (int i = 0; i < s.size; i++) {
        if (!s.present.get(i)) {
          continue;
        }
        sourceRecords++;
        int seq = s.seqs[i];
        if (seq >= 0) {
          if (seqs.get(seq)) {
            sourceRepeats++;
          }
          seqs.set(seq);
        }
        if (!s.forwardedBits.get(i)) {
          missing++;
          if (firstMissing == null) {
            firstMissing = "Brook " + sourceTopic + "/" + p + "@" + (s.first + i) + " (seq " + seq + ")";
          }
        }
      }
    }
    long lost = produced - seqs.get(0, (int) Math.min(produced, Integer.MAX_VALUE)).cardinality();
    out.add(new Check("every record the producer had acknowledged is on Brook (" + produced + " records; "
        + sourceRepeats + " written twice by the producer's retries)", lost == 0,
        lost == 0 ? "" : lost + " acknowledged records missing on Brook; first: seq " + seqs.nextClearBit(0)));
    long targetRecords = Arrays.stream(targets).mapToLong(t -> t.records).sum();
    long duplicates = Arrays.stream(targets).mapToLong(t -> t.duplicates).sum();
    out.add(new Check("every Brook record (" + sourceRecords + ") is in Kafka at least once (" + targetRecords
        + " Kafka records, " + duplicates + " repeats)", missing == 0 && sourceRecords > 0,
        missing == 0 ? (sourceRecords > 0 ? "" : "Brook's topic is empty") : missing + " missing; first: " + firstMissing));
    out.add(fault("each in the partition of its origin", "partition"));
    out.add(fault("per partition, first copies in brook.origin.offset order", "order"));
    out.add(fault("no Kafka record without a Brook origin; every repeat repeats an origin already shown",
        "phantom", "noOrigin"));
    out.add(fault("keys, values, headers and timestamps as Brook holds them", "content"));
    out.add(new Check("brook.origin.cluster the same non-empty id on every record (" + cluster + ")",
        clusterMismatches == 0 && cluster != null && !cluster.isEmpty(),
        clusterMismatches == 0 ? (cluster == null ? "no record carried one" : "") : clusterMismatches
            + " differ; first: " + firstClusterMismatch));
    return out;
  }

  private Check fault(String what, String... kinds) {
    long n = 0;
    String first = null;
    for (Target t : targets) {
      for (String k : kinds) {
        n += t.count(k);
        if (first == null) {
          first = t.first(k);
        }
      }
    }
    return new Check(what, n == 0, n == 0 ? "" : n + " records; first: " + first);
  }

  static String header(ConsumerRecord<byte[], byte[]> r, String key) {
    Header h = r.headers().lastHeader(key);
    return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  private static int seqOf(ConsumerRecord<byte[], byte[]> r) {
    String s = header(r, SEQ);
    try {
      return s == null ? -1 : Integer.parseInt(s);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Key (null apart from empty), value, the headers but the origin ones (in order), timestamp. */
  static long digest(ConsumerRecord<byte[], byte[]> r) {
    MessageDigest md;
    try {
      md = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    bytes(md, r.key());
    bytes(md, r.value());
    for (Header h : r.headers()) {
      if (!h.key().startsWith("brook.origin.")) {
        bytes(md, h.key().getBytes(StandardCharsets.UTF_8));
        bytes(md, h.value());
      }
    }
    md.update(ByteBuffer.allocate(8).putLong(r.timestamp()).array());
    return ByteBuffer.wrap(md.digest()).getLong();
  }

  private static void bytes(MessageDigest md, byte[] b) {
    md.update(ByteBuffer.allocate(4).putInt(b == null ? -1 : b.length).array());
    if (b != null) {
      md.update(b);
    }
  }

  /** One source partition: a digest and a sequence number per offset, from its first offset on. */
  private static final class Source {
    long first = -1;
    int size;
    long[] digests = new long[1024];
    int[] seqs = new int[1024];
    final BitSet present = new BitSet();
    final BitSet forwardedBits = new BitSet();

    void put(long offset, long digest, int seq) {
      if (first < 0) {
        first = offset;
      }
      if (offset < first) { // read out of order: shift (not the common case)
        int shift = (int) (first - offset);
        grow(size + shift);
        System.arraycopy(digests, 0, digests, shift, size);
        System.arraycopy(seqs, 0, seqs, shift, size);
        BitSet moved = new BitSet();
        present.stream().forEach(i -> moved.set(i + shift));
        present.clear();
        present.or(moved);
        first = offset;
        size += shift;
      }
      int i = (int) (offset - first);
      grow(i + 1);
      digests[i] = digest;
      seqs[i] = seq;
      present.set(i);
      size = Math.max(size, i + 1);
    }

    private void grow(int n) {
      if (n > digests.length) {
        int len = Math.max(n, digests.length * 2);
        digests = Arrays.copyOf(digests, len);
        seqs = Arrays.copyOf(seqs, len);
      }
    }

    boolean has(long offset) {
      long i = offset - first;
      return first >= 0 && i >= 0 && i < size && present.get((int) i);
    }

    long digest(long offset) {
      return digests[(int) (offset - first)];
    }

    boolean forwarded(long offset) {
      return forwardedBits.get((int) (offset - first));
    }

    void markForwarded(long offset) {
      forwardedBits.set((int) (offset - first));
    }
  }

  /** One target partition as read: counts, the last first-copy origin offset, faults by kind. */
  private static final class Target {
    long records;
    long duplicates;
    long lastFirst = -1;
    final java.util.Map<String, long[]> counts = new java.util.HashMap<>();
    final java.util.Map<String, String> firsts = new java.util.HashMap<>();

    void fault(String kind, String detail) {
      counts.computeIfAbsent(kind, k -> new long[1])[0]++;
      firsts.putIfAbsent(kind, detail);
    }

    long count(String kind) {
      long[] c = counts.get(kind);
      return c == null ? 0 : c[0];
    }

    String first(String kind) {
      return firsts.get(kind);
    }
  }
}
