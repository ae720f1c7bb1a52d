package io.brook.broker.kafka.apis;

import io.brook.broker.core.TopicAdmin;
import io.brook.broker.core.TopicInfo;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.kafka.access.KafkaCaller;
import io.brook.broker.kafka.apis.KafkaErrors.Failure;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData.DeleteTopicState;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResultCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** DeleteTopics, by name (every version) or by topic id (v6+), through the core's delete. */
public final class DeleteTopicsApi implements KafkaApi {
  private final TopicAdmin admin;

  public DeleteTopicsApi(TopicAdmin admin) {
    this.admin = admin;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.DELETE_TOPICS;
  }

  @Override
  public short minVersion() {
    return 1;
  }

  @Override
  public short maxVersion() {
    return 6;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    DeleteTopicsRequestData body = (DeleteTopicsRequestData) request.body();
    List<DeleteTopicState> asked = new ArrayList<>();
    if (request.apiVersion() >= 6) {
      asked.addAll(body.topics());
    } else {
      body.topicNames().forEach(n -> asked.add(new DeleteTopicState().setName(n)));
    }
    DeletableTopicResultCollection results = new DeletableTopicResultCollection();
    for (DeleteTopicState t : asked) {
      results.add(delete(t, request.caller()));
    }
    return CompletableFuture.completedFuture(new DeleteTopicsResponseData().setThrottleTimeMs(0)
        .setResponses(results));
  }

  private DeletableTopicResult delete(DeleteTopicState t, KafkaCaller caller) {
    boolean byId = !Uuid.ZERO_UUID.equals(t.topicId());
    if (byId && t.name() != null) {
      return failed(t.name(), t.topicId(), new Failure(Errors.INVALID_REQUEST,
          "name a topic by its name or by its id, not both"));
    }
    String name = t.name();
    if (byId) {
      TopicInfo found = admin.describe(TopicIds.toBrook(t.topicId()));
      if (found == null) {
        return failed(null, t.topicId(), new Failure(Errors.UNKNOWN_TOPIC_ID, "no topic has id " + t.topicId()));
      }
      name = found.name();
    }
    if (!caller.adminTopic(name)) { // by name whether it exists or not
      // By id, the name stays unsaid, in the message too: the id is not secret, the name is.
      return failed(byId ? null : name, t.topicId(), Unauthorized.topic(caller, "admin", byId ? "id " + t.topicId()
          : name));
    }
    try {
      Uuid id = TopicIds.toKafka(admin.describe(name).id());
      admin.delete(name);
      return new DeletableTopicResult().setName(name).setTopicId(id).setErrorCode(Errors.NONE.code());
    } catch (BrokerException e) {
      return failed(name, t.topicId(), KafkaErrors.of(e).invalidRequestAs(Errors.INVALID_TOPIC_EXCEPTION));
    }
  }

  private static DeletableTopicResult failed(String name, Uuid id, Failure f) {
    return new DeletableTopicResult().setName(name).setTopicId(id).setErrorCode(f.code())
        .setErrorMessage(f.message());
  }
}
