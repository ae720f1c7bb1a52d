package io.brook.broker.http;

import com.google.gson.JsonArray;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import io.brook.broker.core.ForwardRouteStatus;
import io.brook.broker.disk.DiskStats;
import io.brook.broker.groups.Group;
import io.brook.broker.groups.GroupMode;
import io.brook.broker.groups.GroupView;
import io.brook.broker.http.relay.RelayJson;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.Topic;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The /stats document: the broker, its disk, each topic's partitions, each group's progress and each
 * forward route's (gson).
 */
final class StatsJson {
  private StatsJson() {}

  static String render(StatsSource s, long nowMs) {
    JsonObject o = new JsonObject();
    o.addProperty("version", s.version());
    o.addProperty("uptime_ms", Math.max(0, nowMs - s.startedAtMs()));
    JsonObject connections = new JsonObject();
    s.connections().forEach((listener, open) -> connections.addProperty(listener, open.getAsInt()));
    o.add("connections", connections);
    o.add("disk", disk(s.disk().stats()));
    JsonArray topics = new JsonArray();
    List<Topic> sorted = s.topics().list().stream().sorted(Comparator.comparing(Topic::name)).toList();
    for (Topic t : sorted) {
      topics.add(topic(t));
    }
    o.add("topics", topics);
    JsonArray groups = new JsonArray();
    List<Group> byName = s.groups().list().stream().sorted(Comparator.comparing(Group::name)).toList();
    for (Group g : byName) {
      groups.add(group(g.describe()));
    }
    o.add("groups", groups);
    o.add("forward", forward(s.forward().get()));
    return RelayJson.GSON.toJson(o);
  }

  private static JsonObject disk(DiskStats d) {
    JsonObject o = new JsonObject();
    o.addProperty("state", d.state().name());
    o.addProperty("free_bytes", d.freeBytes());
    o.addProperty("produce_threshold_bytes", d.produceThresholdBytes());
    o.addProperty("headroom_bytes", d.headroomBytes());
    o.addProperty("active_writers", d.activeWriters());
    o.addProperty("transitions", d.transitions());
    JsonObject refused = new JsonObject();
    for (Map.Entry<String, Long> e : d.refused().entrySet()) {
      refused.addProperty(e.getKey(), e.getValue());
    }
    o.add("refused", refused);
    return o;
  }

  private static JsonObject topic(Topic t) {
    JsonObject o = new JsonObject();
    o.addProperty("name", t.name());
    JsonArray partitions = new JsonArray();
    for (Partition p : t.partitions()) {
      JsonObject po = new JsonObject();
      po.addProperty("partition", p.index());
      po.addProperty("start_offset", p.startOffset());
      po.addProperty("end_offset", p.endOffset());
      po.addProperty("size_bytes", p.sizeBytes());
      partitions.add(po);
    }
    o.add("partitions", partitions);
    return o;
  }

  private static JsonObject group(GroupView g) {
    JsonObject o = new JsonObject();
    o.addProperty("name", g.name());
    o.addProperty("mode", g.mode().name());
    o.addProperty("type", g.type());
    o.addProperty("state", g.state().name());
    o.addProperty("members", g.members().size());
    JsonArray partitions = new JsonArray();
    for (GroupView.PartitionView p : g.partitions()) {
      JsonObject po = new JsonObject();
      po.addProperty("topic", p.tp().topic());
      po.addProperty("partition", p.tp().partition());
      po.addProperty("log_start_offset", p.logStart());
      po.addProperty("end_offset", p.end());
      if (g.mode() == GroupMode.OFFSET) {
        if (p.committed() < 0) { // nothing committed: no lag to speak of
          po.add("committed_offset", JsonNull.INSTANCE);
          po.add("lag", JsonNull.INSTANCE);
        } else {
          po.addProperty("committed_offset", p.committed());
          po.addProperty("lag", Math.max(0, p.end() - Math.max(p.committed(), p.logStart())));
        }
      } else {
        po.addProperty("unsettled", p.unsettled());
        po.addProperty("redeliveries", p.redeliveries());
        po.addProperty("dead_lettered", p.deadLettered());
      }
      partitions.add(po);
    }
    o.add("partitions", partitions);
    return o;
  }

  /** The forward routes (D71), in config order, with their cursors. */
  private static JsonArray forward(List<ForwardRouteStatus> routes) {
    JsonArray out = new JsonArray();
    for (ForwardRouteStatus r : routes) {
      JsonObject o = new JsonObject();
      o.addProperty("route", r.name());
      o.addProperty("source", r.source());
      o.addProperty("target", r.target());
      o.addProperty("bootstrap_servers", r.bootstrap());
      o.addProperty("state", r.state().name());
      o.addProperty("forwarded_records", r.forwardedRecords());
      o.addProperty("forwarded_bytes", r.forwardedBytes());
      o.addProperty("lag_records", r.lagRecords());
      o.addProperty("lag_ms", Math.round(r.lagSeconds() * 1000));
      o.addProperty("dropped_records", r.droppedRecords());
      JsonObject errors = new JsonObject();
      r.errors().entrySet().stream().sorted(Map.Entry.comparingByKey())
          .forEach(e -> errors.addProperty(e.getKey(), e.getValue()));
      o.add("errors", errors);
      o.add("last_error", r.lastError() == null ? JsonNull.INSTANCE : new JsonPrimitive(r.lastError()));
      o.addProperty("last_error_at_ms", r.lastErrorAtMs());
      JsonArray partitions = new JsonArray();
      for (ForwardRouteStatus.Cursor c : r.partitions()) {
        JsonObject co = new JsonObject();
        co.addProperty("topic", c.topic());
        co.addProperty("partition", c.partition());
        co.addProperty("position", c.position());
        co.addProperty("end_offset", c.endOffset());
        partitions.add(co);
      }
      o.add("partitions", partitions);
      out.add(o);
    }
    return out;
  }
}
