package io.brook.broker.kafka.apis;

import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaListenerInfo;
import io.brook.broker.kafka.KafkaRequest;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBroker;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBrokerCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** DescribeCluster: the one node, which is also the controller, and the cluster id. */
public final class DescribeClusterApi implements KafkaApi {
  /** KIP-919's endpoint types: a client asking for controllers (bootstrap.controllers) is told there are none. */
  private static final byte BROKER_ENDPOINTS = 1;

  @Override
  public ApiKeys key() {
    return ApiKeys.DESCRIBE_CLUSTER;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 2;
  }

  /** Answered from what is in memory. */
  @Override
  public boolean quick() {
    return true;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    DescribeClusterRequestData body = (DescribeClusterRequestData) request.body();
    KafkaListenerInfo node = request.listener();
    DescribeClusterResponseData response = new DescribeClusterResponseData().setThrottleTimeMs(0)
        .setEndpointType(BROKER_ENDPOINTS);
    if (request.apiVersion() >= 1 && body.endpointType() != BROKER_ENDPOINTS) {
      return CompletableFuture.completedFuture(response.setErrorCode(Errors.MISMATCHED_ENDPOINT_TYPE.code())
          .setErrorMessage("Brook has one node, a broker: it serves broker endpoints only (endpoint type 1), got "
              + body.endpointType()));
    }
    DescribeClusterBrokerCollection brokers = new DescribeClusterBrokerCollection();
    brokers.add(new DescribeClusterBroker().setBrokerId(node.nodeId()).setHost(node.advertisedHost())
        .setPort(node.advertisedPort()).setRack(null).setIsFenced(false));
    return CompletableFuture.completedFuture(response.setErrorCode(Errors.NONE.code()).setErrorMessage(null)
        .setClusterId(node.clusterId()).setControllerId(node.nodeId()).setBrokers(brokers));
  }
}
