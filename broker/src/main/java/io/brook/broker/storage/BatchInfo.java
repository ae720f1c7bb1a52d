package io.brook.broker.storage;

import io.brook.broker.records.ProducerStamp;

/** What a stored batch's header says, without its records: for rebuilding producer state. */
public record BatchInfo(long baseOffset, int recordCount, long appendTimeMs, ProducerStamp producer) {}
