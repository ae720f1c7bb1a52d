package io.brook.broker.http.relay;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.brook.broker.api.Errors;
import io.brook.broker.core.BatchOutcome;
import io.brook.broker.core.BatchToAppend;
import io.brook.broker.core.FetchService;
import io.brook.broker.core.ProduceCall;
import io.brook.broker.core.ProduceService;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.metrics.ApiObserver;
import io.brook.broker.records.IncomingBatch;
import io.brook.broker.records.LogRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * The relay's produce route (D69), on the core's ProduceService like gRPC's Produce: the same
 * validator, limits, disk guard and durability choice. Records that name a partition go in one batch
 * per partition, the others in one batch the broker partitions by key; each batch is checked whole,
 * so a bad record refuses its batch. The answer has one entry per record, in request order.
 */
public final class RecordRoutes {
  static final String RECORDS = "/topics/{topic}/records";
  static final String PARTITION_RECORDS = "/topics/{topic}/partitions/{partition}/records";
  static final String JSON = "application/json";
  static final String BINARY = "application/octet-stream";
  /** Query parameters of the binary form only. */
  static final List<String> BINARY_PARAMS = List.of("key", "keyEncoding", "partition", "timestamp", "header");

  private final ProduceService produce;
  private final FetchRoute fetch;
  private final ApiObserver observer;

  /** @param observer told of batches refused and of each produce's duration, as for gRPC's produce */
  public RecordRoutes(ProduceService produce, FetchService fetch, ApiObserver observer) {
    this.produce = produce;
    this.fetch = new FetchRoute(fetch);
    this.observer = observer;
  }

  public void register(RelayRouter router) {
    List<String> produceParams = new ArrayList<>(List.of("durability"));
    produceParams.addAll(BINARY_PARAMS);
    router.route("POST", RECORDS, produceParams, this::produce);
    router.route("GET", PARTITION_RECORDS, FetchRoute.PARAMS, fetch::fetch);
  }

  CompletionStage<RelayReply> produce(RelayRequest request) {
    long arrived = System.nanoTime();
    String topic = request.pathParam("topic");
    request.caller().requireProduce(topic);
    boolean synced = synced(request.query("durability"));
    List<ProduceBody.Item> items;
    switch (request.mediaType()) {
      case BINARY -> items = List.of(ProduceBody.fromBinary(request));
      case JSON -> {
        for (String p : BINARY_PARAMS) {
          if (request.query(p) != null) {
            throw RelayErrors.invalid("query parameter " + p + " is for the binary form (Content-Type: " + BINARY
                + "); in JSON it is a field of each record");
          }
        }
        items = ProduceBody.fromJson(request.jsonObject());
      }
      default -> throw RelayException.unsupportedMediaType("Content-Type must be " + JSON + " or " + BINARY
          + (request.mediaType().isEmpty() ? ", got none" : ", got " + request.mediaType()));
    }
    // One batch per named partition, one for the records the broker partitions; the request index of each record.
    Map<Integer, List<Integer>> byPartition = new LinkedHashMap<>();
    for (int i = 0; i < items.size(); i++) {
      Integer p = items.get(i).partition();
      byPartition.computeIfAbsent(p == null ? -1 : p, k -> new ArrayList<>()).add(i);
    }
    List<BatchToAppend> batches = new ArrayList<>();
    List<List<Integer>> indexes = new ArrayList<>();
    for (Map.Entry<Integer, List<Integer>> e : byPartition.entrySet()) {
      List<LogRecord> records = new ArrayList<>(e.getValue().size());
      long size = 0;
      for (int i : e.getValue()) {
        records.add(items.get(i).record());
        size += items.get(i).record().payloadSize();
      }
      batches.add(BatchToAppend.of(topic, e.getKey() < 0 ? null : e.getKey(), null,
          () -> new IncomingBatch.Listed(records), size));
      indexes.add(e.getValue());
    }
    ProduceCall call = new ProduceCall(request.caller().principal(), batches, synced, null);
    return produce.produce(call, e -> observer.refused(Errors.reason(e), Errors.status(e).name()))
        .thenApply(outcomes -> {
          observer.produceAnswered(System.nanoTime() - arrived);
          return answer(items.size(), outcomes, indexes);
        });
  }

  private static boolean synced(String durability) {
    if (durability == null) {
      return false;
    }
    return switch (durability.toLowerCase(Locale.ROOT)) {
      case "written" -> false;
      case "synced" -> true;
      default -> throw RelayErrors.invalid("durability must be written or synced, got '" + durability + "'");
    };
  }

  /**
   * {@code {"offsets":[{"partition":p,"offset":o}, ...]}}, one per record in request order; a record
   * whose batch was refused has {@code "error"} instead of an offset. When every record was refused,
   * the first refusal answers the whole request (its status and code).
   */
  static RelayReply answer(int count, List<BatchOutcome> outcomes, List<List<Integer>> indexes) {
    JsonObject[] entries = new JsonObject[count];
    BatchOutcome firstRefused = null;
    boolean anyWritten = false;
    for (BatchOutcome o : outcomes) {
      List<Integer> batch = indexes.get(o.batchIndex());
      List<Integer> which = o.recordIndexes().isEmpty() ? range(batch.size()) : o.recordIndexes();
      for (int j = 0; j < which.size(); j++) {
        JsonObject entry = new JsonObject();
        if (o.partition() >= 0) {
          entry.addProperty("partition", o.partition());
        }
        if (o.error() == null) {
          entry.addProperty("offset", o.baseOffset() + j);
          anyWritten = true;
        } else {
          entry.add("error", RelayErrors.of(o.error(), o.errorMessage()).toJson().get("error"));
          firstRefused = firstRefused == null ? o : firstRefused;
        }
        entries[batch.get(which.get(j))] = entry;
      }
    }
    if (!anyWritten && firstRefused != null) {
      throw new BrokerException(firstRefused.error(), firstRefused.errorMessage());
    }
    JsonArray offsets = new JsonArray();
    for (JsonObject e : entries) {
      offsets.add(e);
    }
    JsonObject body = new JsonObject();
    body.add("offsets", offsets);
    return RelayReply.ok(body);
  }

  private static List<Integer> range(int n) {
    List<Integer> r = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      r.add(i);
    }
    return r;
  }
}
