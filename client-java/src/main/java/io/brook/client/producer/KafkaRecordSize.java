package io.brook.client.producer;

import io.brook.client.Header;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The most bytes a record takes in a Kafka record batch v2 before compression, whatever its batch:
 * what {@code send} reserves of the buffer memory before it knows the batch's base timestamp and the
 * record's offset delta (the batch gives back what the record did not take). A record is a varint
 * length, an attributes byte, a varlong timestamp delta, a varint offset delta, the key and value
 * each after a varint length, a varint header count and per header its name and value each after a
 * varint length (Kafka's DefaultRecord).
 */
final class KafkaRecordSize {
  private static final int MAX_VARINT = 5;
  private static final int MAX_VARLONG = 10;

  private KafkaRecordSize() {}

  static int max(byte[] key, byte[] value, List<Header> headers) {
    int size = MAX_VARINT + 1 + MAX_VARLONG + MAX_VARINT;
    size += MAX_VARINT + (key == null ? 0 : key.length);
    size += MAX_VARINT + (value == null ? 0 : value.length);
    size += MAX_VARINT;
    for (Header h : headers) {
      size += 2 * MAX_VARINT + utf8Length(h.key()) + h.value().length;
    }
    return size;
  }

  private static int utf8Length(String s) {
    boolean ascii = true;
    for (int i = 0; i < s.length() && ascii; i++) {
      ascii = s.charAt(i) < 0x80;
    }
    return ascii ? s.length() : s.getBytes(StandardCharsets.UTF_8).length;
  }
}
