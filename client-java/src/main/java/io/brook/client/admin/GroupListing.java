package io.brook.client.admin;

/** One line of {@link BrookAdmin#listGroups()}. */
public record GroupListing(String name, GroupMode mode, GroupState state, int memberCount) {}
