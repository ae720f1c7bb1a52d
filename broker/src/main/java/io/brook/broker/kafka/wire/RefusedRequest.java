package io.brook.broker.kafka.wire;

/**
 * A request the listener will not serve (unknown key, version out of range, malformed): the
 * connection closes, with one log line and a count by {@link #reason}.
 */
final class RefusedRequest extends Exception {
  final String reason;

  /** @param reason the metric's label: unknown_api, unsupported_version or malformed */
  RefusedRequest(String reason, String message) {
    super(message, null, false, false); // expected, logged as one line: no stack trace
    this.reason = reason;
  }
}
