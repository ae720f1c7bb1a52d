package io.brook.broker.core;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.topics.TopicName;
import java.util.List;

/** What a joining member names, in either mode: a group, at least one topic, a client id of sane length. */
final class MemberChecks {
  static final int MAX_CLIENT_ID = 255;

  private MemberChecks() {}

  /** @param call the call's name, for the message */
  static void check(String call, String group, List<String> topics, String clientId) {
    TopicName.check("group", group);
    if (topics.isEmpty()) {
      throw invalid(call + " needs at least one topic");
    }
    topics.forEach(TopicName::check);
    if (clientId.length() > MAX_CLIENT_ID) {
      throw invalid("client_id is longer than " + MAX_CLIENT_ID + " characters");
    }
  }

  static BrokerException invalid(String message) {
    return new BrokerException(BrokerError.INVALID_REQUEST, message);
  }
}
