package io.brook.broker.http.relay;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;

/**
 * How a key, value or header value travels in relay JSON: {@code utf8} (the bytes are the string's
 * UTF-8) or {@code base64} (RFC 4648, standard alphabet, padding optional).
 */
public enum Encoding {
  UTF8, BASE64;

  /** The JSON name: utf8, base64. */
  public String word() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses utf8 / base64 (case-insensitive); refuses anything else naming {@code where}. */
  public static Encoding of(String text, String where) {
    if (text.equalsIgnoreCase("utf8") || text.equalsIgnoreCase("utf-8")) {
      return UTF8;
    }
    if (text.equalsIgnoreCase("base64")) {
      return BASE64;
    }
    throw RelayErrors.invalid(where + " must be utf8 or base64, got '" + text + "'");
  }

  public byte[] decode(String text, String where) {
    if (this == UTF8) {
      try { // a lone surrogate (JSON "\ud800") has no UTF-8: refused, not replaced by '?'
        ByteBuffer b = StandardCharsets.UTF_8.newEncoder().onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT).encode(java.nio.CharBuffer.wrap(text));
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        return bytes;
      } catch (CharacterCodingException e) {
        throw RelayErrors.invalid(where + " is not valid Unicode (a lone surrogate): it has no UTF-8");
      }
    }
    try {
      return Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw RelayErrors.invalid(where + " is not valid base64: " + e.getMessage());
    }
  }

  /** The bytes as text in this encoding, or null when this is utf8 and they are not valid UTF-8. */
  public String encode(byte[] bytes) {
    if (this == BASE64) {
      return Base64.getEncoder().encodeToString(bytes);
    }
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }
}
