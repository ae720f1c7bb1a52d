package io.brook.broker.api;

/** Per-answer limits with their defaults: under gRPC's default 4 MiB inbound limit of clients. */
final class FetchLimits {
  static final int DEFAULT_MAX_RECORDS = 10_000;
  static final int DEFAULT_MAX_BYTES = 1 << 20;
  /** Hard cap: an answer must stay under the clients' 4 MiB default message limit. */
  static final int CAP_MAX_BYTES = 3 << 20;

  private FetchLimits() {}

  static int maxRecords(int requested) {
    if (requested < 0) {
      throw Errors.invalid("max_records must be >= 0, got " + requested);
    }
    return requested == 0 ? DEFAULT_MAX_RECORDS : requested;
  }

  static int maxBytes(int requested) {
    if (requested < 0) {
      throw Errors.invalid("max_bytes must be >= 0, got " + requested);
    }
    return requested == 0 ? DEFAULT_MAX_BYTES : Math.min(requested, CAP_MAX_BYTES);
  }
}
