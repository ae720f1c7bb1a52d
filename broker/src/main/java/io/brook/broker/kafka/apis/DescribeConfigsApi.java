package io.brook.broker.kafka.apis;

import io.brook.broker.core.GroupService;
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
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsSynonym;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigSource;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigType;

/**
 * DescribeConfigs for TOPIC resources (Brook's topic configs under Kafka's names, see
 * {@link KafkaTopicConfigs}) and the BROKER resource (node 0, or "" for the cluster default: the
 * broker's own keys, all read-only, from its config file, environment or flags) and GROUP resources
 * (Kafka's group keys on Brook's group config, see {@link KafkaGroupConfigs}; an absent group has the
 * defaults, as in Kafka).
 */
public final class DescribeConfigsApi implements KafkaApi {
  private final TopicAdmin admin;
  private final BrokerSettings broker;
  private final GroupService groups;

  public DescribeConfigsApi(TopicAdmin admin, BrokerSettings broker, GroupService groups) {
    this.admin = admin;
    this.broker = broker;
    this.groups = groups;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.DESCRIBE_CONFIGS;
  }

  @Override
  public short minVersion() {
    return 1;
  }

  @Override
  public short maxVersion() {
    return 4;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    DescribeConfigsRequestData body = (DescribeConfigsRequestData) request.body();
    List<DescribeConfigsResult> results = new ArrayList<>();
    for (DescribeConfigsResource r : body.resources()) {
      DescribeConfigsResult result = new DescribeConfigsResult().setResourceType(r.resourceType())
          .setResourceName(r.resourceName());
      try {
        List<DescribeConfigsResourceResult> configs = configs(r, request.caller());
        for (DescribeConfigsResourceResult c : configs) {
          if (!body.includeSynonyms()) { // as Kafka: synonyms and documentation only when asked
            c.setSynonyms(new ArrayList<>());
          }
          if (!body.includeDocumentation()) {
            c.setDocumentation(null);
          }
        }
        if (r.configurationKeys() != null) {
          configs.removeIf(c -> !r.configurationKeys().contains(c.name()));
        }
        results.add(result.setErrorCode(Errors.NONE.code()).setConfigs(configs));
      } catch (Refused e) {
        results.add(result.setErrorCode(e.failure.code()).setErrorMessage(e.failure.message()));
      } catch (BrokerException e) {
        Failure f = KafkaErrors.of(e).invalidRequestAs(r.resourceType() == ConfigResource.Type.GROUP.id()
            ? Errors.INVALID_REQUEST : Errors.INVALID_TOPIC_EXCEPTION);
        results.add(result.setErrorCode(f.code()).setErrorMessage(f.message()));
      }
    }
    return CompletableFuture.completedFuture(new DescribeConfigsResponseData().setThrottleTimeMs(0)
        .setResults(results));
  }

  /** A topic's configs need any permission on it, as gRPC's DescribeTopic; the broker's, only authentication. */
  private List<DescribeConfigsResourceResult> configs(DescribeConfigsResource r, KafkaCaller caller) {
    ConfigResource.Type type = ConfigResource.Type.forId(r.resourceType());
    List<DescribeConfigsResourceResult> out = new ArrayList<>();
    if (type == ConfigResource.Type.TOPIC) {
      if (!caller.anyOnTopic(r.resourceName())) {
        throw new Refused(Unauthorized.topic(caller, "any permission", r.resourceName()));
      }
      if (ConsumerOffsetsTopic.is(r.resourceName())) {
        // Virtual, nothing to set; kafka-topics --describe asks every listed topic's configs and stops at an error.
        out.add(entry("cleanup.policy", "compact", true, ConfigSource.DEFAULT_CONFIG, ConfigType.LIST, false));
        return out;
      }
      TopicInfo t = admin.describe(r.resourceName());
      for (KafkaTopicConfigs.Entry e : KafkaTopicConfigs.describe(t)) {
        out.add(entry(e.name(), e.value(), e.readOnly(), e.source(), e.type(), false));
      }
      return out;
    }
    if (type == ConfigResource.Type.BROKER) {
      if (!r.resourceName().isEmpty() && !r.resourceName().equals("0")) {
        throw new Refused(new Failure(Errors.INVALID_REQUEST, "Brook is one node, broker 0: no broker "
            + r.resourceName()));
      }
      for (BrokerSettings.Setting s : broker.settings()) {
        out.add(entry(s.name(), s.value(), true, s.isDefault() ? ConfigSource.DEFAULT_CONFIG
            : ConfigSource.STATIC_BROKER_CONFIG, ConfigType.STRING, s.sensitive()));
      }
      return out;
    }
    if (type == ConfigResource.Type.GROUP) {
      if (!caller.anyOnGroup(r.resourceName())) {
        throw new Refused(Unauthorized.group(caller, "any permission", r.resourceName()));
      }
      for (KafkaGroupConfigs.Entry e : KafkaGroupConfigs.describe(groups.configOf(r.resourceName()), broker)) {
        DescribeConfigsResourceResult c = entry(e.name(), e.value(), e.readOnly(), e.source(), e.type(), false)
            .setDocumentation(e.doc());
        e.synonyms().forEach(s -> c.synonyms().add(new DescribeConfigsSynonym().setName(s.name())
            .setValue(s.value()).setSource(s.source().id())));
        out.add(c);
      }
      return out;
    }
    throw new Refused(new Failure(Errors.INVALID_REQUEST, "Brook describes configs of topics, groups and the "
        + "broker only, not of resource type " + type));
  }

  private static DescribeConfigsResourceResult entry(String name, String value, boolean readOnly,
      ConfigSource source, ConfigType type, boolean sensitive) {
    return new DescribeConfigsResourceResult().setName(name).setValue(value).setReadOnly(readOnly)
        .setConfigSource(source.id()).setIsSensitive(sensitive).setSynonyms(new ArrayList<>())
        .setConfigType(type.id()).setDocumentation(null);
  }
}
