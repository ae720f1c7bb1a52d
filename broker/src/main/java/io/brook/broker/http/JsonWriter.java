package io.brook.broker.http;

/**
 * A small streaming JSON writer: objects, arrays, strings, numbers, booleans and null, with commas
 * placed for the caller. Strings are escaped per RFC 8259 (quotes, backslash, control characters).
 */
public final class JsonWriter {
  private final StringBuilder out = new StringBuilder();
  /** Whether the current object or array already holds a value (so the next needs a comma). */
  private boolean[] filled = new boolean[16];
  private int depth;
  private boolean afterName;

  JsonWriter beginObject() {
    value();
    out.append('{');
    push();
    return this;
  }

  JsonWriter endObject() {
    depth--;
    out.append('}');
    return this;
  }

  JsonWriter beginArray() {
    value();
    out.append('[');
    push();
    return this;
  }

  JsonWriter endArray() {
    depth--;
    out.append(']');
    return this;
  }

  JsonWriter name(String name) {
    value();
    string(name);
    out.append(':');
    afterName = true;
    return this;
  }

  JsonWriter value(String s) {
    value();
    if (s == null) {
      out.append("null");
    } else {
      string(s);
    }
    return this;
  }

  JsonWriter value(long n) {
    value();
    out.append(n);
    return this;
  }

  JsonWriter value(boolean b) {
    value();
    out.append(b);
    return this;
  }

  JsonWriter nullValue() {
    value();
    out.append("null");
    return this;
  }

  /** Before any value: a comma if the container already holds one (a value after a name needs none). */
  private void value() {
    if (afterName) {
      afterName = false;
      return;
    }
    if (depth > 0) {
      if (filled[depth]) {
        out.append(',');
      }
      filled[depth] = true;
    }
  }

  private void push() {
    depth++;
    if (depth == filled.length) {
      filled = java.util.Arrays.copyOf(filled, depth * 2);
    }
    filled[depth] = false;
  }

  private void string(String s) {
    quote(out, s);
  }

  /** s as a JSON string literal: quoted, with quotes, backslash and control characters escaped. */
  public static String quote(String s) {
    return quote(new StringBuilder(s.length() + 2), s).toString();
  }

  private static StringBuilder quote(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (c < 0x20 || c == '\u2028' || c == '\u2029') {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"');
  }

  @Override
  public String toString() {
    return out.toString();
  }
}
