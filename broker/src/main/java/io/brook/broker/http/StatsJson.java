package io.brook.broker.http;

import io.brook.broker.core.ForwardRouteStatus;
import io.brook.broker.disk.DiskStats;
import io.brook.broker.groups.Group;
import io.brook.broker.groups.GroupMode;
import io.brook.broker.groups.GroupView;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.Topic;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The /stats document: the broker, its disk, each topic's partitions, each group's progress and each
 * forward route's.
 */
final class StatsJson {
  private StatsJson() {}

  static String render(StatsSource s, long nowMs) {
    JsonWriter w = new JsonWriter().beginObject();
    w.name("version").value(s.version());
    w.name("uptime_ms").value(Math.max(0, nowMs - s.startedAtMs()));
    w.name("connections").beginObject();
    s.connections().forEach((listener, open) -> w.name(listener).value(open.getAsInt()));
    w.endObject();
    disk(w, s.disk().stats());
    w.name("topics").beginArray();
    List<Topic> topics = s.topics().list().stream().sorted(Comparator.comparing(Topic::name)).toList();
    for (Topic t : topics) {
      topic(w, t);
    }
    w.endArray();
    w.name("groups").beginArray();
    List<Group> groups = s.groups().list().stream().sorted(Comparator.comparing(Group::name)).toList();
    for (Group g : groups) {
      group(w, g.describe());
    }
    w.endArray();
    forward(w, s.forward().get());
    return w.endObject().toString();
  }

  private static void disk(JsonWriter w, DiskStats d) {
    w.name("disk").beginObject()
        .name("state").value(d.state().name())
        .name("free_bytes").value(d.freeBytes())
        .name("produce_threshold_bytes").value(d.produceThresholdBytes())
        .name("headroom_bytes").value(d.headroomBytes())
        .name("active_writers").value(d.activeWriters())
        .name("transitions").value(d.transitions());
    w.name("refused").beginObject();
    for (Map.Entry<String, Long> e : d.refused().entrySet()) {
      w.name(e.getKey()).value(e.getValue());
    }
    w.endObject().endObject();
  }

  private static void topic(JsonWriter w, Topic t) {
    w.beginObject().name("name").value(t.name()).name("partitions").beginArray();
    for (Partition p : t.partitions()) {
      w.beginObject()
          .name("partition").value(p.index())
          .name("start_offset").value(p.startOffset())
          .name("end_offset").value(p.endOffset())
          .name("size_bytes").value(p.sizeBytes())
          .endObject();
    }
    w.endArray().endObject();
  }

  private static void group(JsonWriter w, GroupView g) {
    w.beginObject()
        .name("name").value(g.name())
        .name("mode").value(g.mode().name())
        .name("type").value(g.type())
        .name("state").value(g.state().name())
        .name("members").value(g.members().size());
    w.name("partitions").beginArray();
    for (GroupView.PartitionView p : g.partitions()) {
      w.beginObject()
          .name("topic").value(p.tp().topic())
          .name("partition").value(p.tp().partition())
          .name("log_start_offset").value(p.logStart())
          .name("end_offset").value(p.end());
      if (g.mode() == GroupMode.OFFSET) {
        w.name("committed_offset");
        if (p.committed() < 0) {
          w.nullValue().name("lag").nullValue(); // nothing committed: no lag to speak of
        } else {
          w.value(p.committed()).name("lag").value(Math.max(0, p.end() - Math.max(p.committed(), p.logStart())));
        }
      } else {
        w.name("unsettled").value(p.unsettled())
            .name("redeliveries").value(p.redeliveries())
            .name("dead_lettered").value(p.deadLettered());
      }
      w.endObject();
    }
    w.endArray().endObject();
  }

  /** The forward routes (D71), in config order, with their cursors. */
  private static void forward(JsonWriter w, List<ForwardRouteStatus> routes) {
    w.name("forward").beginArray();
    for (ForwardRouteStatus r : routes) {
      w.beginObject()
          .name("route").value(r.name())
          .name("source").value(r.source())
          .name("target").value(r.target())
          .name("bootstrap_servers").value(r.bootstrap())
          .name("state").value(r.state().name())
          .name("forwarded_records").value(r.forwardedRecords())
          .name("forwarded_bytes").value(r.forwardedBytes())
          .name("lag_records").value(r.lagRecords())
          .name("lag_ms").value(Math.round(r.lagSeconds() * 1000))
          .name("dropped_records").value(r.droppedRecords());
      w.name("errors").beginObject();
      r.errors().entrySet().stream().sorted(Map.Entry.comparingByKey())
          .forEach(e -> w.name(e.getKey()).value(e.getValue()));
      w.endObject().name("last_error");
      if (r.lastError() == null) {
        w.nullValue();
      } else {
        w.value(r.lastError());
      }
      w.name("last_error_at_ms").value(r.lastErrorAtMs());
      w.name("partitions").beginArray();
      for (ForwardRouteStatus.Cursor c : r.partitions()) {
        w.beginObject()
            .name("topic").value(c.topic())
            .name("partition").value(c.partition())
            .name("position").value(c.position())
            .name("end_offset").value(c.endOffset())
            .endObject();
      }
      w.endArray().endObject();
    }
    w.endArray();
  }
}
