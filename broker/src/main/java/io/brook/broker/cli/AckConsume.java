package io.brook.broker.cli;

import io.brook.protocol.v1.AckServiceGrpc;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.CreateGroupRequest;
import io.brook.protocol.v1.DescribeTopicRequest;
import io.brook.protocol.v1.FlowControl;
import io.brook.protocol.v1.GroupMode;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.LeasedRecord;
import io.brook.protocol.v1.LeasedRecords;
import io.brook.protocol.v1.Nack;
import io.brook.protocol.v1.OffsetRange;
import io.brook.protocol.v1.ReceiveRequest;
import io.brook.protocol.v1.ReceiveResponse;
import io.brook.protocol.v1.SettleFailure;
import io.brook.protocol.v1.SettleRequest;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * {@code brook consume TOPIC --group G --ack}: one ack-mode member on an {@code AckService.Receive}
 * stream. Each batch the broker leases is printed, then settled in one message: acked as offset
 * ranges, except every --nack-every'th delivered record, which is nacked so that it comes again.
 * Stops after --max records, after --idle-ms without a record (without --follow), or on Ctrl-C; it
 * then half-closes the stream and waits for the broker to end it, so every ack is applied (and its
 * failures reported) before the process exits.
 */
final class AckConsume implements ClientResponseObserver<ReceiveRequest, ReceiveResponse> {
  private static final Object COMPLETED = new Object();
  private static final Object WAKE = new Object();
  private static final long DEFAULT_IDLE_MS = 2000;
  private static final long END_WAIT_S = 10;

  private final ConsumeCommand c;
  private final BlockingQueue<Object> events = new LinkedBlockingQueue<>();
  private ClientCallStreamObserver<ReceiveRequest> requests;
  private String memberId;
  private long failures;
  /** Records leased to this stream after it stopped printing (they arrive while it ends). */
  private final Settlement unprinted = new Settlement();

  AckConsume(ConsumeCommand command) {
    this.c = command;
  }

  int run() throws Exception {
    RecordFormat format = new RecordFormat(c.format);
    ManagedChannel channel = BrokerOption.channel();
    OutputStream out = new BufferedOutputStream(System.out, 1 << 16);
    try (StopSignal stop = new StopSignal(() -> events.add(WAKE), 15)) {
      AdminServiceGrpc.newBlockingStub(channel).describeTopic(DescribeTopicRequest.newBuilder().setName(c.topic).build());
      if (c.from != null) {
        createGroup(channel);
      }
      AckServiceGrpc.newStub(channel).receive(this);
      requests.onNext(ReceiveRequest.newBuilder().setGroup(c.group).addTopics(c.topic)
          .setClientId(c.clientId == null ? "" : c.clientId)
          .setFlowControl(FlowControl.newBuilder().setMaxOutstandingRecords(maxOutstanding())).build());
      boolean ended = receive(format, out, stop);
      out.flush();
      requests.onCompleted();
      if (!ended) {
        awaitEnd();
      }
      if (!unprinted.isEmpty() && c.clientId != null && memberId != null) {
        // This member's leases outlive the stream: hand back what it never printed, now.
        AckServiceGrpc.AckServiceBlockingStub settle = AckServiceGrpc.newBlockingStub(channel)
            .withDeadlineAfter(10, TimeUnit.SECONDS);
        report(settle.settle(SettleRequest.newBuilder().setGroup(c.group).setMemberId(memberId)
            .addAllNacks(unprinted.nacks()).build()).getFailuresList());
      }
      if (failures > 0) {
        throw new CliException(failures + (failures == 1 ? " settlement was" : " settlements were")
            + " not applied (see above)", BrookCli.EXIT_REFUSED);
      }
      return 0;
    } finally {
      out.flush();
      if (requests != null) {
        requests.cancel("brook consume ended", null); // no effect once the stream has ended
      }
      BrokerOption.close(channel);
    }
  }

