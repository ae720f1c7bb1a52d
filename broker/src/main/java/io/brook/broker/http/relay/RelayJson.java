package io.brook.broker.http.relay;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import com.google.gson.Strictness;
import com.google.gson.TypeAdapter;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import java.io.IOException;
import java.io.StringReader;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * JSON for the relay, with gson: strict parsing of request bodies (RFC 8259, UTF-8, one value) and
 * typed reads of their fields, each refusal a 400 INVALID_REQUEST naming the field by its path
 * ({@code records[2].partition must be an integer, got "x"}).
 */
public final class RelayJson {
  /** Writes answers: no HTML escaping (&lt; stays &lt;), nulls written (a record without a key has "key":null). */
  public static final Gson GSON = new GsonBuilder().disableHtmlEscaping().serializeNulls().create();
  private static final TypeAdapter<JsonElement> TREE = GSON.getAdapter(JsonElement.class);

  private RelayJson() {}

  /** The body as one JSON object; anything else (bad UTF-8, bad JSON, another type, trailing data) is refused. */
  public static JsonObject parseObject(byte[] body) {
    JsonElement e = parse(body);
    if (!e.isJsonObject()) {
      throw RelayErrors.invalid("the body must be a JSON object, got " + kind(e));
    }
    return e.getAsJsonObject();
  }

  /** The body as one JSON value. */
  public static JsonElement parse(byte[] body) {
    if (body.length == 0) {
      throw RelayErrors.invalid("the body is empty: expected JSON");
    }
    String text;
    try {
      text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(body)).toString();
    } catch (CharacterCodingException e) {
      throw RelayErrors.invalid("the body is not valid UTF-8");
    }
    JsonReader reader = new JsonReader(new StringReader(text));
    reader.setStrictness(Strictness.STRICT);
    JsonElement e;
    try {
      e = TREE.read(reader); // iterative, with gson's nesting limit (255): deep nesting cannot overflow the stack
    } catch (IOException | RuntimeException ex) {
      throw RelayErrors.invalid("bad JSON: " + gsonMessage(ex));
    }
    boolean trailing;
    try {
      trailing = reader.peek() != JsonToken.END_DOCUMENT;
    } catch (IOException | RuntimeException ex) {
      trailing = true;
    }
    if (trailing) {
      throw RelayErrors.invalid("bad JSON: more than one value, or characters after the value");
    }
    return e;
  }

  /** Gson's message without its advice to be lenient and its link, and with a long path cut. */
  private static String gsonMessage(Exception e) {
    String m = String.valueOf(e.getMessage());
    int nl = m.indexOf('\n');
    m = nl < 0 ? m : m.substring(0, nl);
    m = m.replace("Use JsonReader.setStrictness(Strictness.LENIENT) to accept malformed JSON", "malformed JSON");
    return m.length() > 200 ? m.substring(0, 200) + "..." : m;
  }

  /** What kind of JSON value {@code e} is, for messages: object, array, string, number, boolean, null. */
  public static String kind(JsonElement e) {
    if (e == null || e.isJsonNull()) {
      return "null";
    }
    if (e.isJsonObject()) {
      return "an object";
    }
    if (e.isJsonArray()) {
      return "an array";
    }
    JsonPrimitive p = e.getAsJsonPrimitive();
    return p.isString() ? "a string" : p.isNumber() ? "a number" : "a boolean";
  }

  /** A field that must be a string when present; null when absent or JSON null. */
  public static String optString(JsonObject o, String name, String where) {
    JsonElement e = o.get(name);
    if (e == null || e.isJsonNull()) {
      return null;
    }
    if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isString()) {
      throw RelayErrors.invalid(at(where, name) + " must be a string, got " + kind(e));
    }
    return e.getAsString();
  }

  public static String string(JsonObject o, String name, String where) {
    String s = optString(o, name, where);
    if (s == null) {
      throw RelayErrors.invalid(at(where, name) + " is required");
    }
    return s;
  }

  /** A field that must be an integer in [min, max] when present; null when absent or JSON null. */
  public static Long optLong(JsonObject o, String name, String where, long min, long max) {
    JsonElement e = o.get(name);
    if (e == null || e.isJsonNull()) {
      return null;
    }
    if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isNumber()) {
      throw RelayErrors.invalid(at(where, name) + " must be an integer, got " + kind(e));
    }
    BigDecimal d;
    try {
      d = e.getAsBigDecimal();
    } catch (NumberFormatException ex) {
      throw RelayErrors.invalid(at(where, name) + " must be an integer, got " + e);
    }
    long v;
    try {
      v = d.longValueExact();
    } catch (ArithmeticException ex) {
      throw RelayErrors.invalid(at(where, name) + " must be an integer in " + min + ".." + max + ", got " + e);
    }
    if (v < min || v > max) {
      throw RelayErrors.invalid(at(where, name) + " must be in " + min + ".." + max + ", got " + v);
    }
    return v;
  }

  /** A field that must be an array when present; null when absent or JSON null. */
  public static JsonArray optArray(JsonObject o, String name, String where) {
    JsonElement e = o.get(name);
    if (e == null || e.isJsonNull()) {
      return null;
    }
    if (!e.isJsonArray()) {
      throw RelayErrors.invalid(at(where, name) + " must be an array, got " + kind(e));
    }
    return e.getAsJsonArray();
  }

  /** An array element that must be an object. */
  public static JsonObject object(JsonElement e, String where) {
    if (e == null || !e.isJsonObject()) {
      throw RelayErrors.invalid(where + " must be an object, got " + kind(e));
    }
    return e.getAsJsonObject();
  }

  /** Refuses fields other than {@code known} (a typo must not be silently ignored). */
  public static void onlyFields(JsonObject o, String where, java.util.Set<String> known) {
    for (String name : o.keySet()) {
      if (!known.contains(name)) {
        throw RelayErrors.invalid(at(where, name) + " is not a known field (known: "
            + String.join(", ", new java.util.TreeSet<>(known)) + ")");
      }
    }
  }

  /** The path of field {@code name} in the object at {@code where} ("" for the body itself). */
  public static String at(String where, String name) {
    return where.isEmpty() ? name : where + "." + name;
  }
}
