package io.brook.broker.api;

import io.brook.broker.topics.TopicManager;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceResponse;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.ProduceStreamRequest;
import io.brook.protocol.v1.ProduceStreamResponse;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;

/** brook.v1.ProduceService: the edge that turns produce calls into appends. */
public final class ProduceGrpcService extends ProduceServiceGrpc.ProduceServiceImplBase {
  private final ProduceHandler handler;
  private final int maxInflight;

  public ProduceGrpcService(TopicManager topics, ApiSettings settings) {
    this.handler = new ProduceHandler(topics, settings);
    this.maxInflight = settings.produceStreamMaxInflight();
  }

  @Override
  public void produce(ProduceRequest request, StreamObserver<ProduceResponse> out) {
    ProduceResponse response;
    try {
      response = handler.handle(request);
    } catch (RuntimeException e) {
      out.onError(Errors.toStatus(e));
      return;
    }
    out.onNext(response);
    out.onCompleted();
  }

  /**
   * Inbound flow control: the broker asks gRPC for at most {@code maxInflight} requests ahead and
   * asks for one more only after answering one while the client is reading answers. A client that
   * sends faster than the broker appends, or that stops reading answers, waits instead of filling
   * the broker's heap. gRPC runs a call's callbacks one at a time, so this state needs no lock.
   */
  @Override
  public StreamObserver<ProduceStreamRequest> produceStream(StreamObserver<ProduceStreamResponse> responses) {
    ServerCallStreamObserver<ProduceStreamResponse> call = (ServerCallStreamObserver<ProduceStreamResponse>) responses;
    call.disableAutoRequest();
    int[] owed = {0};
    call.setOnReadyHandler(() -> {
      if (owed[0] > 0 && call.isReady()) {
        call.request(owed[0]);
        owed[0] = 0;
      }
    });
    call.request(maxInflight);
    return new StreamObserver<>() {
      private boolean failed;

      @Override
      public void onNext(ProduceStreamRequest message) {
        if (failed) {
          return;
        }
        ProduceResponse response;
        try {
          response = handler.handle(message.getRequest());
        } catch (RuntimeException e) {
          failed = true;
          call.onError(Errors.toStatus(e));
          return;
        }
        call.onNext(ProduceStreamResponse.newBuilder()
            .setCorrelationId(message.getCorrelationId())
            .setResponse(response)
            .build());
        if (call.isReady()) {
          call.request(1);
        } else {
          owed[0]++;
        }
      }

      @Override
      public void onError(Throwable t) {
        // The client went away; every answered request was already appended.
      }

      @Override
      public void onCompleted() {
        if (!failed) {
          call.onCompleted();
        }
      }
    };
  }
}
