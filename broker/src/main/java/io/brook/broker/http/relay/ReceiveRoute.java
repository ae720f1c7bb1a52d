package io.brook.broker.http.relay;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.brook.broker.core.AckPollService;
import io.brook.broker.core.PollReceive;
import io.brook.broker.delivery.Delivery;
import io.brook.broker.records.LogRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * POST /groups/{group}/receive: an HTTP consumer of an ack-mode group takes leased records (D70),
 * through the core's {@link AckPollService}. The wait holds no thread and no answer memory; memory for
 * the answer is reserved once records came. A client that goes away before its answer is written
 * abandons the receive: records already leased to it go back to the group at once.
 */
final class ReceiveRoute {
  /** Payload bytes one answer carries at most (the first record comes whatever its size), as a fetch. */
  static final int MAX_BYTES = FetchRoute.MAX_BYTES;
  private static final Set<String> FIELDS = Set.of("consumer", "topics", "maxRecords", "maxBytes", "waitMs",
      "encoding");

  private final AckPollService polls;

  ReceiveRoute(AckPollService polls) {
    this.polls = polls;
  }

  CompletionStage<RelayReply> receive(RelayRequest request) {
    String group = request.pathParam("group");
    request.caller().requireConsumeGroup(group);
    JsonObject body = request.jsonObject();
    RelayJson.onlyFields(body, "", FIELDS);
    String consumer = RelayJson.string(body, "consumer", "");
    List<String> topics = topics(body);
    for (String t : topics) {
      request.caller().requireConsume(t);
    }
    Long max = RelayJson.optLong(body, "maxRecords", "", 1, AckPollService.MAX_RECORDS);
    Long bytes = RelayJson.optLong(body, "maxBytes", "", 1, MAX_BYTES);
    Long wait = RelayJson.optLong(body, "waitMs", "", 0, Long.MAX_VALUE);
    long waitMs = wait == null ? 0 : Math.min(wait, FetchRoute.MAX_WAIT_MS); // under the server's idle timeout
    String enc = RelayJson.optString(body, "encoding", "");
    Encoding encoding = enc == null ? Encoding.UTF8 : Encoding.of(enc, "encoding");
    AckPollService.Pending pending = polls.receive(new PollReceive(group, consumer, topics,
        max == null ? 0 : max.intValue(), bytes == null ? 0 : bytes.intValue(), waitMs, "http",
        request.caller().principal()));
    request.onGone(pending::abandon); // run at once if the client is already gone
    return pending.result().thenCompose(r -> {
      if (r.records().isEmpty()) {
        return CompletableFuture.completedFuture(RelayReply.ok(render(r, encoding)));
      }
      // Memory for the answer, now that its size is known; the leases run meanwhile.
      return request.reserve(size(r.records())).thenApply(v -> RelayReply.ok(render(r, encoding)));
    });
  }

  private static List<String> topics(JsonObject body) {
    JsonArray a = RelayJson.optArray(body, "topics", "");
    if (a == null || a.isEmpty()) {
      throw RelayErrors.invalid("topics is required: a non-empty array of topic names");
    }
    List<String> out = new ArrayList<>(a.size());
    for (int i = 0; i < a.size(); i++) {
      JsonElement e = a.get(i);
      if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isString()) {
        throw RelayErrors.invalid("topics[" + i + "] must be a string, got " + RelayJson.kind(e));
      }
      out.add(e.getAsString());
    }
    return out;
  }

  /** About the answer's size: as a fetch's records measure, plus the lease fields. */
  static long size(List<Delivery> ds) {
    long size = 256;
    for (Delivery d : ds) {
      size += FetchRoute.SIZE.recordSize(d.record()) + 96 + d.topic().length();
    }
    return size;
  }

  /**
   * {@code {"consumer","ackTimeoutMs","records":[{"topic","partition","offset","timestamp","key","value",
   * "headers","deliveryAttempt","leaseDeadlineMs"}]}}, records as a fetch writes them.
   */
  static JsonObject render(AckPollService.Received r, Encoding encoding) {
    JsonObject body = new JsonObject();
    body.addProperty("consumer", r.consumer());
    body.addProperty("ackTimeoutMs", r.ackTimeoutMs());
    JsonArray records = new JsonArray();
    for (Delivery d : r.records()) {
      LogRecord lr = d.record();
      JsonObject o = new JsonObject();
      o.addProperty("topic", d.topic());
      o.addProperty("partition", d.partition());
      FetchRoute.record(lr, encoding).entrySet().forEach(e -> o.add(e.getKey(), e.getValue()));
      o.addProperty("deliveryAttempt", d.attempt());
      o.addProperty("leaseDeadlineMs", d.leaseDeadlineMs());
      records.add(o);
    }
    body.add("records", records);
    return body;
  }
}
