package io.brook.broker.core;

import java.util.List;

/**
 * One produce request as the core takes it from any door.
 *
 * @param caller the principal sending it (null with auth off): it may use only its own producer ids
 * @param synced answer only once what was written is forced to the device (SYNCED durability)
 * @param producer the idempotent producer sending it, or null
 */
public record ProduceCall(String caller, List<BatchToAppend> batches, boolean synced, Producer producer) {
  public ProduceCall {
    batches = List.copyOf(batches);
  }

  /** An idempotent producer's identity, as InitProducer handed it out. */
  public record Producer(long id, short epoch) {}
}
