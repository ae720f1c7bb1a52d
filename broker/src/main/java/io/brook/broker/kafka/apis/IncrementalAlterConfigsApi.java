package io.brook.broker.kafka.apis;

import io.brook.broker.core.GroupService;
import io.brook.broker.core.TopicAdmin;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.kafka.access.KafkaCaller;
import io.brook.broker.kafka.apis.KafkaErrors.Failure;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * IncrementalAlterConfigs on topics, validate-only too: SET and DELETE of the topic keys Brook can
 * change, all of one resource at once or none. APPEND and SUBTRACT (for list-valued keys, which Brook's
 * topics do not have) are INVALID_REQUEST; unknown keys and values Brook does not implement are
 * INVALID_CONFIG. The broker's own settings are fixed at start: altering them is INVALID_REQUEST.
 * GROUP resources (D66): Kafka's group keys on Brook's group config ({@link KafkaGroupConfigs}); setting
 * one on an absent group creates it as an ack group (a share group to Kafka), as Kafka keeps a group's
 * config before the group exists.
 */
public final class IncrementalAlterConfigsApi implements KafkaApi {
  private final TopicAdmin admin;
  private final GroupService groups;
  private final BrokerSettings broker;

  public IncrementalAlterConfigsApi(TopicAdmin admin, GroupService groups, BrokerSettings broker) {
    this.admin = admin;
    this.groups = groups;
    this.broker = broker;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.INCREMENTAL_ALTER_CONFIGS;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 1;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    IncrementalAlterConfigsRequestData body = (IncrementalAlterConfigsRequestData) request.body();
    List<AlterConfigsResourceResponse> responses = new ArrayList<>();
    for (AlterConfigsResource r : body.resources()) {
      AlterConfigsResourceResponse response = new AlterConfigsResourceResponse().setResourceType(r.resourceType())
          .setResourceName(r.resourceName());
      Failure f = alter(r, body.validateOnly(), request.caller());
      responses.add(f == null ? response.setErrorCode(Errors.NONE.code())
          : response.setErrorCode(f.code()).setErrorMessage(f.message()));
    }
    return CompletableFuture.completedFuture(new IncrementalAlterConfigsResponseData().setThrottleTimeMs(0)
        .setResponses(responses));
  }

  /** @return null when altered (or, validate-only, when it would be) */
  private Failure alter(AlterConfigsResource r, boolean validateOnly, KafkaCaller caller) {
    ConfigResource.Type type = ConfigResource.Type.forId(r.resourceType());
    if (type == ConfigResource.Type.BROKER) {
      return new Failure(Errors.INVALID_REQUEST, "the broker's settings are read at start (config file, "
          + "environment, flags) and cannot be altered at runtime");
    }
    if (type == ConfigResource.Type.GROUP) {
      if (!caller.adminGroup(r.resourceName())) {
        return Unauthorized.group(caller, "admin", r.resourceName());
      }
    } else if (type != ConfigResource.Type.TOPIC) {
      return new Failure(Errors.INVALID_REQUEST, "Brook alters configs of topics and groups only, not of resource "
          + "type " + type);
    } else if (!caller.adminTopic(r.resourceName())) {
      return Unauthorized.topic(caller, "admin", r.resourceName());
    }
    boolean group = type == ConfigResource.Type.GROUP;
    try {
      if (!group) {
        TopicAdmin.checkName(r.resourceName());
      }
    } catch (BrokerException e) {
      return new Failure(Errors.INVALID_TOPIC_EXCEPTION, e.getMessage());
    }
    Map<String, String> set = new LinkedHashMap<>();
    List<String> delete = new ArrayList<>();
    for (AlterableConfig c : r.configs()) {
      AlterConfigOp.OpType op = AlterConfigOp.OpType.forId(c.configOperation());
      if (op == AlterConfigOp.OpType.SET) {
        set.put(c.name(), c.value());
      } else if (op == AlterConfigOp.OpType.DELETE) {
        delete.add(c.name());
      } else {
        // Kafka answers INVALID_CONFIG for a group key (none is a list), INVALID_REQUEST for a topic's.
        return new Failure(group ? Errors.INVALID_CONFIG : Errors.INVALID_REQUEST, (op == null ? "operation "
            + c.configOperation() : op) + " on " + c.name() + " is not supported: Brook's " + (group ? "group" : "topic")
            + " configs take SET and DELETE only (no list-valued keys)");
      }
    }
    if (group) {
      return alterGroup(r.resourceName(), set, delete, validateOnly);
    }
    try {
      Map<String, String> brookSet = KafkaTopicConfigs.toBrook(set);
      List<String> brookDelete = KafkaTopicConfigs.toBrookRemovals(delete);
      if (validateOnly) {
        admin.checkAlterConfig(r.resourceName(), brookSet, brookDelete);
      } else if (!brookSet.isEmpty() || !brookDelete.isEmpty()) {
        admin.alterConfig(r.resourceName(), brookSet, brookDelete);
      } else {
        admin.describe(r.resourceName()); // only fixed keys at their value: nothing to write, the topic must exist
      }
      return null;
    } catch (Refused e) {
      return e.failure;
    } catch (BrokerException e) {
      return KafkaErrors.of(e).invalidRequestAs(Errors.INVALID_CONFIG);
    }
  }

  private Failure alterGroup(String group, Map<String, String> set, List<String> delete, boolean validateOnly) {
    try {
      KafkaGroupConfigs.Change c = KafkaGroupConfigs.toBrook(group, groups.configOf(group).mode(), set, delete, broker);
      if (!c.isEmpty()) {
        groups.configureAck(group, c.set(), c.remove(), validateOnly);
      }
      return null;
    } catch (Refused e) {
      return e.failure;
    } catch (BrokerException e) {
      return KafkaErrors.of(e).invalidRequestAs(Errors.INVALID_CONFIG);
    }
  }
}
