package io.brook.broker.server;

import io.brook.broker.http.HttpTls;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaApis;
import io.brook.broker.kafka.KafkaListenerInfo;
import io.brook.broker.kafka.access.AuthenticationGate;
import io.brook.broker.kafka.apis.AlterShareGroupOffsetsApi;
import io.brook.broker.kafka.apis.ConsumerOffsetsTopic;
import io.brook.broker.kafka.apis.ConsumerGroupDescribeApi;
import io.brook.broker.kafka.apis.ShareAcknowledgeApi;
import io.brook.broker.kafka.apis.ShareFetchApi;
import io.brook.broker.kafka.apis.ShareGroupHeartbeatApi;
import io.brook.broker.kafka.apis.ConsumerGroupHeartbeatApi;
import io.brook.broker.kafka.apis.CreatePartitionsApi;
import io.brook.broker.kafka.apis.CreateTopicsApi;
import io.brook.broker.kafka.apis.DeleteGroupsApi;
import io.brook.broker.kafka.apis.DeleteShareGroupOffsetsApi;
import io.brook.broker.kafka.apis.DeleteTopicsApi;
import io.brook.broker.kafka.apis.DescribeClusterApi;
import io.brook.broker.kafka.apis.DescribeConfigsApi;
import io.brook.broker.kafka.apis.DescribeGroupsApi;
import io.brook.broker.kafka.apis.DescribeShareGroupOffsetsApi;
import io.brook.broker.kafka.apis.FetchApi;
import io.brook.broker.kafka.apis.FindCoordinatorApi;
import io.brook.broker.kafka.apis.HeartbeatApi;
import io.brook.broker.kafka.apis.IncrementalAlterConfigsApi;
import io.brook.broker.kafka.apis.InitProducerIdApi;
import io.brook.broker.kafka.apis.ListGroupsApi;
import io.brook.broker.kafka.apis.JoinGroupApi;
import io.brook.broker.kafka.apis.LeaveGroupApi;
import io.brook.broker.kafka.apis.ListOffsetsApi;
import io.brook.broker.kafka.apis.MetadataApi;
import io.brook.broker.kafka.apis.OffsetCommitApi;
import io.brook.broker.kafka.apis.OffsetDeleteApi;
import io.brook.broker.kafka.apis.OffsetFetchApi;
import io.brook.broker.kafka.apis.ProduceApi;
import io.brook.broker.kafka.apis.ShareGroupDescribeApi;
import io.brook.broker.kafka.sasl.SaslAuthenticateApi;
import io.brook.broker.kafka.sasl.SaslHandshakeApi;
import io.brook.broker.kafka.apis.SyncGroupApi;
import io.brook.broker.kafka.wire.ConnectionLimits;
import io.brook.broker.kafka.wire.KafkaServer;
import io.brook.broker.security.KafkaAuthenticator;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka protocol listener on the context's components (D44), or nothing when kafka.listen is
 * empty. With auth on, clients authenticate by SASL, a client certificate or as anonymous, and each
 * handler checks the same permissions as gRPC (D57). Started once storage is recovered, so its first Metadata answer sees every
 * topic; closed first when the broker stops.
 */
