package io.brook.broker.groups;

/** A committed offset: the next offset to read, with the committer's metadata and time. */
public record CommittedOffset(long offset, String metadata, long timeMs) {}