  /** With --from: create the group in ack mode with that auto.offset.reset, unless it exists. */
  private void createGroup(ManagedChannel channel) {
    try {
      GroupServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
          .createGroup(CreateGroupRequest.newBuilder().setGroup(c.group).setMode(GroupMode.GROUP_MODE_ACK)
              .putConfig("auto.offset.reset", c.from).build());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.ALREADY_EXISTS) {
        throw e;
      }
    }
  }

  private long maxOutstanding() {
    if (c.maxOutstanding != null) {
      return c.maxOutstanding;
    }
    return c.max == null ? 0 : Math.max(1, Math.min(1000, c.max)); // 0: the broker's default
  }

  /** Prints and settles until done; answers whether the broker already ended the stream. */
  private boolean receive(RecordFormat format, OutputStream out, StopSignal stop) throws Exception {
    long idleNanos = TimeUnit.MILLISECONDS.toNanos(c.idleMs == null ? DEFAULT_IDLE_MS : c.idleMs);
    long lastRecord = System.nanoTime();
    long printed = 0;
    long delivered = 0;
    while (!stop.stopping() && (c.max == null || printed < c.max)) {
      long waitNanos = c.follow ? TimeUnit.SECONDS.toNanos(1) : lastRecord + idleNanos - System.nanoTime();
      Object event = events.poll(Math.max(0, waitNanos), TimeUnit.NANOSECONDS);
      if (event == null) {
        if (!c.follow && System.nanoTime() - lastRecord >= idleNanos) {
          return false; // idle, and every record received is settled already
        }
        continue;
      }
      if (event == WAKE) {
        continue;
      }
      if (event == COMPLETED) {
        System.err.println("brook: the broker ended the stream");
        return true;
      }
      if (event instanceof Throwable t) {
        throw Status.fromThrowable(t).asRuntimeException();
      }
      ReceiveResponse response = (ReceiveResponse) event;
      noteMemberId(response);
      report(response.getFailuresList());
      Settlement settlement = new Settlement();
      for (LeasedRecords batch : response.getBatchesList()) {
        for (LeasedRecord leased : batch.getRecordsList()) {
          long offset = leased.getRecord().getOffset();
          if (c.max != null && printed >= c.max) {
            settlement.nack(batch.getTopic(), batch.getPartition(), offset, 0); // not printed: for another member
            continue;
          }
          format.write(batch.getPartition(), leased.getRecord(), leased.getDeliveryAttempt(), out);
          printed++;
          delivered++;
          if (c.nackEvery != null && delivered % c.nackEvery == 0) {
            settlement.nack(batch.getTopic(), batch.getPartition(), offset, c.nackDelayMs == null ? 0 : c.nackDelayMs);
          } else {
            settlement.ack(batch.getTopic(), batch.getPartition(), offset);
          }
        }
        if (batch.getRecordsCount() > 0) {
          lastRecord = System.nanoTime();
        }
      }
      out.flush(); // printed first, then settled: at least once
      if (!settlement.isEmpty()) {
        requests.onNext(ReceiveRequest.newBuilder().addAllAcks(settlement.acks()).addAllNacks(settlement.nacks())
            .build());
      }
    }
    return false;
  }

  /** After the half-close: the broker applies what was sent, reports failures, and ends the stream. */
  private void awaitEnd() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(END_WAIT_S);
    while (true) {
      Object event = events.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      if (event == null) {
        System.err.println("brook: the broker did not end the stream within " + END_WAIT_S + " s of its close; "
            + "the last acks may not have been applied");
        failures++;
        return;
      }
      if (event == COMPLETED) {
        return;
      }
      if (event instanceof Throwable t) {
        throw Status.fromThrowable(t).asRuntimeException();
      }
      if (event instanceof ReceiveResponse response) {
        noteMemberId(response);
        report(response.getFailuresList());
        for (LeasedRecords batch : response.getBatchesList()) {
          for (LeasedRecord leased : batch.getRecordsList()) {
            unprinted.nack(batch.getTopic(), batch.getPartition(), leased.getRecord().getOffset(), 0);
          }
        }
      }
    }
  }

  private void noteMemberId(ReceiveResponse response) {
    if (memberId == null && !response.getMemberId().isEmpty()) {
      memberId = response.getMemberId();
    }
  }

  private void report(List<SettleFailure> list) {
    for (SettleFailure f : list) {
      OffsetRange r = f.getRange();
      System.err.println("brook: settling " + r.getTopic() + ":" + r.getPartition() + " offset" + (r.hasLastOffset()
          && r.getLastOffset() != r.getFirstOffset() ? "s " + r.getFirstOffset() + ".." + r.getLastOffset()
          : " " + r.getFirstOffset()) + " failed: " + f.getErrorMessage() + " (" + f.getErrorCode() + ")");
      failures++;
    }
  }

  // --- the stream's answers, on gRPC's threads

  @Override
  public void beforeStart(ClientCallStreamObserver<ReceiveRequest> requestStream) {
    this.requests = requestStream;
  }

  @Override
  public void onNext(ReceiveResponse response) {
    events.add(response);
  }

  @Override
  public void onError(Throwable t) {
    events.add(t);
  }

  @Override
  public void onCompleted() {
    events.add(COMPLETED);
  }

  /** Acks and nacks of one batch, as ranges of consecutive offsets. */
  static final class Settlement {
    private final List<OffsetRange.Builder> acks = new ArrayList<>();
    private final List<Nack.Builder> nacks = new ArrayList<>();

    void ack(String topic, int partition, long offset) {
      OffsetRange.Builder last = acks.isEmpty() ? null : acks.get(acks.size() - 1);
      if (!extend(last, topic, partition, offset)) {
        acks.add(OffsetRange.newBuilder().setTopic(topic).setPartition(partition).setFirstOffset(offset));
      }
    }

    void nack(String topic, int partition, long offset, int delayMs) {
      Nack.Builder last = nacks.isEmpty() ? null : nacks.get(nacks.size() - 1);
      if (last == null || last.getDelayMs() != delayMs || !extend(last.getRangeBuilder(), topic, partition, offset)) {
        nacks.add(Nack.newBuilder().setDelayMs(delayMs)
            .setRange(OffsetRange.newBuilder().setTopic(topic).setPartition(partition).setFirstOffset(offset)));
      }
    }

    /** Grows the range by this offset when it is the next one of the same partition. */
    private static boolean extend(OffsetRange.Builder range, String topic, int partition, long offset) {
      if (range == null || !range.getTopic().equals(topic) || range.getPartition() != partition) {
        return false;
      }
      long last = range.hasLastOffset() ? range.getLastOffset() : range.getFirstOffset();
      if (offset != last + 1) {
        return false;
      }
      range.setLastOffset(offset);
      return true;
    }

    boolean isEmpty() {
      return acks.isEmpty() && nacks.isEmpty();
    }

    List<OffsetRange> acks() {
      return acks.stream().map(OffsetRange.Builder::build).toList();
    }

    List<Nack> nacks() {
      return nacks.stream().map(Nack.Builder::build).toList();
    }
  }
}
