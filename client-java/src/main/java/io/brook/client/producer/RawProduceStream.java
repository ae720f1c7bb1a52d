package io.brook.client.producer;

import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.ProduceStreamResponse;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * {@code ProduceService.ProduceStream} with requests the producer encoded itself (see
 * {@link ProduceRequestEncoding}): the same RPC and answers as the generated stub, minus building a
 * message object per record and per request.
 */
final class RawProduceStream {
  private static final MethodDescriptor<byte[], ProduceStreamResponse> METHOD =
      MethodDescriptor.<byte[], ProduceStreamResponse>newBuilder()
          .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
          .setFullMethodName(ProduceServiceGrpc.getProduceStreamMethod().getFullMethodName())
          .setRequestMarshaller(new BytesMarshaller())
          .setResponseMarshaller(ProtoUtils.marshaller(ProduceStreamResponse.getDefaultInstance()))
          .build();

  private RawProduceStream() {}

  static void open(Channel channel, ClientResponseObserver<byte[], ProduceStreamResponse> observer) {
    ClientCalls.asyncBidiStreamingCall(channel.newCall(METHOD, CallOptions.DEFAULT), observer);
  }

  /** Hands the encoded bytes to gRPC without another copy. */
  private static final class BytesMarshaller implements MethodDescriptor.Marshaller<byte[]> {
    @Override
    public InputStream stream(byte[] value) {
      return new BytesStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      throw new UnsupportedOperationException("the client never reads produce requests");
    }
  }

  private static final class BytesStream extends ByteArrayInputStream implements KnownLength, Drainable {
    BytesStream(byte[] bytes) {
      super(bytes);
    }

    @Override
    public int drainTo(OutputStream target) throws IOException {
      int n = count - pos;
      target.write(buf, pos, n);
      pos = count;
      return n;
    }
  }
}
