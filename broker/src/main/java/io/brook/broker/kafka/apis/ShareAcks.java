package io.brook.broker.kafka.apis;

import io.brook.broker.groups.Settlement;
import io.brook.broker.groups.Settlement.Range;
import java.util.List;

/**
 * A partition's acknowledgement batches (ShareFetch or ShareAcknowledge) as Brook's settlement: gap
 * and accept settle (a gap is an offset with no record, which Brook's logs never have, so nothing is
 * lost by settling it), release hands back at once, reject dead-letters, renew extends the lock by the
 * group's lock duration (an extension of 0 ms, which the group reads so). One type applies to the whole
 * batch, or there is one per offset.
 */
final class ShareAcks {
  static final byte GAP = 0;
  static final byte ACCEPT = 1;
  static final byte RELEASE = 2;
  static final byte REJECT = 3;
  static final byte RENEW = 4;

  private ShareAcks() {}

  /** One acknowledgement batch, whichever request carried it. */
  record Batch(long first, long last, List<Byte> types) {}

  /**
   * Adds a partition's batches to {@code into}; returns why they are malformed (nothing added then),
   * or null.
   */
  static String add(String topic, int partition, List<Batch> batches, boolean renewAllowed, Settlement into) {
    for (Batch b : batches) {
      if (b.first() < 0 || b.last() < b.first()) {
        return "acknowledgement batch " + b.first() + ".." + b.last() + " is not a range of offsets";
      }
      long count = b.last() - b.first() + 1;
      if (b.types().isEmpty() || (b.types().size() != 1 && b.types().size() != count)) {
        return "acknowledgement batch " + b.first() + ".." + b.last() + " has " + b.types().size()
            + " types: one, or one per offset (" + count + ")";
      }
      for (byte t : b.types()) {
        if (t < GAP || t > RENEW || (t == RENEW && !renewAllowed)) {
          return "acknowledge type " + t + " is not known here (0 gap, 1 accept, 2 release, 3 reject"
              + (renewAllowed ? ", 4 renew)" : "; 4 renew needs version 2 and IsRenewAck)");
        }
      }
    }
    for (Batch b : batches) {
      if (b.types().size() == 1) {
        addRun(new Range(topic, partition, b.first(), b.last()), b.types().get(0), into);
        continue;
      }
      long runStart = b.first();
      for (long o = b.first(); o <= b.last(); o++) {
        byte t = b.types().get((int) (o - b.first()));
        boolean endsRun = o == b.last() || b.types().get((int) (o + 1 - b.first())) != t;
        if (endsRun) {
          addRun(new Range(topic, partition, runStart, o), t, into);
          runStart = o + 1;
        }
      }
    }
    return null;
  }

  private static void addRun(Range r, byte type, Settlement into) {
    switch (type) {
      case GAP, ACCEPT -> into.acks().add(r);
      case RELEASE -> into.nacks().add(new Settlement.Nack(r, 0, false));
      case REJECT -> into.nacks().add(new Settlement.Nack(r, 0, true));
      default -> into.extensions().add(new Settlement.Extension(r, 0));
    }
  }

  /** An empty settlement to add to. */
  static Settlement empty() {
    return new Settlement(new java.util.ArrayList<>(), new java.util.ArrayList<>(), new java.util.ArrayList<>());
  }
}
