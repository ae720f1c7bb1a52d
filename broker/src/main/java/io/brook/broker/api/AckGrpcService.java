package io.brook.broker.api;

import io.brook.broker.core.AckService;
import io.brook.broker.groups.Settlement;
import io.brook.broker.security.Caller;
import io.brook.protocol.v1.AckServiceGrpc;
import io.brook.protocol.v1.LeaseExtension;
import io.brook.protocol.v1.Nack;
import io.brook.protocol.v1.OffsetRange;
import io.brook.protocol.v1.ReceiveRequest;
import io.brook.protocol.v1.ReceiveResponse;
import io.brook.protocol.v1.SettleFailure;
import io.brook.protocol.v1.SettleRequest;
import io.brook.protocol.v1.SettleResponse;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;

/** brook.v1.AckService: ack-mode members receive over a stream and settle in it, or with Settle. */
public final class AckGrpcService extends AckServiceGrpc.AckServiceImplBase {
  private final AckService acks;
  private final Draining draining;
  private final OutboundAccounts accounts;

  public AckGrpcService(AckService acks, Draining draining, OutboundAccounts accounts) {
    this.acks = acks;
    this.draining = draining;
    this.accounts = accounts;
  }

  @Override
  public StreamObserver<ReceiveRequest> receive(StreamObserver<ReceiveResponse> out) {
    return new ReceiveSession(acks, (ServerCallStreamObserver<ReceiveResponse>) out, ClientAddress.current(),
        draining, accounts.current());
  }

  @Override
  public void settle(SettleRequest request, StreamObserver<SettleResponse> out) {
    Unary.answer(out, () -> {
      List<Settlement.Failure> failures = acks.settle(request.getGroup(), request.getMemberId(),
          settlement(request.getAcksList(), request.getNacksList(), request.getExtensionsList()), Caller.principal());
      SettleResponse.Builder b = SettleResponse.newBuilder();
      failures.forEach(f -> b.addFailures(failure(f)));
      return b.build();
    });
  }

  static Settlement settlement(List<OffsetRange> acks, List<Nack> nacks, List<LeaseExtension> extensions) {
    List<Settlement.Range> a = new ArrayList<>(acks.size());
    acks.forEach(r -> a.add(range(r)));
    List<Settlement.Nack> n = new ArrayList<>(nacks.size());
    nacks.forEach(x -> n.add(new Settlement.Nack(range(x.getRange()), x.getDelayMs(), x.getReject())));
    List<Settlement.Extension> e = new ArrayList<>(extensions.size());
    extensions.forEach(x -> e.add(new Settlement.Extension(range(x.getRange()), x.getLeaseMs())));
    return new Settlement(a, n, e);
  }

  private static Settlement.Range range(OffsetRange r) {
    long last = r.hasLastOffset() ? r.getLastOffset() : r.getFirstOffset();
    return new Settlement.Range(r.getTopic(), r.getPartition(), r.getFirstOffset(), last);
  }

  static SettleFailure failure(Settlement.Failure f) {
    OffsetRange.Builder r = OffsetRange.newBuilder().setTopic(f.topic()).setPartition(f.partition())
        .setFirstOffset(f.first());
    if (f.last() != f.first()) {
      r.setLastOffset(f.last());
    }
    return SettleFailure.newBuilder().setRange(r).setErrorCode(Errors.code(f.error())).setErrorMessage(f.message())
        .build();
  }
}
