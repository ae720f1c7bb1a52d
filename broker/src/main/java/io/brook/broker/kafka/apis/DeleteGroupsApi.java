package io.brook.broker.kafka.apis;

import io.brook.broker.core.GroupService;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.MemberFaultException;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResultCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DeleteGroups: each group with no members goes with its offsets, as gRPC's DeleteGroup; a group
 * with members is NON_EMPTY_GROUP, an unknown one GROUP_ID_NOT_FOUND. Needs admin on the group.
 */
public final class DeleteGroupsApi implements KafkaApi {
  private final GroupService groups;

  public DeleteGroupsApi(GroupService groups) {
    this.groups = groups;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.DELETE_GROUPS;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 2;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    DeleteGroupsRequestData body = (DeleteGroupsRequestData) request.body();
    DeletableGroupResultCollection results = new DeletableGroupResultCollection();
    for (String group : body.groupsNames()) {
      if (results.find(group) != null) {
        continue; // named twice: one answer (the response is keyed by group)
      }
      results.add(new DeletableGroupResult().setGroupId(group).setErrorCode(delete(request, group).code()));
    }
    return CompletableFuture.completedFuture(new DeleteGroupsResponseData().setThrottleTimeMs(0).setResults(results));
  }

  private Errors delete(KafkaRequest request, String group) {
    if (group.isEmpty()) {
      return Errors.INVALID_GROUP_ID;
    }
    if (!request.caller().adminGroup(group)) {
      return Errors.GROUP_AUTHORIZATION_FAILED;
    }
    try {
      groups.delete(group);
      return Errors.NONE;
    } catch (BrokerException | MemberFaultException e) {
      return GroupErrors.of(e).invalidRequestAs(Errors.INVALID_GROUP_ID).error();
    }
  }
}
