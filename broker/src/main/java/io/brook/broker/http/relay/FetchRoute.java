package io.brook.broker.http.relay;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.brook.broker.core.AnswerSize;
import io.brook.broker.core.BatchForm;
import io.brook.broker.core.FetchPosition;
import io.brook.broker.core.FetchQuery;
import io.brook.broker.core.FetchService;
import io.brook.broker.core.LongPoll;
import io.brook.broker.core.PartitionRead;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.records.LogRecord;
import io.brook.broker.records.RecordHeader;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * GET /topics/{topic}/partitions/{partition}/records?offset=&max=&wait=&encoding=: a read by offset
 * through the core's FetchService (records form), with a long poll that holds no thread and no answer
 * memory while it waits (the core's {@link LongPoll}, woken by an append or its timeout).
 */
final class FetchRoute {
  static final List<String> PARAMS = List.of("offset", "max", "wait", "encoding");
  static final int DEFAULT_MAX_RECORDS = 100;
  static final int MAX_RECORDS = 10_000;
  /** Payload bytes one answer reads at most (the first record comes whatever its size). */
  static final int MAX_BYTES = 1 << 20;
  /** The longest wait, whatever fetch.max.wait.ms allows: under the HTTP server's 60 s idle timeout. */
  static final long MAX_WAIT_MS = 50_000;
  /** JSON takes more room than the payload: base64 is 4/3 of it, escapes more; the reservation is resized to the real size. */
  static final long RESERVE = 2L * MAX_BYTES + (64 << 10);
  /** How a record measures in a JSON answer, about (the reservation is made the real size when sent). */
  static final AnswerSize SIZE = new AnswerSize() {
    @Override
    public int capBytes() {
      return (int) RESERVE;
    }

    @Override
    public int partitionOverhead() {
      return 256;
    }

    @Override
    public int recordSize(LogRecord r) {
      return 2 * r.payloadSize() + 96 + 48 * r.headers().size();
    }

    @Override
    public int batchSize(int length) {
      return 2 * length;
    }
  };

  private final FetchService fetch;

  FetchRoute(FetchService fetch) {
    this.fetch = fetch;
  }

  CompletionStage<RelayReply> fetch(RelayRequest request) {
    String topic = request.pathParam("topic");
    request.caller().requireConsume(topic);
    int partition = partition(request.pathParam("partition"));
    Long offset = ProduceBody.queryLong(request, "offset", 0, Long.MAX_VALUE);
    if (offset == null) {
      throw RelayErrors.invalid("offset is required: ?offset=N (the partition's bounds are in every answer)");
    }
    Long max = ProduceBody.queryLong(request, "max", 1, MAX_RECORDS);
    Long wait = ProduceBody.queryLong(request, "wait", 0, Long.MAX_VALUE);
    String enc = request.query("encoding");
    Encoding encoding = enc == null ? Encoding.UTF8 : Encoding.of(enc, "encoding");
    FetchQuery query = new FetchQuery(List.of(new FetchPosition(topic, partition, offset)),
        max == null ? DEFAULT_MAX_RECORDS : max.intValue(), MAX_BYTES, BatchForm.RECORDS,
        wait == null ? 0 : Math.min(wait, MAX_WAIT_MS));
    CompletableFuture<RelayReply> answer = new CompletableFuture<>();
    request.reserve(RESERVE).thenRun(() -> firstRead(request, query, encoding, answer))
        .exceptionally(failure -> {
          answer.completeExceptionally(failure);
          return null;
        });
    return answer;
  }

  private void firstRead(RelayRequest request, FetchQuery query, Encoding encoding, CompletableFuture<RelayReply> answer) {
    try {
      List<PartitionRead> first = fetch.read(query, SIZE);
      LongPoll poll = fetch.longPoll(query, first, () -> lastRead(request, query, encoding, answer));
      if (poll == null) {
        answer.complete(RelayReply.ok(render(first.get(0), encoding)));
        return;
      }
      request.release(RESERVE); // a waiting poll holds no answer memory
      request.onGone(poll::cancel);
      poll.start();
    } catch (RuntimeException e) {
      answer.completeExceptionally(e);
    }
  }

  /** Records came, or the wait ended: read again, with memory for the answer reserved first. */
  private void lastRead(RelayRequest request, FetchQuery query, Encoding encoding, CompletableFuture<RelayReply> answer) {
    request.reserve(RESERVE).thenRun(() -> {
      try {
        answer.complete(RelayReply.ok(render(fetch.read(query, SIZE).get(0), encoding)));
      } catch (RuntimeException e) {
        answer.completeExceptionally(e);
      }
    }).exceptionally(failure -> {
      answer.completeExceptionally(failure);
      return null;
    });
  }

  static int partition(String text) {
    try {
      int p = Integer.parseInt(text);
      if (p >= 0) {
        return p;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw RelayErrors.invalid("partition must be an integer >= 0, got '" + text + "'");
  }

  /**
   * {@code {"topic","partition","records":[...],"nextOffset","logStartOffset","endOffset"}}; a
   * partition's error (unknown topic or partition, offset out of range) refuses the request whole.
   */
  static JsonObject render(PartitionRead r, Encoding encoding) {
    if (r.error() != null) {
      throw new BrokerException(r.error(), r.errorMessage());
    }
    JsonObject body = new JsonObject();
    body.addProperty("topic", r.topic());
    body.addProperty("partition", r.partition());
    JsonArray records = new JsonArray();
    for (LogRecord record : r.records()) {
      records.add(record(record, encoding));
    }
    body.add("records", records);
    body.addProperty("nextOffset", r.nextOffset());
    body.addProperty("logStartOffset", r.logStartOffset());
    body.addProperty("endOffset", r.endOffset());
    return body;
  }

  /**
   * One record; with utf8, a key, value or header value that is not valid UTF-8 goes as base64 and
   * says so ({@code keyEncoding}, {@code valueEncoding}, a header's {@code encoding}), as a request may.
   */
  static JsonObject record(LogRecord r, Encoding encoding) {
    JsonObject o = new JsonObject();
    o.addProperty("offset", r.offset());
    o.addProperty("timestamp", r.timestamp());
    if (r.key() == null) {
      o.add("key", com.google.gson.JsonNull.INSTANCE);
    } else {
      put(o, "key", "keyEncoding", r.key(), encoding);
    }
    put(o, "value", "valueEncoding", r.value(), encoding);
    if (!r.headers().isEmpty()) {
      JsonArray headers = new JsonArray();
      for (RecordHeader h : r.headers()) {
        JsonObject ho = new JsonObject();
        ho.addProperty("key", h.name());
        put(ho, "value", "encoding", h.value(), encoding);
        headers.add(ho);
      }
      o.add("headers", headers);
    }
    return o;
  }

  private static void put(JsonObject o, String field, String encodingField, byte[] bytes, Encoding encoding) {
    String text = encoding.encode(bytes);
    if (text == null) { // not UTF-8: base64, marked
      o.addProperty(field, Encoding.BASE64.encode(bytes));
      o.addProperty(encodingField, Encoding.BASE64.word());
    } else {
      o.addProperty(field, text);
    }
  }
}
