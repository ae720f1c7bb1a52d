package io.brook.broker.groups;

import io.brook.broker.delivery.AckPartition;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.Topic;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An ack group's windows as Kafka's share-group offset APIs see them (D67): a window's start is the
 * share-partition start offset; alter moves starts and delete forgets a topic's windows, both only
 * while no member is connected, as Kafka allows them only on an empty share group.
 */
public final class ShareOffsets {
  private ShareOffsets() {}

  /**
   * A share partition's start offset and lag.
   *
   * @param lag the records from the start to the log end not yet settled (Kafka's "log end offset
   *     minus start offset minus the records acknowledged beyond the start")
   */
  public record Offset(TopicPartition tp, long start, long lag) {}

  /** The group's windows, by partition. */
  public static List<Offset> of(AckGroup g) {
    synchronized (g) {
      List<Offset> out = new ArrayList<>();
      for (AckPartition ap : g.windows().all()) {
        long end = ap.partition().endOffset();
        out.add(new Offset(AckWindows.tp(ap.partition()), ap.start(), lag(ap.start(), ap.next(), ap.unsettled(), end)));
      }
      out.sort((a, b) -> a.tp().compareTo(b.tp()));
      return out;
    }
  }

  /** Records in [start, end) not settled: the window's unsettled ones and those never delivered. */
  static long lag(long start, long next, long unsettled, long end) {
    return unsettled + Math.max(0, end - Math.max(start, next));
  }

  /**
   * Moves the starts of partitions (creating their windows), answering the partitions refused and
   * why: an unknown topic or partition, an offset outside the log.
   *
   * @throws BrokerException GROUP_NOT_EMPTY while a member is connected (nothing moves)
   */
  public static Map<TopicPartition, BrokerException> alter(AckGroup g, Map<TopicPartition, Long> starts) {
    synchronized (g) {
      g.requireNoStreams("alter the offsets of");
      Map<Partition, Long> set = new LinkedHashMap<>();
      Map<TopicPartition, BrokerException> refused = new LinkedHashMap<>();
      starts.forEach((tp, offset) -> {
        try {
          Partition p = g.ctx.topics().get(tp.topic()).partition(tp.partition());
          p.checkInRange(offset);
          set.put(p, offset);
        } catch (BrokerException e) {
          refused.put(tp, e);
        }
      });
      if (!set.isEmpty()) {
        g.restartAt(set);
      }
      return refused;
    }
  }

  /**
   * Forgets the group's windows on each topic: a member subscribing again starts where
   * auto.offset.reset says. Answers per topic null (forgotten) or why not: UNKNOWN_TOPIC, or
   * that the group had no window on it.
   *
   * @throws BrokerException GROUP_NOT_EMPTY while a member is connected (nothing is forgotten)
   */
  public static Map<String, Refusal> delete(AckGroup g, List<String> topics) {
    synchronized (g) {
      g.requireNoStreams("delete the offsets of");
      Map<String, Refusal> out = new LinkedHashMap<>();
      for (String topic : topics) {
        Topic t;
        try {
          t = g.ctx.topics().get(topic);
        } catch (BrokerException e) {
          out.put(topic, new Refusal(e, false));
          continue;
        }
        if (g.windows().all().stream().noneMatch(ap -> ap.partition().topic() == t)) {
          out.put(topic, new Refusal(null, true));
          continue;
        }
        g.dropWindows(t);
        out.put(topic, null);
      }
      return out;
    }
  }

  /** Why a topic's offsets were not deleted: the topic's error, or none were there. */
  public record Refusal(BrokerException error, boolean noOffsets) {}
}
