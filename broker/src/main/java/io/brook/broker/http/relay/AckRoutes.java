package io.brook.broker.http.relay;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.brook.broker.core.AckPollService;
import io.brook.broker.groups.Settlement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The relay's ack-mode routes (D70): receive, ack, nack (with a delay), reject (dead letter) and leave
 * for an HTTP consumer of an ack group, on the core's {@link AckPollService}. gRPC, Kafka share and
 * HTTP consumers of one group take records from one pool.
 */
public final class AckRoutes {
  static final String RECEIVE = "/groups/{group}/receive";
  static final String ACK = "/groups/{group}/ack";
  static final String NACK = "/groups/{group}/nack";
  static final String REJECT = "/groups/{group}/reject";
  static final String LEAVE = "/groups/{group}/leave";
  /** Payload bytes one receive's answer carries at most (the first record comes whatever its size). */
  public static final int MAX_BYTES = ReceiveRoute.MAX_BYTES;
  /** Entries one settle names at most (each may be a range). */
  static final int MAX_ENTRIES = 10_000;
  private static final Set<String> RECORD_FIELDS = Set.of("topic", "partition", "offset", "lastOffset");

  private enum Kind { ACK, NACK, REJECT }

  private final AckPollService polls;
  private final ReceiveRoute receive;

  public AckRoutes(AckPollService polls) {
    this.polls = polls;
    this.receive = new ReceiveRoute(polls);
  }

  public void register(RelayRouter router) {
    router.route("POST", RECEIVE, List.of(), receive::receive);
    router.route("POST", ACK, List.of(), r -> settle(r, Kind.ACK));
    router.route("POST", NACK, List.of(), r -> settle(r, Kind.NACK));
    router.route("POST", REJECT, List.of(), r -> settle(r, Kind.REJECT));
    router.route("POST", LEAVE, List.of(), this::leave);
  }

  private CompletionStage<RelayReply> settle(RelayRequest request, Kind kind) {
    String group = request.pathParam("group");
    request.caller().requireConsumeGroup(group);
    JsonObject body = request.jsonObject();
    RelayJson.onlyFields(body, "", kind == Kind.NACK ? Set.of("consumer", "records", "delayMs")
        : Set.of("consumer", "records"));
    String consumer = RelayJson.string(body, "consumer", "");
    long delayMs = kind == Kind.NACK ? orZero(RelayJson.optLong(body, "delayMs", "", 0, 86_400_000L)) : 0;
    List<Settlement.Range> ranges = ranges(body);
    for (Settlement.Range r : ranges) {
      request.caller().requireConsume(r.topic());
    }
    Settlement s = switch (kind) {
      case ACK -> new Settlement(ranges, List.of(), List.of());
      case NACK, REJECT -> new Settlement(List.of(), ranges.stream()
          .map(r -> new Settlement.Nack(r, delayMs, kind == Kind.REJECT)).toList(), List.of());
    };
    List<Settlement.Failure> failures = polls.settle(group, consumer, s, request.caller().principal());
    return CompletableFuture.completedFuture(answer(ranges, failures));
  }

  private CompletionStage<RelayReply> leave(RelayRequest request) {
    String group = request.pathParam("group");
    request.caller().requireConsumeGroup(group);
    JsonObject body = request.jsonObject();
    RelayJson.onlyFields(body, "", Set.of("consumer"));
    polls.leave(group, RelayJson.string(body, "consumer", ""), request.caller().principal());
    return CompletableFuture.completedFuture(RelayReply.noContent());
  }

  private static long orZero(Long v) {
    return v == null ? 0 : v;
  }

  /** {@code records}: entries {"topic","partition","offset"} and, for a range, "lastOffset" (inclusive). */
  static List<Settlement.Range> ranges(JsonObject body) {
    JsonArray a = RelayJson.optArray(body, "records", "");
    if (a == null || a.isEmpty()) {
      throw RelayErrors.invalid("records is required: a non-empty array of {\"topic\",\"partition\",\"offset\"}");
    }
    if (a.size() > MAX_ENTRIES) {
      throw RelayErrors.invalid("records has " + a.size() + " entries, at most " + MAX_ENTRIES
          + " (an entry may name a range with lastOffset)");
    }
    List<Settlement.Range> out = new ArrayList<>(a.size());
    for (int i = 0; i < a.size(); i++) {
      String where = "records[" + i + "]";
      JsonObject o = RelayJson.object(a.get(i), where);
      RelayJson.onlyFields(o, where, RECORD_FIELDS);
      String topic = RelayJson.string(o, "topic", where);
      Long partition = RelayJson.optLong(o, "partition", where, 0, Integer.MAX_VALUE);
      Long offset = RelayJson.optLong(o, "offset", where, 0, Long.MAX_VALUE);
      if (partition == null || offset == null) {
        throw RelayErrors.invalid(where + " names its partition and offset");
      }
      Long last = RelayJson.optLong(o, "lastOffset", where, offset, Long.MAX_VALUE);
      out.add(new Settlement.Range(topic, partition.intValue(), offset, last == null ? offset : last));
    }
    return out;
  }

  /**
   * {@code {"failures":[...]}}: the ranges that did not apply, each with Brook's error; the others
   * did. When nothing applied, the first failure answers the request (its status and code), with the
   * failures beside it.
   */
  static RelayReply answer(List<Settlement.Range> asked, List<Settlement.Failure> failures) {
    JsonArray fs = new JsonArray();
    long failed = 0;
    for (Settlement.Failure f : failures) {
      JsonObject o = new JsonObject();
      o.addProperty("topic", f.topic());
      o.addProperty("partition", f.partition());
      o.addProperty("offset", f.first());
      o.addProperty("lastOffset", f.last());
      o.add("error", RelayErrors.of(f.error(), f.message()).toJson().get("error"));
      fs.add(o);
      failed += f.last() - f.first() + 1;
    }
    long named = asked.stream().mapToLong(r -> r.last() - r.first() + 1).sum();
    if (!failures.isEmpty() && failed >= named) {
      Settlement.Failure first = failures.get(0);
      RelayError e = RelayErrors.of(first.error(), first.message());
      JsonObject body = e.toJson();
      body.add("failures", fs);
      return RelayReply.of(e.httpStatus(), body);
    }
    JsonObject body = new JsonObject();
    body.add("failures", fs);
    return RelayReply.ok(body);
  }
}
