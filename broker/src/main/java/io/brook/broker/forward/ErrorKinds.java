package io.brook.broker.forward;

import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/** The kind of a failure to forward, as metrics and status count it: few, stable names. */
final class ErrorKinds {
  static final String TIMEOUT = "timeout";
  static final String AUTHENTICATION = "authentication";
  static final String AUTHORIZATION = "authorization";
  static final String UNKNOWN_TOPIC = "unknown_topic";
  static final String RECORD_TOO_LARGE = "record_too_large";
  static final String NETWORK = "network";
  static final String OTHER = "other";
  /** Not a failure of Kafka: records of a partition written after one that failed (D68). */
  static final String REORDERED = "reordered";

  private ErrorKinds() {}

  static String of(Throwable t) {
    Throwable e = unwrap(t);
    if (e instanceof TimeoutException || e instanceof java.util.concurrent.TimeoutException) {
      return TIMEOUT;
    }
    if (e instanceof AuthenticationException) {
      return AUTHENTICATION;
    }
    if (e instanceof AuthorizationException) {
      return AUTHORIZATION;
    }
    if (e instanceof UnknownTopicOrPartitionException) {
      return UNKNOWN_TOPIC;
    }
    if (e instanceof RecordTooLargeException) {
      return RECORD_TOO_LARGE;
    }
    if (e instanceof NetworkException || e instanceof java.io.IOException) {
      return NETWORK;
    }
    return OTHER;
  }

  /** One line for the log and the status: the cause's class and message, no stack trace. */
  static String describe(Throwable t) {
    Throwable e = unwrap(t);
    return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
  }

  private static Throwable unwrap(Throwable t) {
    Throwable e = t;
    while ((e instanceof ExecutionException || e instanceof java.util.concurrent.CompletionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }
}
