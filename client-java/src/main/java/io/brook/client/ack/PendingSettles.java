package io.brook.client.ack;

import io.brook.protocol.v1.LeaseExtension;
import io.brook.protocol.v1.Nack;
import io.brook.protocol.v1.OffsetRange;
import io.brook.protocol.v1.ReceiveRequest;
import io.brook.protocol.v1.SettleRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Acks, nacks, rejects and lease extensions waiting to be sent. They leave together, as offset
 * ranges: consecutive offsets of one partition with the same kind (and delay or lease) become one
 * range, so a batch of a thousand acks is typically a few ranges in one message. Thread-safe.
 */
final class PendingSettles {
  /** The broker refuses ranges wider than this. */
  static final long MAX_RANGE = 1_000_000;

  enum Kind { ACK, NACK, REJECT, EXTEND }

  /** One kind of settle for one partition; {@code millis} is the nack delay or the new lease. */
  record Key(String topic, int partition, Kind kind, int millis) {}

  private Map<Key, TreeSet<Long>> offsets = new LinkedHashMap<>();
  private int count;

  /** Adds one settle; answers how many are pending now. */
  synchronized int add(String topic, int partition, long offset, Kind kind, int millis) {
    if (offsets.computeIfAbsent(new Key(topic, partition, kind, millis), k -> new TreeSet<>()).add(offset)) {
      count++;
    }
    return count;
  }

  synchronized int size() {
    return count;
  }

  /** Takes everything pending. */
  synchronized Batch drain() {
    Batch b = new Batch(offsets, count);
    offsets = new LinkedHashMap<>();
    count = 0;
    return b;
  }

  /** Puts back a batch that could not be sent. */
  synchronized void restore(Batch b) {
    b.offsets.forEach((k, set) -> set.forEach(o -> add(k.topic(), k.partition(), o, k.kind(), k.millis())));
  }

  /** Settles taken together. */
  static final class Batch {
    private final Map<Key, TreeSet<Long>> offsets;
    private final int count;

    Batch(Map<Key, TreeSet<Long>> offsets, int count) {
      this.offsets = offsets;
      this.count = count;
    }

    boolean isEmpty() {
      return count == 0;
    }

    /** Settles in the batch (offsets, not ranges). */
    int count() {
      return count;
    }

    ReceiveRequest toReceiveRequest() {
      ReceiveRequest.Builder b = ReceiveRequest.newBuilder();
      forEachRange((key, range) -> {
        switch (key.kind()) {
          case ACK -> b.addAcks(range);
          case NACK, REJECT -> b.addNacks(Nack.newBuilder().setRange(range).setDelayMs(key.millis())
              .setReject(key.kind() == Kind.REJECT));
          case EXTEND -> b.addExtensions(LeaseExtension.newBuilder().setRange(range).setLeaseMs(key.millis()));
        }
      });
      return b.build();
    }

    SettleRequest toSettleRequest(String group, String memberId) {
      ReceiveRequest r = toReceiveRequest();
      return SettleRequest.newBuilder().setGroup(group).setMemberId(memberId).addAllAcks(r.getAcksList())
          .addAllNacks(r.getNacksList()).addAllExtensions(r.getExtensionsList()).build();
    }

    /** Ranges of consecutive offsets per key, in the order the keys first appeared. */
    List<OffsetRange> ranges() {
      List<OffsetRange> out = new ArrayList<>();
      forEachRange((key, range) -> out.add(range));
      return out;
    }

    private void forEachRange(java.util.function.BiConsumer<Key, OffsetRange> sink) {
      offsets.forEach((key, set) -> {
        long first = -1;
        long last = -1;
        for (long o : set) {
          if (first >= 0 && o == last + 1 && last - first + 1 < MAX_RANGE) {
            last = o;
            continue;
          }
          if (first >= 0) {
            sink.accept(key, range(key, first, last));
          }
          first = o;
          last = o;
        }
        if (first >= 0) {
          sink.accept(key, range(key, first, last));
        }
      });
    }

    private static OffsetRange range(Key key, long first, long last) {
      OffsetRange.Builder r = OffsetRange.newBuilder().setTopic(key.topic()).setPartition(key.partition())
          .setFirstOffset(first);
      if (last != first) {
        r.setLastOffset(last);
      }
      return r.build();
    }
  }
}