final class KafkaEndpoint implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KafkaEndpoint.class);
  /** Brook is one node. */
  private static final int NODE_ID = 0;

  private final BrokerContext ctx;
  private KafkaServer server;
  private KafkaListenerInfo info;

  KafkaEndpoint(BrokerContext ctx) {
    this.ctx = ctx;
  }

  /**
   * Every Kafka API served beside ApiVersions, which advertises exactly these: one line each, on the
   * core services of the context.
   */
  private static List<KafkaApi> apis(BrokerContext ctx) {
    ConsumerOffsetsTopic offsetsTopic = new ConsumerOffsetsTopic(ctx.groupService);
    return List.of(
        new SaslHandshakeApi(ctx.security.kafka()),
        new SaslAuthenticateApi(ctx.security.kafka()),
        new MetadataApi(ctx.topicAdmin, ctx.autoCreateTopics, offsetsTopic),
        new DescribeClusterApi(),
        new CreateTopicsApi(ctx.topicAdmin),
        new DeleteTopicsApi(ctx.topicAdmin),
        new CreatePartitionsApi(ctx.topicAdmin),
        new DescribeConfigsApi(ctx.topicAdmin, ctx.brokerSettings, ctx.groupService),
        new IncrementalAlterConfigsApi(ctx.topicAdmin, ctx.groupService, ctx.brokerSettings),
        new ListOffsetsApi(ctx.fetch, ctx.offsetTimes),
        new InitProducerIdApi(ctx.produce),
        new ProduceApi(ctx.produce, ctx.topicAdmin),
        new FetchApi(ctx.fetch, ctx.topicAdmin),
        new FindCoordinatorApi(offsetsTopic),
        new OffsetCommitApi(ctx.groupService, ctx.topicAdmin),
        new OffsetFetchApi(ctx.groupService, ctx.topicAdmin),
        new ListGroupsApi(ctx.groupService),
        new DescribeGroupsApi(ctx.groupService),
        new DeleteGroupsApi(ctx.groupService),
        new OffsetDeleteApi(ctx.groupService),
        new JoinGroupApi(ctx.classicGroups),
        new SyncGroupApi(ctx.classicGroups),
        new HeartbeatApi(ctx.classicGroups),
        new LeaveGroupApi(ctx.classicGroups),
        new ConsumerGroupHeartbeatApi(ctx.consumerGroups),
        new ConsumerGroupDescribeApi(ctx.consumerGroups),
        new ShareGroupHeartbeatApi(ctx.shareGroups),
        new ShareFetchApi(ctx.shareGroups, ctx.topicAdmin),
        new ShareAcknowledgeApi(ctx.shareGroups, ctx.topicAdmin),
        new ShareGroupDescribeApi(ctx.shareAdmin, ctx.topicAdmin),
        new DescribeShareGroupOffsetsApi(ctx.shareAdmin, ctx.topicAdmin),
        new AlterShareGroupOffsetsApi(ctx.shareAdmin, ctx.topicAdmin),
        new DeleteShareGroupOffsetsApi(ctx.shareAdmin, ctx.topicAdmin));
  }

  synchronized void start() throws IOException {
    if (ctx.kafkaListen.isEmpty()) {
      return;
    }
    String clusterId = ClusterIdFile.load(ctx.dataDir);
    boolean tls = ctx.security.tls().isPresent();
    try {
      server = KafkaServer.start(ctx.kafkaListen.get(), HttpTls.context(ctx.security.tls()),
          new ConnectionLimits(ctx.maxRequestBytes, ctx.kafkaMaxInflight, ctx.kafkaMaxIdleMs), new KafkaApis(apis(ctx)),
          bound -> {
            InetSocketAddress advertised = ctx.kafkaAdvertised.orElse(bound);
            info = new KafkaListenerInfo(NODE_ID, advertised.getHostString(), advertised.getPort(), clusterId, tls);
            return info;
          }, ctx.metrics.kafka(), ctx.outbound, ctx.grpcExecutor,
          ctx.security.kafka().map(AuthenticationGate::new).orElse(null));
    } catch (BindException e) {
      if (!ctx.kafkaListenDefault) {
        throw e;
      }
      // A broker upgraded onto a host where Kafka already has 9092 keeps serving gRPC: only a listener
      // the operator asked for refuses the start.
      log.warn("Kafka listener off: {}; set kafka.listen to a free host:port (or empty to keep it off)",
          e.getMessage());
      return;
    }
    log.info("Kafka on {}:{} ({}{}), advertised as {}:{}, cluster id {}", ctx.kafkaListen.get().getHostString(),
        server.address().getPort(), tls ? "TLS" : "plaintext", ctx.security.kafka().isPresent()
            ? ", SASL " + String.join("/", KafkaAuthenticator.MECHANISMS) : "", info.advertisedHost(),
        info.advertisedPort(), clusterId);
  }

  /** "Kafka on host:port" for the ready line, or "Kafka off". */
  synchronized String describe() {
    return server == null ? "Kafka off" : "Kafka on " + ctx.kafkaListen.get().getHostString() + ":"
        + server.address().getPort();
  }

  @Override
  public synchronized void close() {
    if (server != null) {
      server.close();
      server = null;
    }
  }
}
