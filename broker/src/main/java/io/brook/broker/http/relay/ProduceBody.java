package io.brook.broker.http.relay;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.brook.broker.records.IncomingBatch;
import io.brook.broker.records.LogRecord;
import io.brook.broker.records.RecordHeader;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A produce request's records, from the JSON form
 * {@code {"records":[{"key":..,"value":..,"headers":[{"key":..,"value":..}],"partition":n,"timestamp":ms}],
 * "encoding":"utf8"|"base64"}} (per record {@code keyEncoding}/{@code valueEncoding}, per header
 * {@code encoding}) or the binary form (the body is the value; key, partition, timestamp and headers in
 * the query). Only the JSON's shape is checked here; the records themselves are checked by the core's
 * validator like gRPC's.
 */
public final class ProduceBody {
  /** One record and the partition it names (null: the broker partitions it by key, as gRPC's). */
  public record Item(Integer partition, LogRecord record) {}

  private static final Set<String> BODY_FIELDS = Set.of("records", "encoding");
  private static final Set<String> RECORD_FIELDS =
      Set.of("key", "value", "headers", "partition", "timestamp", "keyEncoding", "valueEncoding");
  private static final Set<String> HEADER_FIELDS = Set.of("key", "value", "encoding");

  private ProduceBody() {}

  public static List<Item> fromJson(JsonObject body) {
    RelayJson.onlyFields(body, "", BODY_FIELDS);
    String enc = RelayJson.optString(body, "encoding", "");
    Encoding encoding = enc == null ? Encoding.UTF8 : Encoding.of(enc, "encoding");
    JsonArray records = RelayJson.optArray(body, "records", "");
    if (records == null) {
      throw RelayErrors.invalid("records is required: {\"records\":[{\"value\":\"...\"}]}");
    }
    if (records.isEmpty()) {
      throw RelayErrors.invalid("records is empty: a produce needs at least one record");
    }
    List<Item> items = new ArrayList<>(records.size());
    for (int i = 0; i < records.size(); i++) {
      items.add(record(records.get(i), "records[" + i + "]", encoding));
    }
    return items;
  }

  private static Item record(JsonElement e, String where, Encoding encoding) {
    JsonObject r = RelayJson.object(e, where);
    RelayJson.onlyFields(r, where, RECORD_FIELDS);
    Encoding keyEncoding = encoding(r, "keyEncoding", where, encoding);
    Encoding valueEncoding = encoding(r, "valueEncoding", where, encoding);
    String key = RelayJson.optString(r, "key", where);
    if (!r.has("value")) {
      throw RelayErrors.invalid(RelayJson.at(where, "value") + " is required (\"\" for an empty value)");
    }
    String value = RelayJson.optString(r, "value", where);
    if (value == null) {
      throw RelayErrors.invalid(RelayJson.at(where, "value") + " must be a string, got null (\"\" for an empty value)");
    }
    Long partition = RelayJson.optLong(r, "partition", where, 0, Integer.MAX_VALUE);
    Long timestamp = RelayJson.optLong(r, "timestamp", where, 0, Long.MAX_VALUE);
    List<RecordHeader> headers = headers(RelayJson.optArray(r, "headers", where), where, encoding);
    LogRecord record = LogRecord.of(key == null ? null : keyEncoding.decode(key, RelayJson.at(where, "key")),
        valueEncoding.decode(value, RelayJson.at(where, "value")),
        timestamp == null ? IncomingBatch.Listed.NO_TIMESTAMP : timestamp, headers);
    return new Item(partition == null ? null : partition.intValue(), record);
  }

  private static List<RecordHeader> headers(JsonArray array, String where, Encoding encoding) {
    if (array == null || array.isEmpty()) {
      return List.of();
    }
    List<RecordHeader> headers = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      String at = RelayJson.at(where, "headers[" + i + "]");
      JsonObject h = RelayJson.object(array.get(i), at);
      RelayJson.onlyFields(h, at, HEADER_FIELDS);
      String name = RelayJson.string(h, "key", at);
      String value = RelayJson.optString(h, "value", at);
      Encoding e = encoding(h, "encoding", at, encoding);
      headers.add(new RecordHeader(Encoding.UTF8.decode(name, RelayJson.at(at, "key")),
          value == null ? new byte[0] : e.decode(value, RelayJson.at(at, "value"))));
    }
    return headers;
  }

  private static Encoding encoding(JsonObject o, String name, String where, Encoding otherwise) {
    String e = RelayJson.optString(o, name, where);
    return e == null ? otherwise : Encoding.of(e, RelayJson.at(where, name));
  }

  /**
   * The binary form: the body is the value; {@code key} (with {@code keyEncoding}), {@code partition},
   * {@code timestamp} and repeated {@code header=name:value} (UTF-8) from the query.
   */
  public static Item fromBinary(RelayRequest request) {
    String keyText = request.query("key");
    String ke = request.query("keyEncoding");
    Encoding keyEncoding = ke == null ? Encoding.UTF8 : Encoding.of(ke, "keyEncoding");
    Long partition = queryLong(request, "partition", 0, Integer.MAX_VALUE);
    Long timestamp = queryLong(request, "timestamp", 0, Long.MAX_VALUE);
    List<RecordHeader> headers = new ArrayList<>();
    for (String h : request.queryAll("header")) {
      int colon = h.indexOf(':');
      if (colon <= 0) {
        throw RelayErrors.invalid("header must be name:value (a name of at least one character), got '" + h + "'");
      }
      headers.add(new RecordHeader(Encoding.UTF8.decode(h.substring(0, colon), "header name"),
          Encoding.UTF8.decode(h.substring(colon + 1), "header value")));
    }
    LogRecord record = LogRecord.of(keyText == null ? null : keyEncoding.decode(keyText, "key"), request.body(),
        timestamp == null ? IncomingBatch.Listed.NO_TIMESTAMP : timestamp, headers);
    return new Item(partition == null ? null : partition.intValue(), record);
  }

  /** A query parameter that must be a decimal integer in [min, max] when present. */
  static Long queryLong(RelayRequest request, String name, long min, long max) {
    String text = request.query(name);
    if (text == null) {
      return null;
    }
    long v;
    try {
      v = Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw RelayErrors.invalid(name + " must be an integer, got '" + text + "'");
    }
    if (v < min || v > max) {
      throw RelayErrors.invalid(name + " must be in " + min + ".." + max + ", got " + v);
    }
    return v;
  }
}
