package io.brook.broker.api;

import io.brook.broker.errors.BrokerException;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.TopicManager;
import io.brook.protocol.v1.FetchPartition;
import io.brook.protocol.v1.FetchRequest;
import io.brook.protocol.v1.FetchResponse;
import io.brook.protocol.v1.FetchServiceGrpc;
import io.brook.protocol.v1.ListOffsetsRequest;
import io.brook.protocol.v1.ListOffsetsResponse;
import io.brook.protocol.v1.OffsetAnswer;
import io.brook.protocol.v1.OffsetQuery;
import io.brook.protocol.v1.PartitionRecords;
import io.brook.protocol.v1.TailRequest;
import io.brook.protocol.v1.TailResponse;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;

/** brook.v1.FetchService: reads by offset, long polls, tails. */
public final class FetchGrpcService extends FetchServiceGrpc.FetchServiceImplBase {
  private final TopicManager topics;
  private final ApiSettings settings;
  private final OutboundAccounts accounts;

  public FetchGrpcService(TopicManager topics, ApiSettings settings, OutboundAccounts accounts) {
    this.topics = topics;
    this.settings = settings;
    this.accounts = accounts;
  }

  @Override
  public void fetch(FetchRequest request, StreamObserver<FetchResponse> out) {
    ServerCallStreamObserver<FetchResponse> call = (ServerCallStreamObserver<FetchResponse>) out;
    int maxRecords;
    int maxBytes;
    try {
      if (request.getPartitionsCount() == 0) {
        throw Errors.invalid("a fetch needs at least one partition");
      }
      if (request.getMaxWaitMs() < 0) {
        throw Errors.invalid("max_wait_ms must be >= 0, got " + request.getMaxWaitMs());
      }
      maxRecords = FetchLimits.maxRecords(request.getMaxRecords());
      maxBytes = FetchLimits.maxBytes(request.getMaxBytes());
    } catch (RuntimeException e) {
      call.onError(Errors.toStatus(e));
      return;
    }
    new FetchCall(this, request, call, maxRecords, maxBytes, settings, accounts.current()).start();
  }

  /** The partitions to wait on for a long poll, or null when one of them is gone. */
  List<Partition> partitionsOf(FetchRequest request) {
    List<Partition> waitOn = new ArrayList<>();
    try {
      for (FetchPartition fp : request.getPartitionsList()) {
        waitOn.add(topics.get(fp.getTopic()).partition(fp.getPartition()));
      }
    } catch (RuntimeException e) { // deleted since the read
      return null;
    }
    return waitOn;
  }

  static boolean hasRecordsOrErrors(FetchResponse r) {
    for (PartitionRecords p : r.getPartitionsList()) {
      if (p.getRecordsCount() > 0 || p.getBatchesCount() > 0 || p.getErrorCodeValue() != 0) {
        return true;
      }
    }
    return false;
  }

  /** Reads every requested partition once, sharing the record, byte and size limits in request order. */
  FetchResponse read(FetchRequest request, int maxRecords, int maxBytes) {
    FetchResponse.Builder response = FetchResponse.newBuilder();
    RecordsAnswer answer = new RecordsAnswer(maxRecords, maxBytes);
    for (FetchPartition fp : request.getPartitionsList()) {
      answer.partition();
      PartitionRecords.Builder pr = PartitionRecords.newBuilder()
          .setTopic(fp.getTopic()).setPartition(fp.getPartition()).setNextOffset(fp.getOffset());
      try {
        Partition p = topics.get(fp.getTopic()).partition(fp.getPartition());
        pr.setLogStartOffset(p.startOffset()).setEndOffset(p.endOffset());
        if (answer.hasRoom()) {
          if (request.getRawBatches()) {
            answer.addBatches(p, fp.getOffset(), pr);
          } else {
            answer.addRecords(p, fp.getOffset(), pr);
          }
          pr.setEndOffset(Math.max(p.endOffset(), pr.getNextOffset()));
        }
      } catch (BrokerException e) {
        pr.setErrorCode(Errors.code(e.error())).setErrorMessage(e.getMessage());
      }
      response.addPartitions(pr);
    }
    return response.build();
  }

  @Override
  public void tail(TailRequest request, StreamObserver<TailResponse> out) {
    ServerCallStreamObserver<TailResponse> call = (ServerCallStreamObserver<TailResponse>) out;
    TailSession session;
    try {
      session = TailSession.open(topics, request, call, settings, accounts.current());
    } catch (RuntimeException e) {
      call.onError(Errors.toStatus(e));
      return;
    }
    session.start();
  }

  @Override
  public void listOffsets(ListOffsetsRequest request, StreamObserver<ListOffsetsResponse> out) {
    if (request.getQueriesCount() == 0) {
      out.onError(Errors.invalid("list offsets needs at least one query"));
      return;
    }
    ListOffsetsResponse.Builder response = ListOffsetsResponse.newBuilder();
    for (OffsetQuery q : request.getQueriesList()) {
      OffsetAnswer.Builder a = OffsetAnswer.newBuilder().setTopic(q.getTopic()).setPartition(q.getPartition());
      try {
        Partition p = topics.get(q.getTopic()).partition(q.getPartition());
        a.setOffset(Positions.resolve(p, q.hasPosition() ? q.getPosition() : null, p.endOffset()))
            .setLogStartOffset(p.startOffset())
            .setEndOffset(p.endOffset());
      } catch (BrokerException e) {
        a.setErrorCode(Errors.code(e.error())).setErrorMessage(e.getMessage());
      }
      response.addAnswers(a);
    }
    out.onNext(response.build());
    out.onCompleted();
  }
}
