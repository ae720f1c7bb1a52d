package io.brook.broker.api;

import io.brook.broker.delivery.AckMember;
import io.brook.broker.delivery.Delivery;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.AckGroup;
import io.brook.broker.groups.GroupManager;
import io.brook.broker.security.Caller;
import io.brook.protocol.v1.FlowControl;
import io.brook.protocol.v1.LeasedRecord;
import io.brook.protocol.v1.LeasedRecords;
import io.brook.protocol.v1.ReceiveRequest;
import io.brook.protocol.v1.ReceiveResponse;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.List;

/**
 * One member's Receive stream. The first message joins (creating the ack group when absent); the
 * broker answers with the member id, then leased records whenever the group's dispatch finds room
 * under the member's flow control. Everything sent goes out under the group's monitor, so sends
 * never interleave.
 */
final class ReceiveSession implements StreamObserver<ReceiveRequest>, AckMember.Sink, AckGroup.Closeable {
  static final long DEFAULT_MAX_RECORDS = 1000;
  static final long DEFAULT_MAX_BYTES = 100L << 20;

  private final GroupManager groups;
  private final ServerCallStreamObserver<ReceiveResponse> out;
  private final String address;
  private volatile AckGroup group;
  private volatile AckMember member;
  private volatile boolean ended;
  private final Draining draining;
  /** Also before the first request joined a group, which the groups' own close would miss. */
  private final Runnable drain = () -> shutDown("the broker is shutting down: reconnect and resume");

  ReceiveSession(GroupManager groups, ServerCallStreamObserver<ReceiveResponse> out, String address,
      Draining draining) {
    this.groups = groups;
    this.out = out;
    this.address = address;
    this.draining = draining;
    out.setOnCancelHandler(this::gone);
    draining.add(drain);
  }

  @Override
  public void onNext(ReceiveRequest request) {
    if (ended) {
      return;
    }
    try {
      if (member == null) {
        join(request); // then its settles, if any: a member taking over its leases may ack them at once
      } else if (request.hasFlowControl()) {
        long[] fc = flowControl(request.getFlowControl());
        group.flowControl(member, fc[0], fc[1]);
      }
      if (request.getAcksCount() + request.getNacksCount() + request.getExtensionsCount() > 0) {
        synchronized (group) {
          List<AckGroup.Failure> failures = group.settle(member, AckGrpcService.ranges(request.getAcksList()),
              AckGrpcService.nacks(request.getNacksList()), AckGrpcService.extensions(request.getExtensionsList()));
          if (!failures.isEmpty() && !ended) {
            ReceiveResponse.Builder b = ReceiveResponse.newBuilder();
            failures.forEach(f -> b.addFailures(AckGrpcService.failure(f)));
            out.onNext(b.build());
          }
        }
      }
    } catch (RuntimeException e) {
      fail(Errors.toStatus(e));
    }
  }

  private void join(ReceiveRequest first) {
    GroupGrpcService.checkMember("the first ReceiveRequest", first.getGroup(), first.getTopicsList(),
        first.getClientId());
    long[] fc = flowControl(first.getFlowControl());
    groups.checkTopicsExist(first.getTopicsList()); // before the group is created on demand
    AckGroup g = groups.ackGroup(first.getGroup(), true);
    synchronized (g) { // the member id goes out before any record can
      AckMember m = g.connect(first.getClientId(), first.getTopicsList(), this, fc[0], fc[1], address,
          Caller.principal());
      group = g;
      member = m;
      out.onNext(ReceiveResponse.newBuilder().setMemberId(m.id()).build());
    }
  }

  private static long[] flowControl(FlowControl fc) {
    if (fc.getMaxOutstandingRecords() < 0 || fc.getMaxOutstandingBytes() < 0) {
      throw Errors.invalid("flow control limits must be >= 0 (0: the default)");
    }
    long records = fc.getMaxOutstandingRecords() == 0 ? DEFAULT_MAX_RECORDS : fc.getMaxOutstandingRecords();
    long bytes = fc.getMaxOutstandingBytes() == 0 ? DEFAULT_MAX_BYTES : fc.getMaxOutstandingBytes();
    return new long[] {records, bytes};
  }

  @Override
  public void deliver(List<Delivery> deliveries) {
    if (ended) {
      return;
    }
    ReceiveResponse.Builder b = ReceiveResponse.newBuilder();
    LeasedRecords.Builder current = null;
    for (Delivery d : deliveries) {
      if (current == null || !current.getTopic().equals(d.topic()) || current.getPartition() != d.partition()) {
        if (current != null) {
          b.addBatches(current);
        }
        current = LeasedRecords.newBuilder().setTopic(d.topic()).setPartition(d.partition());
      }
      current.addRecords(LeasedRecord.newBuilder().setRecord(RecordMapper.toWire(d.record()))
          .setDeliveryAttempt(d.attempt()).setLeaseDeadlineMs(d.leaseDeadlineMs()));
    }
    if (current != null) {
      b.addBatches(current);
    }
    try {
      out.onNext(b.build());
    } catch (RuntimeException e) {
      gone(); // cancelled under us: the leases expire or are handed back
    }
  }

  @Override
  public void replaced(BrokerException why) {
    fail(Errors.toStatus(why)); // ABORTED, with its ErrorInfo like every other error of the broker
  }

  @Override
  public void shutDown(String why) {
    fail(Status.UNAVAILABLE.withDescription(why).asRuntimeException());
  }

  private void fail(RuntimeException status) {
    AckGroup g = group;
    if (g == null) {
      endWith(status);
      return;
    }
    synchronized (g) {
      endWith(status);
    }
    gone();
  }

  private void endWith(RuntimeException status) {
    draining.remove(drain);
    if (!ended) {
      ended = true;
      try {
        out.onError(status);
      } catch (RuntimeException ignored) {
        // already cancelled
      }
    }
  }

  private void gone() {
    ended = true;
    draining.remove(drain);
    if (group != null) {
      group.disconnect(member, this);
    }
  }

  @Override
  public void onError(Throwable t) {
    gone();
  }

  @Override
  public void onCompleted() {
    draining.remove(drain);
    AckGroup g = group;
    if (g != null) {
      synchronized (g) {
        if (!ended) {
          ended = true;
          out.onCompleted();
        }
      }
      g.disconnect(member, this);
    } else if (!ended) {
      ended = true;
      out.onCompleted();
    }
  }
}
