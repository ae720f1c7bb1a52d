package io.brook.broker.api;

import com.google.protobuf.UnsafeByteOperations;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.storage.BatchReadResult;
import io.brook.broker.storage.LogRecord;
import io.brook.broker.storage.ReadResult;
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

  public FetchGrpcService(TopicManager topics, ApiSettings settings) {
    this.topics = topics;
    this.settings = settings;
  }

  @Override
  public void fetch(FetchRequest request, StreamObserver<FetchResponse> out) {
    ServerCallStreamObserver<FetchResponse> call = (ServerCallStreamObserver<FetchResponse>) out;
    FetchResponse first;
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
      first = read(request, maxRecords, maxBytes);
    } catch (RuntimeException e) {
      call.onError(Errors.toStatus(e));
      return;
    }
    long waitMs = Math.min(request.getMaxWaitMs(), settings.fetchMaxWaitMs());
    if (waitMs == 0 || hasRecordsOrErrors(first)) {
      call.onNext(first);
      call.onCompleted();
      return;
    }
    List<Partition> waitOn = new ArrayList<>();
    List<Long> offsets = new ArrayList<>();
    try {
      for (FetchPartition fp : request.getPartitionsList()) {
        waitOn.add(topics.get(fp.getTopic()).partition(fp.getPartition()));
        offsets.add(fp.getOffset());
      }
    } catch (RuntimeException e) { // deleted since the read: answer what the read found
      call.onNext(first);
      call.onCompleted();
      return;
    }
    LongPoll poll = new LongPoll(() -> {
      if (call.isCancelled()) {
        return;
      }
      try {
        call.onNext(read(request, maxRecords, maxBytes));
        call.onCompleted();
      } catch (RuntimeException e) {
        call.onError(Errors.toStatus(e));
      }
    }, settings);
    call.setOnCancelHandler(poll::cancel);
    poll.start(waitOn, offsets, waitMs);
  }

  private static boolean hasRecordsOrErrors(FetchResponse r) {
    for (PartitionRecords p : r.getPartitionsList()) {
      if (p.getRecordsCount() > 0 || p.getBatchesCount() > 0 || p.getErrorCodeValue() != 0) {
        return true;
      }
    }
    return false;
  }

  /** What an answer has taken so far of its record and byte limits. */
  private static final class Taken {
    int records;
    int bytes;
  }

  /** Reads every requested partition once, sharing the record and byte budget in request order. */
  private FetchResponse read(FetchRequest request, int maxRecords, int maxBytes) {
    FetchResponse.Builder response = FetchResponse.newBuilder();
    Taken taken = new Taken();
    for (FetchPartition fp : request.getPartitionsList()) {
      PartitionRecords.Builder pr = PartitionRecords.newBuilder()
          .setTopic(fp.getTopic()).setPartition(fp.getPartition()).setNextOffset(fp.getOffset());
      try {
        Partition p = topics.get(fp.getTopic()).partition(fp.getPartition());
        pr.setLogStartOffset(p.startOffset()).setEndOffset(p.endOffset());
        if (taken.records < maxRecords && (taken.bytes < maxBytes || taken.records == 0)) {
          if (request.getRawBatches()) {
            addBatches(p, fp.getOffset(), pr, taken, maxRecords, maxBytes);
          } else {
            addRecords(p, fp.getOffset(), pr, taken, maxRecords, maxBytes);
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

  private static void addRecords(Partition p, long offset, PartitionRecords.Builder pr, Taken taken, int maxRecords,
      int maxBytes) {
    ReadResult rr = p.read(offset, maxRecords - taken.records,
        taken.records == 0 ? maxBytes : maxBytes - taken.bytes);
    long next = offset;
    int bytesBefore = taken.bytes;
    for (LogRecord r : rr.records()) {
      // "At least one record" holds for the answer, not for each partition: a partition
      // read after others must not push the answer past max_bytes.
      if (taken.records > 0 && taken.bytes + r.payloadSize() > maxBytes) {
        break;
      }
      pr.addRecords(RecordMapper.toWire(r));
      taken.bytes += r.payloadSize();
      taken.records++;
      next = r.offset() + 1;
    }
    pr.setNextOffset(next);
    p.topic().traffic().fetched(pr.getRecordsCount(), taken.bytes - bytesBefore);
  }

  /** Raw batches: the stored bytes go out as they are, wrapped without a copy; the client decodes them. */
  private static void addBatches(Partition p, long offset, PartitionRecords.Builder pr, Taken taken, int maxRecords,
      int maxBytes) {
    BatchReadResult br = p.readBatches(offset, maxRecords - taken.records, maxBytes - taken.bytes,
        taken.records == 0);
    for (byte[] batch : br.batches()) {
      pr.addBatches(UnsafeByteOperations.unsafeWrap(batch));
    }
    int records = (int) (br.nextOffset() - offset);
    taken.records += records;
    taken.bytes += br.bytes();
    pr.setNextOffset(br.nextOffset());
    p.topic().traffic().fetched(records, br.bytes());
  }

  @Override
  public void tail(TailRequest request, StreamObserver<TailResponse> out) {
    ServerCallStreamObserver<TailResponse> call = (ServerCallStreamObserver<TailResponse>) out;
    TailSession session;
    try {
      session = TailSession.open(topics, request, call, settings);
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
