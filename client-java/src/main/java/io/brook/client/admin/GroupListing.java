package io.brook.client.admin;

/**
 * One line of {@link BrookAdmin#listGroups()}. {@code type}: how its members consume: "brook" (gRPC
 * offset mode), "classic" or "consumer" (Kafka's protocols), "ack", or "none" (offsets only).
 */
public record GroupListing(String name, GroupMode mode, GroupState state, int memberCount, String type) {}
