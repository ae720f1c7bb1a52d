package io.brook.broker.http;

import com.google.gson.JsonArray;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
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

/** The /stats document: the broker, its disk, each topic's partitions and each group's progress (gson). */
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
}
