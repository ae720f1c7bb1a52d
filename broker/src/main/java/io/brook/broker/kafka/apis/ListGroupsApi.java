package io.brook.broker.kafka.apis;

import io.brook.broker.core.GroupListing;
import io.brook.broker.core.GroupService;
import io.brook.broker.groups.GroupMode;
import io.brook.broker.groups.GroupProtocol;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.kafka.access.KafkaCaller;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ListGroups: every group the caller has a permission on, whatever door its members use. Brook's
 * gRPC offset groups are listed as classic consumer groups (so Kafka's tools show their lag), ack
 * groups as share groups; the state and type filters compare without case, as Kafka's.
 */
public final class ListGroupsApi implements KafkaApi {
  private final GroupService groups;

  public ListGroupsApi(GroupService groups) {
    this.groups = groups;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.LIST_GROUPS;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 5;
  }

  /** Kafka's group type of a Brook group: "classic", "consumer" or "share". */
  static String type(GroupMode mode, GroupProtocol protocol) {
    if (mode == GroupMode.ACK) {
      return "share";
    }
    return protocol == GroupProtocol.CONSUMER ? "consumer" : "classic";
  }

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    ListGroupsRequestData body = (ListGroupsRequestData) request.body();
    Set<String> states = lower(request.apiVersion() >= 4 ? body.statesFilter() : List.of());
    Set<String> types = lower(request.apiVersion() >= 5 ? body.typesFilter() : List.of());
    KafkaCaller caller = request.caller();
    ListGroupsResponseData response = new ListGroupsResponseData().setThrottleTimeMs(0)
        .setErrorCode(Errors.NONE.code());
    for (GroupListing g : groups.list()) {
      String type = type(g.mode(), g.protocol());
      if (!caller.anyOnGroup(g.name())
          || (!states.isEmpty() && !states.contains(g.kafkaState().toLowerCase(Locale.ROOT)))
          || (!types.isEmpty() && !types.contains(type))) {
        continue;
      }
      response.groups().add(new ListedGroup().setGroupId(g.name()).setProtocolType(g.protocolType())
          .setGroupState(g.kafkaState()).setGroupType(type));
    }
    return CompletableFuture.completedFuture(response);
  }

  private static Set<String> lower(List<String> values) {
    return values.stream().map(v -> v.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
  }
}
