package io.brook.broker.kafka.apis;

import io.brook.broker.core.FetchService;
import io.brook.broker.core.OffsetTimes;
import io.brook.broker.core.ProduceService;
import io.brook.broker.core.TopicAdmin;
import io.brook.broker.kafka.KafkaApi;
import java.util.List;

/** The metadata and admin APIs the Kafka listener registers, built on the core's services. */
public final class AdminApis {
  private AdminApis() {}

  /** @param autoCreate auto.create.topics.enable: Metadata creates the topics it is asked for */
  public static List<KafkaApi> all(TopicAdmin admin, FetchService fetch, OffsetTimes times, ProduceService produce,
      BrokerSettings broker, boolean autoCreate) {
    return List.of(
        new MetadataApi(admin, autoCreate),
        new DescribeClusterApi(),
        new CreateTopicsApi(admin),
        new DeleteTopicsApi(admin),
        new CreatePartitionsApi(admin),
        new DescribeConfigsApi(admin, broker),
        new IncrementalAlterConfigsApi(admin),
        new ListOffsetsApi(fetch, times),
        new InitProducerIdApi(produce));
  }
}
