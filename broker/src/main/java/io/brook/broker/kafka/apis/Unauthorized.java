package io.brook.broker.kafka.apis;

import io.brook.broker.kafka.access.KafkaCaller;
import io.brook.broker.kafka.apis.KafkaErrors.Failure;
import org.apache.kafka.common.protocol.Errors;

/**
 * The refusals of a permission the caller lacks, in Kafka's codes and with gRPC's wording
 * ("principal alice lacks produce on topic orders"). A refused topic is refused whether it exists
 * or not, so a refusal never tells a caller what exists.
 */
public final class Unauthorized {
  private Unauthorized() {}

  /** TOPIC_AUTHORIZATION_FAILED, {@code permission} e.g. "produce", "admin", "any permission". */
  public static Failure topic(KafkaCaller caller, String permission, String topic) {
    return new Failure(Errors.TOPIC_AUTHORIZATION_FAILED, lacks(caller, permission + " on topic " + topic));
  }

  /** GROUP_AUTHORIZATION_FAILED. */
  public static Failure group(KafkaCaller caller, String permission, String group) {
    return new Failure(Errors.GROUP_AUTHORIZATION_FAILED, lacks(caller, permission + " on group " + group));
  }

  /** CLUSTER_AUTHORIZATION_FAILED, for what names no topic or group (InitProducerId). */
  public static Failure cluster(KafkaCaller caller, String what) {
    return new Failure(Errors.CLUSTER_AUTHORIZATION_FAILED, lacks(caller, what));
  }

  private static String lacks(KafkaCaller caller, String what) {
    return "principal " + caller.principal() + " lacks " + what;
  }
}
