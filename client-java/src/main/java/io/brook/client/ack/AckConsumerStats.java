package io.brook.client.ack;

/**
 * Counters of one {@link AckConsumer} since it was created, as the client saw them.
 *
 * @param receivedRecords records the broker leased to this consumer (each delivery counts)
 * @param redeliveredRecords of those, deliveries with an attempt count above 1
 * @param settlesQueued acks, nacks, rejects and lease extensions the application asked for
 * @param settleMessages stream messages that carried settles (several settles travel in one)
 * @param settleCalls unary {@code Settle} calls ({@link AckConsumer#flush()} and close)
 * @param settleFailures settle failures the broker reported
 * @param reconnects streams opened again after one broke
 */
public record AckConsumerStats(long receivedRecords, long redeliveredRecords, long settlesQueued, long settleMessages,
    long settleCalls, long settleFailures, long reconnects) {}
