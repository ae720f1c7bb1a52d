package io.brook.broker.core;

import io.brook.broker.groups.GroupMode;
import io.brook.broker.groups.GroupState;

/** A group as a list of groups shows it. */
public record GroupListing(String name, GroupMode mode, GroupState state, int memberCount) {}
