package io.brook.broker.api;

import io.brook.broker.disk.DiskGuard;
import io.brook.broker.security.Caller;
import io.brook.broker.topics.TopicManager;
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

/** brook.v1.ProduceService: the edge that turns produce calls into appends. */
public final class ProduceGrpcService extends ProduceServiceGrpc.ProduceServiceImplBase {
  private final ProduceHandler handler;
  private final int maxInflight;
  private final ApiSettings settings;
  private final OutboundAccounts accounts;

  public ProduceGrpcService(TopicManager topics, ApiSettings settings, DiskGuard disk, OutboundAccounts accounts) {
    this.handler = new ProduceHandler(topics, settings, disk);
    this.maxInflight = settings.produceStreamMaxInflight();
    this.settings = settings;
    this.accounts = accounts;
  }

  @Override
  public void initProducer(InitProducerRequest request, StreamObserver<InitProducerResponse> out) {
    InitProducerResponse response;
    try {
      String caller = Caller.principal();
      long now = settings.clock().millis();
      if (request.hasProducerId()) {
        short epoch = settings.producerIds().bump(request.getProducerId(), caller, now);
        response = InitProducerResponse.newBuilder().setProducerId(request.getProducerId()).setProducerEpoch(epoch)
            .build();
      } else {
        response = InitProducerResponse.newBuilder().setProducerId(settings.producerIds().allocate(caller, now))
            .setProducerEpoch(0).build();
      }
    } catch (RuntimeException e) {
      out.onError(Errors.toStatus(e));
      return;
    }
    out.onNext(response);
    out.onCompleted();
  }

  @Override
  public void produce(ProduceRequest request, StreamObserver<ProduceResponse> out) {
    long arrived = System.nanoTime();
    CompletableFuture<ProduceResponse> answer;
    try {
      answer = handler.forCaller(Caller.principal()).handle(request);
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
    return new ProduceStream(handler.forCaller(Caller.principal()),
        (ServerCallStreamObserver<ProduceStreamResponse>) responses, maxInflight,
        settings.draining(), settings.observer(), accounts.current(), settings.readExecutor());
  }
}
