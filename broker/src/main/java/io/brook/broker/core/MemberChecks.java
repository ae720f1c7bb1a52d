package io.brook.broker.core;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.TopicPatterns;
import io.brook.broker.topics.TopicName;
import java.util.List;

/**
 * What a joining member names, in either mode: a group, at least one topic (or, offset mode, a topic
 * pattern instead), a client id of sane length.
 */
final class MemberChecks {
  static final int MAX_CLIENT_ID = 255;

  private MemberChecks() {}

  /** @param call the call's name, for the message */
  static void check(String call, String group, List<String> topics, String clientId) {
    check(call, group, topics, "", clientId);
  }

  /**
   * As {@link #check(String, String, List, String)}, for a join that may subscribe by a topic pattern
   * (a Java regular expression) instead of topics.
   */
  static void check(String call, String group, List<String> topics, String topicPattern, String clientId) {
    TopicName.check("group", group);
    if (!topicPattern.isEmpty()) {
      checkPattern(call, topics, topicPattern);
    } else if (topics.isEmpty()) {
      throw invalid(call + " needs at least one topic");
    }
    topics.forEach(TopicName::check);
    if (clientId.length() > MAX_CLIENT_ID) {
      throw invalid("client_id is longer than " + MAX_CLIENT_ID + " characters");
    }
  }

  private static void checkPattern(String call, List<String> topics, String topicPattern) {
    if (!topics.isEmpty()) {
      throw invalid(call + " names both topics and a topic_pattern: set one, not both");
    }
    if (topicPattern.length() > TopicPatterns.MAX_LENGTH) {
      throw invalid("topic_pattern is " + topicPattern.length() + " characters long: at most "
          + TopicPatterns.MAX_LENGTH);
    }
    try {
      TopicPatterns.compile(topicPattern);
    } catch (IllegalArgumentException e) {
      throw invalid("topic_pattern '" + topicPattern + "' is not a valid (Java) regular expression: " + e.getMessage());
    }
  }

  static BrokerException invalid(String message) {
    return new BrokerException(BrokerError.INVALID_REQUEST, message);
  }
}
