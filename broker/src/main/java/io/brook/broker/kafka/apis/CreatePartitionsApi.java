package io.brook.broker.kafka.apis;

import io.brook.broker.core.TopicAdmin;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.kafka.access.KafkaCaller;
import io.brook.broker.kafka.apis.KafkaErrors.Failure;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsAssignment;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreatePartitionsResponseData.CreatePartitionsTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** CreatePartitions, validate-only too: grows a topic to a larger count (never shrinks) through the core. */
public final class CreatePartitionsApi implements KafkaApi {
  private final TopicAdmin admin;

  public CreatePartitionsApi(TopicAdmin admin) {
    this.admin = admin;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.CREATE_PARTITIONS;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 3;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    CreatePartitionsRequestData body = (CreatePartitionsRequestData) request.body();
    Map<String, Integer> asked = new HashMap<>();
    body.topics().forEach(t -> asked.merge(t.name(), 1, Integer::sum));
    List<CreatePartitionsTopicResult> results = new ArrayList<>();
    for (CreatePartitionsTopic t : body.topics()) {
      if (asked.get(t.name()) > 1) {
        results.add(failed(t.name(), new Failure(Errors.INVALID_REQUEST, "topic " + t.name()
            + " is named more than once")));
      } else {
        results.add(grow(t, body.validateOnly(), request.caller()));
      }
    }
    return CompletableFuture.completedFuture(new CreatePartitionsResponseData().setThrottleTimeMs(0)
        .setResults(results));
  }

  private CreatePartitionsTopicResult grow(CreatePartitionsTopic t, boolean validateOnly, KafkaCaller caller) {
    if (!caller.adminTopic(t.name())) {
      return failed(t.name(), Unauthorized.topic(caller, "admin", t.name()));
    }
    try {
      TopicAdmin.checkName(t.name());
    } catch (BrokerException e) {
      return failed(t.name(), new Failure(Errors.INVALID_TOPIC_EXCEPTION, e.getMessage()));
    }
    try {
      int current = admin.describe(t.name()).partitions().size();
      CreateTopicsApi.checkedCount(t.count());
      if (t.assignments() != null) {
        if (t.assignments().size() != t.count() - current) {
          throw new Refused(new Failure(Errors.INVALID_REPLICA_ASSIGNMENT, "give one assignment per new partition ("
              + Math.max(0, t.count() - current) + "), got " + t.assignments().size()));
        }
        int index = current;
        for (CreatePartitionsAssignment a : t.assignments()) {
          ReplicaAssignments.check(index, index++, a.brokerIds());
        }
      }
      if (validateOnly) {
        admin.checkCreatePartitions(t.name(), t.count());
      } else {
        admin.createPartitions(t.name(), t.count());
      }
      return new CreatePartitionsTopicResult().setName(t.name()).setErrorCode(Errors.NONE.code());
    } catch (Refused r) {
      return failed(t.name(), r.failure);
    } catch (BrokerException e) {
      return failed(t.name(), KafkaErrors.of(e).invalidRequestAs(Errors.INVALID_PARTITIONS));
    }
  }

  private static CreatePartitionsTopicResult failed(String name, Failure f) {
    return new CreatePartitionsTopicResult().setName(name).setErrorCode(f.code()).setErrorMessage(f.message());
  }
}
