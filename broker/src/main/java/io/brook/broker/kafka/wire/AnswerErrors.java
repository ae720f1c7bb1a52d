package io.brook.broker.kafka.wire;

import io.netty.buffer.ByteBuf;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * The error codes an answer holds, by name, as Kafka's own broker counts them
 * ({@link AbstractResponse#errorCounts()}: per partition, topic or request as each API defines). Read
 * back from the encoded frame, because kafka-clients counts only through its response classes; record
 * bytes in it are sliced, not copied.
 */
final class AnswerErrors {
  private AnswerErrors() {}

  static Map<String, Integer> of(ApiKeys key, short version, ByteBuf frame) {
    ByteBufferAccessor in = new ByteBufferAccessor(frame.nioBuffer(4, frame.readableBytes() - 4));
    ResponseHeader.parse(in.buffer(), key.responseHeaderVersion(version)); // skipped: only the body counts
    Map<Errors, Integer> counts = AbstractResponse.parseResponse(key, in, version).errorCounts();
    Map<String, Integer> byName = new HashMap<>(counts.size() * 2);
    counts.forEach((error, n) -> byName.put(error.name(), n));
    return byName;
  }
}
