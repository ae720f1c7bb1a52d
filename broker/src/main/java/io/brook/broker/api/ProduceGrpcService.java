package io.brook.broker.api;

import io.brook.broker.core.ProduceCall;
import io.brook.broker.core.ProduceService;
import io.brook.broker.security.Caller;
import io.brook.protocol.v1.InitProducerRequest;
import io.brook.protocol.v1.InitProducerResponse;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceResponse;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.ProduceStreamRequest;
import io.brook.protocol.v1.ProduceStreamResponse;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;

/** brook.v1.ProduceService: the gRPC edge of the core's {@link ProduceService}. */
public final class ProduceGrpcService extends ProduceServiceGrpc.ProduceServiceImplBase {
  private final ProduceService produce;
  private final int maxInflight;
  private final ApiSettings settings;
  private final OutboundAccounts accounts;

  public ProduceGrpcService(ProduceService produce, ApiSettings settings, OutboundAccounts accounts) {
    this.produce = produce;
    this.maxInflight = settings.produceStreamMaxInflight();
    this.settings = settings;
    this.accounts = accounts;
  }

  @Override
  public void initProducer(InitProducerRequest request, StreamObserver<InitProducerResponse> out) {
    Unary.answer(out, () -> {
      ProduceCall.Producer p = produce.initProducer(Caller.principal(),
          request.hasProducerId() ? request.getProducerId() : null);
      return InitProducerResponse.newBuilder().setProducerId(p.id()).setProducerEpoch(p.epoch()).build();
    });
  }

  @Override
  public void produce(ProduceRequest request, StreamObserver<ProduceResponse> out) {
    long arrived = System.nanoTime();
    CompletableFuture<ProduceResponse> answer;
    try {
      answer = mapper().handle(request);
    } catch (RuntimeException e) {
      out.onError(Errors.toStatus(e));
      return;
    }
    answer.whenComplete((response, failure) -> {
      settings.observer().produceAnswered(System.nanoTime() - arrived);
      if (failure != null) {
        out.onError(Errors.toStatus(failure));
      } else {
        out.onNext(response);
        out.onCompleted();
      }
    });
  }

  @Override
  public StreamObserver<ProduceStreamRequest> produceStream(StreamObserver<ProduceStreamResponse> responses) {
    return new ProduceStream(mapper(), (ServerCallStreamObserver<ProduceStreamResponse>) responses, maxInflight,
        settings.draining(), settings.observer(), accounts.current(), settings.readExecutor());
  }

  /** The mapper for the calling principal: a call, or every request of a stream. */
  private ProduceMapper mapper() {
    return new ProduceMapper(produce, settings.observer(), Caller.principal());
  }
}
