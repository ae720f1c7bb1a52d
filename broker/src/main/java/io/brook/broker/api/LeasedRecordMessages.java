package io.brook.broker.api;

import io.brook.broker.delivery.Delivery;
import io.brook.protocol.v1.LeasedRecord;
import io.brook.protocol.v1.LeasedRecords;
import io.brook.protocol.v1.ReceiveResponse;
import java.util.ArrayList;
import java.util.List;

/** Deliveries of an ack-mode group as Receive messages. */
final class LeasedRecordMessages {
  private LeasedRecordMessages() {}

  /** The deliveries as messages of at most the cap each (one record alone may be larger). */
  static List<ReceiveResponse> of(List<Delivery> deliveries) {
    List<ReceiveResponse> out = new ArrayList<>(1);
    ReceiveResponse.Builder b = ReceiveResponse.newBuilder();
    LeasedRecords.Builder current = null;
    int size = 0;
    int records = 0;
    for (Delivery d : deliveries) {
      LeasedRecord r = LeasedRecord.newBuilder().setRecord(RecordMapper.toWire(d.record()))
          .setDeliveryAttempt(d.attempt()).setLeaseDeadlineMs(d.leaseDeadlineMs()).build();
      int recordSize = AnswerCap.fieldSize(LeasedRecords.RECORDS_FIELD_NUMBER, r);
      boolean samePartition = current != null && current.getTopic().equals(d.topic())
          && current.getPartition() == d.partition();
      int added = recordSize + (samePartition ? 0 : AnswerCap.PARTITION_OVERHEAD);
      if (records > 0 && size + added > AnswerCap.BYTES) {
        b.addBatches(current);
        out.add(b.build());
        b = ReceiveResponse.newBuilder();
        current = null;
        size = 0;
        records = 0;
        samePartition = false;
        added = recordSize + AnswerCap.PARTITION_OVERHEAD;
      }
      if (!samePartition) {
        if (current != null) {
          b.addBatches(current);
        }
        current = LeasedRecords.newBuilder().setTopic(d.topic()).setPartition(d.partition());
      }
      current.addRecords(r);
      size += added;
      records++;
    }
    if (current != null) {
      b.addBatches(current);
      out.add(b.build());
    }
    return out;
  }
}
