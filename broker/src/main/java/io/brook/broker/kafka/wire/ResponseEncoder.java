package io.brook.broker.kafka.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/** Writes a response frame: length, header, body, with Kafka's generated classes. */
final class ResponseEncoder {
  private ResponseEncoder() {}

  /**
   * The frame of {@code body} answering request {@code correlationId} of {@code key} at {@code version};
   * the header version is the one {@code key} uses at that version (always 0 for ApiVersions).
   */
  static ByteBuf encode(ByteBufAllocator alloc, ApiKeys key, short version, int correlationId, ApiMessage body) {
    short headerVersion = key.responseHeaderVersion(version);
    ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
    ObjectSerializationCache cache = new ObjectSerializationCache(); // sized and written with the same cache
    int size = header.size(cache, headerVersion) + body.size(cache, version);
    // Straight into the buffer the socket writes from: a heap frame was copied again into a direct
    // one by Netty, and a large heap frame is a fresh zeroed array (perf profile of Kafka fetches).
    ByteBuf frame = alloc.ioBuffer(4 + size);
    try {
      frame.writeInt(size);
      ByteBufferAccessor out = new ByteBufferAccessor(frame.nioBuffer(4, size));
      header.write(out, cache, headerVersion);
      body.write(out, cache, version);
      frame.writerIndex(4 + size);
      return frame;
    } catch (RuntimeException e) {
      frame.release();
      throw e;
    }
  }
}
