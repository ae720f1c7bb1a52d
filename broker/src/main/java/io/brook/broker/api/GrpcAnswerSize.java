package io.brook.broker.api;

import io.brook.broker.core.AnswerSize;
import io.brook.broker.records.LogRecord;
import io.brook.protocol.v1.PartitionRecords;

/** How records and stored batches measure in a gRPC answer's PartitionRecords, against the {@link AnswerCap}. */
final class GrpcAnswerSize implements AnswerSize {
  static final GrpcAnswerSize INSTANCE = new GrpcAnswerSize();

  private GrpcAnswerSize() {}

  @Override
  public int capBytes() {
    return AnswerCap.BYTES;
  }

  @Override
  public int partitionOverhead() {
    return AnswerCap.PARTITION_OVERHEAD;
  }

  @Override
  public int recordSize(LogRecord r) {
    return RecordMapper.messageFieldSize(PartitionRecords.RECORDS_FIELD_NUMBER, RecordMapper.wireSize(r));
  }

  @Override
  public int batchSize(int length) {
    return AnswerCap.bytesFieldSize(PartitionRecords.BATCHES_FIELD_NUMBER, length);
  }
}
