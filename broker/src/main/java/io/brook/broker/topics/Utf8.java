package io.brook.broker.topics;

/**
 * Whether bytes are well-formed UTF-8 (RFC 3629: shortest form, no surrogates, at most U+10FFFF),
 * the rule protobuf applies to a listed record's header names, for the names inside an encoded
 * section; without decoding them or a protobuf type below the adapters.
 */
final class Utf8 {
  private Utf8() {}

  static boolean isValid(byte[] b, int offset, int length) {
    int i = offset;
    int end = offset + length;
    while (i < end) {
      int c = b[i] & 0xff;
      if (c < 0x80) {
        i++;
        continue;
      }
      int need;
      int min; // the lowest second byte allowed, to refuse overlong forms and surrogates
      int max;
      if (c >= 0xc2 && c <= 0xdf) {
        need = 1; min = 0x80; max = 0xbf;
      } else if (c == 0xe0) {
        need = 2; min = 0xa0; max = 0xbf;
      } else if (c >= 0xe1 && c <= 0xef) {
        need = 2; min = 0x80; max = c == 0xed ? 0x9f : 0xbf;
      } else if (c == 0xf0) {
        need = 3; min = 0x90; max = 0xbf;
      } else if (c >= 0xf1 && c <= 0xf3) {
        need = 3; min = 0x80; max = 0xbf;
      } else if (c == 0xf4) {
        need = 3; min = 0x80; max = 0x8f;
      } else {
        return false;
      }
      if (end - i <= need) {
        return false;
      }
      int second = b[i + 1] & 0xff;
      if (second < min || second > max) {
        return false;
      }
      for (int k = 2; k <= need; k++) {
        if ((b[i + k] & 0xc0) != 0x80) {
          return false;
        }
      }
      i += need + 1;
    }
    return true;
  }
}
