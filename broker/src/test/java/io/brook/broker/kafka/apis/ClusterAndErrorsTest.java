package io.brook.broker.kafka.apis;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.errors.BrokerError;
import java.nio.file.Path;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterAndErrorsTest {
  @TempDir Path dir;

  @Test
  void describeClusterNamesTheOneNodeAsBrokerAndController() throws Exception {
    try (KafkaCore core = new KafkaCore(dir)) {
      for (short v = 0; v <= 2; v++) {
        DescribeClusterResponseData r = core.call(ApiKeys.DESCRIBE_CLUSTER, v, new DescribeClusterRequestData());
        assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(r.clusterId()).isEqualTo(KafkaCore.NODE.clusterId());
        assertThat(r.controllerId()).isZero();
        assertThat(r.brokers()).singleElement().satisfies(b -> {
          assertThat(b.brokerId()).isZero();
          assertThat(b.host()).isEqualTo("127.0.0.1");
          assertThat(b.port()).isEqualTo(19092);
        });
      }
      DescribeClusterResponseData controllers = core.call(ApiKeys.DESCRIBE_CLUSTER, (short) 2,
          new DescribeClusterRequestData().setEndpointType((byte) 2));
      assertThat(controllers.errorCode()).isEqualTo(Errors.MISMATCHED_ENDPOINT_TYPE.code());
      assertThat(controllers.errorMessage()).contains("broker");
    }
  }

  @Test
  void everyBrokerErrorHasAKafkaCodeAndTheRetriableOnesStayRetriable() {
    for (BrokerError e : BrokerError.values()) {
      assertThat(KafkaErrors.code(e)).as(e.name()).isNotIn(Errors.NONE, Errors.UNKNOWN_SERVER_ERROR);
    }
    // Retriable in errors.proto: a Kafka client must retry them too.
    for (BrokerError e : new BrokerError[] {BrokerError.UNKNOWN_PARTITION, BrokerError.NOT_ENOUGH_DISK,
        BrokerError.STORAGE_ERROR}) {
      assertThat(KafkaErrors.code(e).exception()).as(e.name()).isInstanceOf(RetriableException.class);
    }
    assertThat(KafkaErrors.code(BrokerError.LIMIT_EXCEEDED).exception()).isNotInstanceOf(RetriableException.class);
  }
}
