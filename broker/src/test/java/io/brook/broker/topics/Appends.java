package io.brook.broker.topics;

import io.brook.broker.records.IncomingBatch;
import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.AppendResult;
import io.brook.broker.topics.BatchValidator.ValidatedBatch;
import java.util.ArrayList;
import java.util.List;

/** Tests append listed records the way produce does: through the validator, then to the partition. */
public final class Appends {
  private static final BatchValidator VALIDATOR = new BatchValidator(10_000);

  private Appends() {}

  /** {@code records} checked against {@code p}'s topic; a timestamp of -1 stands for "none given". */
  public static ValidatedBatch valid(Partition p, List<LogRecord> records) {
    List<LogRecord> sent = new ArrayList<>(records.size());
    for (LogRecord r : records) {
      sent.add(r.timestamp() != -1 ? r
          : LogRecord.of(r.key(), r.value(), IncomingBatch.Listed.NO_TIMESTAMP, r.headers()));
    }
    return VALIDATOR.validate(p.topic(), p.name(), new IncomingBatch.Listed(sent));
  }

  public static AppendResult append(Partition p, List<LogRecord> records) {
    return p.append(valid(p, records), System.currentTimeMillis());
  }
}
