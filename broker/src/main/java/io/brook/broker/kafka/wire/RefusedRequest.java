package io.brook.broker.kafka.wire;

/** A request the listener will not serve (unknown key, version out of range, malformed): the connection closes. */
final class RefusedRequest extends Exception {
  RefusedRequest(String message) {
    super(message, null, false, false); // expected, logged as one line: no stack trace
  }
}
