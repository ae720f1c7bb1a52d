package io.brook.broker.api;

import com.google.protobuf.UnsafeByteOperations;
import io.brook.broker.core.FetchPosition;
import io.brook.broker.core.BatchForm;
import io.brook.broker.core.FetchQuery;
import io.brook.broker.core.FetchService;
import io.brook.broker.core.OffsetLookup;
import io.brook.broker.core.PartitionRead;
import io.brook.broker.records.LogRecord;
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

/** brook.v1.FetchService: the gRPC edge of the core's {@link FetchService} (reads by offset, long polls, tails). */
public final class FetchGrpcService extends FetchServiceGrpc.FetchServiceImplBase {
  private final FetchService fetch;
  private final ApiSettings settings;
  private final OutboundAccounts accounts;

  public FetchGrpcService(FetchService fetch, ApiSettings settings, OutboundAccounts accounts) {
    this.fetch = fetch;
    this.settings = settings;
    this.accounts = accounts;
  }

  @Override
  public void fetch(FetchRequest request, StreamObserver<FetchResponse> out) {
    ServerCallStreamObserver<FetchResponse> call = (ServerCallStreamObserver<FetchResponse>) out;
    FetchQuery query;
    try {
      if (request.getPartitionsCount() == 0) {
        throw Errors.invalid("a fetch needs at least one partition");
      }
      if (request.getMaxWaitMs() < 0) {
        throw Errors.invalid("max_wait_ms must be >= 0, got " + request.getMaxWaitMs());
      }
      List<FetchPosition> positions = new ArrayList<>(request.getPartitionsCount());
      for (FetchPartition fp : request.getPartitionsList()) {
        positions.add(new FetchPosition(fp.getTopic(), fp.getPartition(), fp.getOffset()));
      }
      query = new FetchQuery(positions, FetchLimits.maxRecords(request.getMaxRecords()),
          FetchLimits.maxBytes(request.getMaxBytes()), form(request), request.getMaxWaitMs());
    } catch (RuntimeException e) {
      call.onError(Errors.toStatus(e));
      return;
    }
    new FetchCall(fetch, query, call, settings, accounts.current()).start();
  }

  /**
   * Records, or raw batches in the versions the client reads: max_batch_version unset, 0 or 1 is a
   * client from before version 2 existed, which gets version 1 (a version 2 batch converted for it);
   * 2 or more gets the batches as they are stored (D46).
   */
  static BatchForm form(FetchRequest request) {
    if (!request.getRawBatches()) {
      return BatchForm.RECORDS;
    }
    return Integer.compareUnsigned(request.getMaxBatchVersion(), 2) >= 0 ? BatchForm.STORED_AS_IS
        : BatchForm.STORED_V1;
  }

  /** The core's reads as a FetchResponse. */
  static FetchResponse toWire(List<PartitionRead> reads) {
    FetchResponse.Builder response = FetchResponse.newBuilder();
    reads.forEach(r -> response.addPartitions(toWire(r)));
    return response.build();
  }

  /** One partition's read as its PartitionRecords; stored batches are wrapped, not copied. */
  static PartitionRecords toWire(PartitionRead r) {
    PartitionRecords.Builder pr = PartitionRecords.newBuilder().setTopic(r.topic()).setPartition(r.partition())
        .setNextOffset(r.nextOffset()).setLogStartOffset(r.logStartOffset()).setEndOffset(r.endOffset());
    for (LogRecord record : r.records()) {
      pr.addRecords(RecordMapper.toWire(record));
    }
    for (byte[] batch : r.batches()) {
      pr.addBatches(UnsafeByteOperations.unsafeWrap(batch));
    }
    if (r.error() != null) {
      pr.setErrorCode(Errors.code(r.error())).setErrorMessage(r.errorMessage());
    }
    return pr.build();
  }

  @Override
  public void tail(TailRequest request, StreamObserver<TailResponse> out) {
    ServerCallStreamObserver<TailResponse> call = (ServerCallStreamObserver<TailResponse>) out;
    TailSession session;
    try {
      session = TailSession.open(fetch, request, call, settings, accounts.current());
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
      OffsetLookup found = fetch.listOffset(q.getTopic(), q.getPartition(),
          Positions.toCore(q.hasPosition() ? q.getPosition() : null));
      OffsetAnswer.Builder a = OffsetAnswer.newBuilder().setTopic(found.topic()).setPartition(found.partition())
          .setOffset(found.offset()).setLogStartOffset(found.logStartOffset()).setEndOffset(found.endOffset());
      if (found.error() != null) {
        a.setErrorCode(Errors.code(found.error())).setErrorMessage(found.errorMessage());
      }
      response.addAnswers(a);
    }
    out.onNext(response.build());
    out.onCompleted();
  }
}
