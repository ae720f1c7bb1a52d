package io.brook.broker.api;

import io.brook.broker.delivery.AckMember;
import io.brook.broker.groups.AckGroup;
import io.brook.broker.groups.GroupManager;
import io.brook.broker.groups.Settlement;
import io.brook.broker.security.Caller;
import io.brook.protocol.v1.AckServiceGrpc;
import io.brook.protocol.v1.Nack;
import io.brook.protocol.v1.OffsetRange;
import io.brook.protocol.v1.LeaseExtension;
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
  private final GroupManager groups;
  private final Draining draining;
  private final OutboundAccounts accounts;

  public AckGrpcService(GroupManager groups, Draining draining, OutboundAccounts accounts) {
    this.groups = groups;
    this.draining = draining;
    this.accounts = accounts;
  }

  @Override
  public StreamObserver<ReceiveRequest> receive(StreamObserver<ReceiveResponse> out) {
    return new ReceiveSession(groups, (ServerCallStreamObserver<ReceiveResponse>) out, ClientAddress.current(),
        draining, accounts.current());
  }

  @Override
  public void settle(SettleRequest request, StreamObserver<SettleResponse> out) {
    Unary.answer(out, () -> {
      AckGroup group = groups.ackGroup(request.getGroup(), false);
      AckMember member = group.member(request.getMemberId(), Caller.principal());
      List<Settlement.Failure> failures = group.settle(member, new Settlement(ranges(request.getAcksList()),
          nacks(request.getNacksList()), extensions(request.getExtensionsList())));
      SettleResponse.Builder b = SettleResponse.newBuilder();
      failures.forEach(f -> b.addFailures(failure(f)));
      return b.build();
    });
  }

  static List<Settlement.Range> ranges(List<OffsetRange> wire) {
    List<Settlement.Range> out = new ArrayList<>(wire.size());
    wire.forEach(r -> out.add(range(r)));
    return out;
  }

  static Settlement.Range range(OffsetRange r) {
    long last = r.hasLastOffset() ? r.getLastOffset() : r.getFirstOffset();
    return new Settlement.Range(r.getTopic(), r.getPartition(), r.getFirstOffset(), last);
  }

  static List<Settlement.Nack> nacks(List<Nack> wire) {
    List<Settlement.Nack> out = new ArrayList<>(wire.size());
    wire.forEach(n -> out.add(new Settlement.Nack(range(n.getRange()), n.getDelayMs(), n.getReject())));
    return out;
  }

  static List<Settlement.Extension> extensions(List<LeaseExtension> wire) {
    List<Settlement.Extension> out = new ArrayList<>(wire.size());
    wire.forEach(e -> out.add(new Settlement.Extension(range(e.getRange()), e.getLeaseMs())));
    return out;
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
