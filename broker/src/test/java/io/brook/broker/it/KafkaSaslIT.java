package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.it.kafka.KafkaWire;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.net.ssl.SSLSocket;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.security.scram.ScramExtensionsCallback;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramSaslClient;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka listener under auth.enabled (D57): SASL/PLAIN and SCRAM over TLS with the broker's tokens,
 * a client certificate's CN, and the permissions file, as on gRPC. The matrix walks every API the
 * broker advertises × {no credentials, wrong password, authenticated without permission}; an API
 * with no row fails it, so a new API comes with its rule. Nothing a refused request asks is written.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class KafkaSaslIT {
  static final String ALICE_TOKEN = "alice-token-1";
  static final String EVE_TOKEN = "eve-token-1";
  static final String GROUP = "billing";
  @TempDir static Path dir;
  static TestCerts certs;
  static BrokerProcess broker;

  @BeforeAll
  static void start() throws Exception {
    certs = TestCerts.create(dir.resolve("certs"));
    Path perms = Files.writeString(dir.resolve("perms"), """
        alice * topic:*
        alice * group:*
        eve consume topic:other
        carol consume topic:orders
        """);
    Path tokens = Files.writeString(dir.resolve("tokens"), "alice=" + ALICE_TOKEN + "\neve=" + EVE_TOKEN + "\n");
    broker = BrokerProcess.start(dir.resolve("data"), "--set", "tls.cert.file=" + certs.server.cert(), "--set",
        "tls.key.file=" + certs.server.key(), "--set", "tls.client.ca.file=" + certs.caCert, "--set",
        "tls.client.auth=optional", "--set", "auth.enabled=true", "--set", "auth.tokens.file=" + tokens, "--set",
        "auth.permissions.file=" + perms);
    try (Admin admin = Admin.create(clientProps("SCRAM-SHA-256", "alice", ALICE_TOKEN))) {
      admin.createTopics(List.of(new NewTopic("orders", 1, (short) 1), new NewTopic("other", 1, (short) 1)))
          .all().get(30, TimeUnit.SECONDS);
      admin.alterConsumerGroupOffsets(GROUP, Map.of(new TopicPartition("orders", 0), new OffsetAndMetadata(0, "alice")))
          .all().get(30, TimeUnit.SECONDS);
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  /** kafka-clients over SASL_SSL with the test CA. */
  static Properties clientProps(String mechanism, String user, String password) {
    Properties p = new Properties();
    p.put("bootstrap.servers", broker.kafkaAddress());
    p.put("security.protocol", "SASL_SSL");
    p.put("ssl.truststore.type", "PEM");
    p.put("ssl.truststore.location", certs.caCert.toString());
    p.put("sasl.mechanism", mechanism);
    String module = mechanism.equals("PLAIN") ? "org.apache.kafka.common.security.plain.PlainLoginModule"
        : "org.apache.kafka.common.security.scram.ScramLoginModule";
    p.put("sasl.jaas.config", module + " required username=\"" + user + "\" password=\"" + password + "\";");
    return p;
  }

  // ---- the raw wire: a TLS connection that may authenticate with SASL --------------------------

  static final class Conn implements AutoCloseable {
    final KafkaWire wire;
    int correlation;

    Conn() throws Exception {
      SSLSocket socket = (SSLSocket) certs.trustingContext().getSocketFactory().createSocket("127.0.0.1",
          broker.kafkaPort());
      wire = new KafkaWire(socket);
    }

    void send(ApiKeys key, short version, ApiMessage body) throws IOException {
      wire.write(KafkaWire.frame(key, version, ++correlation, body));
    }

    /** The next answer's body (after its header). */
    ByteBuffer answer(ApiKeys key, short version) throws IOException {
      ByteBuffer frame = wire.readFrame();
      new ResponseHeaderData(new ByteBufferAccessor(frame), key == ApiKeys.API_VERSIONS ? 0
          : key.responseHeaderVersion(version));
      return frame;
    }

    /** Every error code of the next answer, by kafka-clients' own count of them. */
    Set<Errors> errors(ApiKeys key, short version) throws IOException {
      AbstractResponse r = AbstractResponse.parseResponse(key, new ByteBufferAccessor(answer(key, version)), version);
      return r.errorCounts().keySet();
    }

    short handshake(String mechanism) throws IOException {
      send(ApiKeys.SASL_HANDSHAKE, (short) 1, new SaslHandshakeRequestData().setMechanism(mechanism));
      return new SaslHandshakeResponseData(new ByteBufferAccessor(answer(ApiKeys.SASL_HANDSHAKE, (short) 1)),
          (short) 1).errorCode();
    }

    SaslAuthenticateResponseData authenticate(byte[] bytes) throws IOException {
      send(ApiKeys.SASL_AUTHENTICATE, (short) 2, new SaslAuthenticateRequestData().setAuthBytes(bytes));
      return new SaslAuthenticateResponseData(new ByteBufferAccessor(answer(ApiKeys.SASL_AUTHENTICATE, (short) 2)),
          (short) 2);
    }

    /** PLAIN in one round; the answer's error. */
    Errors plain(String user, String password) throws IOException {
      assertThat(handshake("PLAIN")).isEqualTo(Errors.NONE.code());
      SaslAuthenticateResponseData a = authenticate(plainBytes(user, password));
      return Errors.forCode(a.errorCode());
    }

    /** SCRAM with kafka-clients' own client: its two rounds; the last answer's error. */
    Errors scram(String mechanism, String user, String password) throws Exception {
      assertThat(handshake(mechanism)).isEqualTo(Errors.NONE.code());
      ScramSaslClient client = scramClient(mechanism, user, password);
      SaslAuthenticateResponseData first = authenticate(client.evaluateChallenge(new byte[0]));
      if (first.errorCode() != 0) {
        return Errors.forCode(first.errorCode());
      }
      SaslAuthenticateResponseData last = authenticate(client.evaluateChallenge(first.authBytes()));
      if (last.errorCode() == 0) {
        client.evaluateChallenge(last.authBytes()); // the server proved it knows the credential
        assertThat(client.isComplete()).isTrue();
      }
      return Errors.forCode(last.errorCode());
    }

    boolean closedByBroker() throws IOException {
      return wire.closedByBroker();
    }

    @Override
    public void close() throws IOException {
      wire.close();
    }
  }

  static byte[] plainBytes(String user, String password) {
    return ("\0" + user + "\0" + password).getBytes(StandardCharsets.UTF_8);
  }

  static ScramSaslClient scramClient(String mechanism, String user, String password) throws Exception {
    return new ScramSaslClient(ScramMechanism.forMechanismName(mechanism), (Callback[] callbacks) -> {
      for (Callback c : callbacks) {
        if (c instanceof NameCallback n) {
          n.setName(user);
        } else if (c instanceof PasswordCallback p) {
          p.setPassword(password.toCharArray());
        } else if (!(c instanceof ScramExtensionsCallback)) {
          throw new UnsupportedCallbackException(c);
        }
      }
    });
  }

  // ---- the matrix -------------------------------------------------------------------------------

  /**
   * One API's row: a request at a version the broker serves, and what a principal with no
   * permission on its resources gets (NONE: the API needs only authentication).
   */
  record Row(short version, Supplier<ApiMessage> request, Errors withoutPermission) {}

  static Map<ApiKeys, Row> rows() {
    Map<ApiKeys, Row> rows = new EnumMap<>(ApiKeys.class);
    rows.put(ApiKeys.PRODUCE, new Row((short) 12, () -> {
      ProduceRequestData d = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000);
      d.topicData().add(new ProduceRequestData.TopicProduceData().setName("orders").setPartitionData(List.of(
          new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(MemoryRecords.withRecords(
              Compression.NONE, new SimpleRecord(System.currentTimeMillis(), null,
                  "refused".getBytes(StandardCharsets.UTF_8)))))));
      return d;
    }, Errors.TOPIC_AUTHORIZATION_FAILED));
    rows.put(ApiKeys.FETCH, new Row((short) 12, () -> {
      FetchRequestData d = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(1)
          .setMaxBytes(1 << 20).setSessionEpoch(-1);
      d.topics().add(new FetchRequestData.FetchTopic().setTopic("orders").setPartitions(List.of(
          new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0).setPartitionMaxBytes(1 << 20))));
      return d;
    }, Errors.TOPIC_AUTHORIZATION_FAILED));
    rows.put(ApiKeys.LIST_OFFSETS, new Row((short) 7, () -> new ListOffsetsRequestData().setReplicaId(-1)
        .setTopics(List.of(new ListOffsetsRequestData.ListOffsetsTopic().setName("orders").setPartitions(List.of(
            new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(0).setTimestamp(-1))))),
        Errors.TOPIC_AUTHORIZATION_FAILED));
    rows.put(ApiKeys.METADATA, new Row((short) 12, () -> new MetadataRequestData().setTopics(List.of(
        new MetadataRequestData.MetadataRequestTopic().setName("orders"))).setAllowAutoTopicCreation(true),
        Errors.TOPIC_AUTHORIZATION_FAILED));
    rows.put(ApiKeys.CREATE_TOPICS, new Row((short) 7, () -> {
      CreateTopicsRequestData d = new CreateTopicsRequestData().setTimeoutMs(30_000);
      d.topics().add(new CreateTopicsRequestData.CreatableTopic().setName("eve-made").setNumPartitions(1)
          .setReplicationFactor((short) 1));
      return d;
    }, Errors.TOPIC_AUTHORIZATION_FAILED));
    rows.put(ApiKeys.DELETE_TOPICS, new Row((short) 5, () -> new DeleteTopicsRequestData().setTimeoutMs(30_000)
        .setTopicNames(List.of("orders")), Errors.TOPIC_AUTHORIZATION_FAILED));
    rows.put(ApiKeys.CREATE_PARTITIONS, new Row((short) 3, () -> new CreatePartitionsRequestData()
        .setTimeoutMs(30_000).setTopics(new CreatePartitionsRequestData.CreatePartitionsTopicCollection(List.of(
            new CreatePartitionsRequestData.CreatePartitionsTopic().setName("orders").setCount(3)
                .setAssignments(null)).iterator())), Errors.TOPIC_AUTHORIZATION_FAILED));
    rows.put(ApiKeys.DESCRIBE_CONFIGS, new Row((short) 4, () -> new DescribeConfigsRequestData().setResources(
        List.of(new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType(
            ConfigResource.Type.TOPIC.id()).setResourceName("orders").setConfigurationKeys(null))),
        Errors.TOPIC_AUTHORIZATION_FAILED));
    rows.put(ApiKeys.INCREMENTAL_ALTER_CONFIGS, new Row((short) 1, () -> {
      IncrementalAlterConfigsRequestData d = new IncrementalAlterConfigsRequestData();
      IncrementalAlterConfigsRequestData.AlterConfigsResource r = new IncrementalAlterConfigsRequestData
          .AlterConfigsResource().setResourceType(ConfigResource.Type.TOPIC.id()).setResourceName("orders");
      r.configs().add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName("retention.ms")
          .setConfigOperation((byte) 0).setValue("1000"));
      d.resources().add(r);
      return d;
    }, Errors.TOPIC_AUTHORIZATION_FAILED));
    rows.put(ApiKeys.DESCRIBE_CLUSTER, new Row((short) 1, () -> new DescribeClusterRequestData().setEndpointType(
        (byte) 1), Errors.NONE));
    rows.put(ApiKeys.INIT_PRODUCER_ID, new Row((short) 4, () -> new InitProducerIdRequestData()
        .setTransactionalId(null).setTransactionTimeoutMs(60_000).setProducerId(-1).setProducerEpoch((short) -1),
        Errors.CLUSTER_AUTHORIZATION_FAILED));
    groupRows(rows);
    // Those a connection may send before it authenticated: each has its own test below.
    rows.put(ApiKeys.API_VERSIONS, null);
    rows.put(ApiKeys.SASL_HANDSHAKE, null);
    rows.put(ApiKeys.SASL_AUTHENTICATE, null);
    return rows;
  }

  /** The group APIs: eve has no permission on group billing (alice committed its offsets at start). */
  static void groupRows(Map<ApiKeys, Row> rows) {
    rows.put(ApiKeys.FIND_COORDINATOR, new Row((short) 4, () -> new FindCoordinatorRequestData().setKeyType((byte) 0)
        .setCoordinatorKeys(List.of(GROUP)), Errors.GROUP_AUTHORIZATION_FAILED));
    rows.put(ApiKeys.OFFSET_COMMIT, new Row((short) 9, () -> new OffsetCommitRequestData().setGroupId(GROUP)
        .setGenerationIdOrMemberEpoch(-1).setMemberId("").setTopics(List.of(new OffsetCommitRequestData
            .OffsetCommitRequestTopic().setName("orders").setPartitions(List.of(new OffsetCommitRequestData
                .OffsetCommitRequestPartition().setPartitionIndex(0).setCommittedOffset(0))))),
        Errors.GROUP_AUTHORIZATION_FAILED));
    rows.put(ApiKeys.OFFSET_FETCH, new Row((short) 8, () -> new OffsetFetchRequestData().setGroups(List.of(
        new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId(GROUP).setTopics(null))),
        Errors.GROUP_AUTHORIZATION_FAILED));
    rows.put(ApiKeys.LIST_GROUPS, new Row((short) 4, ListGroupsRequestData::new, Errors.NONE));
    rows.put(ApiKeys.DESCRIBE_GROUPS, new Row((short) 5, () -> new DescribeGroupsRequestData().setGroups(
        List.of(GROUP)), Errors.GROUP_AUTHORIZATION_FAILED));
    rows.put(ApiKeys.DELETE_GROUPS, new Row((short) 2, () -> new DeleteGroupsRequestData().setGroupsNames(
        List.of(GROUP)), Errors.GROUP_AUTHORIZATION_FAILED));
    rows.put(ApiKeys.OFFSET_DELETE, new Row((short) 0, () -> {
      OffsetDeleteRequestData d = new OffsetDeleteRequestData().setGroupId(GROUP);
      d.topics().add(new OffsetDeleteRequestData.OffsetDeleteRequestTopic().setName("orders").setPartitions(
          List.of(new OffsetDeleteRequestData.OffsetDeleteRequestPartition().setPartitionIndex(0))));
      return d;
    }, Errors.GROUP_AUTHORIZATION_FAILED));
    rows.put(ApiKeys.JOIN_GROUP, new Row((short) 9, () -> {
      JoinGroupRequestData d = new JoinGroupRequestData().setGroupId(GROUP).setMemberId("").setSessionTimeoutMs(10_000)
          .setRebalanceTimeoutMs(10_000).setProtocolType("consumer");
      d.protocols().add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range").setMetadata(new byte[0]));
      return d;
    }, Errors.GROUP_AUTHORIZATION_FAILED));
    rows.put(ApiKeys.SYNC_GROUP, new Row((short) 5, () -> new SyncGroupRequestData().setGroupId(GROUP)
        .setGenerationId(1).setMemberId("m").setProtocolType("consumer").setProtocolName("range"),
        Errors.GROUP_AUTHORIZATION_FAILED));
    rows.put(ApiKeys.HEARTBEAT, new Row((short) 4, () -> new HeartbeatRequestData().setGroupId(GROUP)
        .setGenerationId(1).setMemberId("m"), Errors.GROUP_AUTHORIZATION_FAILED));
    rows.put(ApiKeys.CONSUMER_GROUP_HEARTBEAT, new Row((short) 1, () -> new ConsumerGroupHeartbeatRequestData()
        .setGroupId(GROUP).setMemberId(Uuid.randomUuid().toString()).setMemberEpoch(0).setRebalanceTimeoutMs(10_000)
        .setSubscribedTopicNames(List.of("orders")).setTopicPartitions(List.of()), Errors.GROUP_AUTHORIZATION_FAILED));
    rows.put(ApiKeys.CONSUMER_GROUP_DESCRIBE, new Row((short) 1, () -> new ConsumerGroupDescribeRequestData()
        .setGroupIds(List.of(GROUP)), Errors.GROUP_AUTHORIZATION_FAILED));
    rows.put(ApiKeys.LEAVE_GROUP, new Row((short) 5, () -> new LeaveGroupRequestData().setGroupId(GROUP).setMembers(
        List.of(new LeaveGroupRequestData.MemberIdentity().setMemberId("m"))), Errors.GROUP_AUTHORIZATION_FAILED));
    shareRows(rows);
  }

  /** The share-group APIs (D65, D67): eve has no permission on group billing. */
  static void shareRows(Map<ApiKeys, Row> rows) {
    rows.put(ApiKeys.SHARE_GROUP_HEARTBEAT, new Row((short) 1, () -> new org.apache.kafka.common.message
        .ShareGroupHeartbeatRequestData().setGroupId(GROUP).setMemberId(Uuid.randomUuid().toString()).setMemberEpoch(0)
        .setSubscribedTopicNames(List.of("orders")), Errors.GROUP_AUTHORIZATION_FAILED));
    rows.put(ApiKeys.SHARE_FETCH, new Row((short) 1, () -> new org.apache.kafka.common.message.ShareFetchRequestData()
        .setGroupId(GROUP).setMemberId(Uuid.randomUuid().toString()).setShareSessionEpoch(0).setMaxWaitMs(0)
        .setMaxBytes(1 << 20).setMaxRecords(10).setBatchSize(10), Errors.GROUP_AUTHORIZATION_FAILED));
    rows.put(ApiKeys.SHARE_ACKNOWLEDGE, new Row((short) 1, () -> new org.apache.kafka.common.message
        .ShareAcknowledgeRequestData().setGroupId(GROUP).setMemberId(Uuid.randomUuid().toString())
        .setShareSessionEpoch(1), Errors.GROUP_AUTHORIZATION_FAILED));
    rows.put(ApiKeys.SHARE_GROUP_DESCRIBE, new Row((short) 1, () -> new org.apache.kafka.common.message
        .ShareGroupDescribeRequestData().setGroupIds(List.of(GROUP)), Errors.GROUP_AUTHORIZATION_FAILED));
    rows.put(ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS, new Row((short) 1, () -> new org.apache.kafka.common.message
        .DescribeShareGroupOffsetsRequestData().setGroups(List.of(new org.apache.kafka.common.message
            .DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup().setGroupId(GROUP)
            .setTopics(null))), Errors.GROUP_AUTHORIZATION_FAILED));
    rows.put(ApiKeys.ALTER_SHARE_GROUP_OFFSETS, new Row((short) 0, () -> {
      org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData d = new org.apache.kafka.common.message
          .AlterShareGroupOffsetsRequestData().setGroupId(GROUP);
      org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopic t =
          new org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopic()
              .setTopicName("orders");
      t.partitions().add(new org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData
          .AlterShareGroupOffsetsRequestPartition().setPartitionIndex(0).setStartOffset(0));
      d.topics().add(t);
      return d;
    }, Errors.GROUP_AUTHORIZATION_FAILED));
    rows.put(ApiKeys.DELETE_SHARE_GROUP_OFFSETS, new Row((short) 0, () -> new org.apache.kafka.common.message
        .DeleteShareGroupOffsetsRequestData().setGroupId(GROUP).setTopics(List.of(new org.apache.kafka.common.message
            .DeleteShareGroupOffsetsRequestData.DeleteShareGroupOffsetsRequestTopic().setTopicName("orders"))),
        Errors.GROUP_AUTHORIZATION_FAILED));
  }

  static Set<ApiKeys> advertised() throws Exception {
    try (Conn c = new Conn()) {
      c.wire.write(KafkaWire.apiVersions((short) 3, 1));
      ApiVersionsResponseData d = c.wire.readApiVersions((short) 3).data();
      Set<ApiKeys> keys = new TreeSet<>();
      d.apiKeys().forEach(k -> keys.add(ApiKeys.forId(k.apiKey())));
      return keys;
    }
  }

  @Test
  void everyApiHasARowAndIsRefusedWithoutCredentialsWithAWrongPasswordAndWithoutPermission() throws Exception {
    Map<ApiKeys, Row> rows = rows();
    Set<ApiKeys> served = advertised();
    assertThat(rows.keySet()).as("every API the broker serves has a row here (add the new API's rule and its "
        + "refusal)").containsAll(served);
    long refusedBefore = (long) metric("brook_kafka_refused_connections_total{reason=\"unauthenticated\"}");
    int closed = 0;
    List<String> seen = new ArrayList<>();
    for (ApiKeys key : served) {
      Row row = rows.get(key);
      if (row == null) {
        continue;
      }
      // No credentials (no SASL, no client certificate, anonymous off): the connection closes unanswered.
      try (Conn c = new Conn()) {
        c.send(key, row.version, row.request.get());
        assertThat(c.closedByBroker()).as(key + " without credentials closes the connection").isTrue();
        closed++;
      }
      // A wrong password: SASL_AUTHENTICATION_FAILED, then the request closes the connection.
      try (Conn c = new Conn()) {
        assertThat(c.scram("SCRAM-SHA-256", "alice", "wrong")).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED);
        c.send(key, row.version, row.request.get());
        assertThat(c.closedByBroker()).as(key + " after a failed authentication closes the connection").isTrue();
        closed++;
      }
      // Authenticated, without permission on what it names.
      try (Conn c = new Conn()) {
        assertThat(c.plain("eve", EVE_TOKEN)).isEqualTo(Errors.NONE);
        c.send(key, row.version, row.request.get());
        Set<Errors> errors = new java.util.HashSet<>(c.errors(key, row.version));
        if (row.withoutPermission != Errors.NONE) {
          errors.remove(Errors.NONE); // a top-level NONE beside the refused parts (Fetch)
        }
        assertThat(errors).as(key + " for a principal without permission").containsExactly(row.withoutPermission);
      }
      seen.add(key.name);
    }
    assertThat(seen).as("the rows run").hasSizeGreaterThanOrEqualTo(11);
    assertThat((long) metric("brook_kafka_refused_connections_total{reason=\"unauthenticated\"}"))
        .isEqualTo(refusedBefore + closed);
    nothingWasWritten();
  }

  /** A series of the broker's /metrics (HTTPS, alice's token), 0 when absent. */
  static double metric(String series) throws Exception {
    java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder().sslContext(certs.trustingContext()).build();
    String body = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("https://127.0.0.1:"
        + broker.httpPort() + "/metrics")).header("Authorization", "Bearer " + ALICE_TOKEN).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    return body.lines().filter(l -> l.startsWith(series + " "))
        .mapToDouble(l -> Double.parseDouble(l.substring(series.length() + 1).trim())).findFirst().orElse(0);
  }

  /** What the refused requests asked for did not happen: checked as alice, who may see everything. */
  static void nothingWasWritten() throws Exception {
    try (Admin admin = Admin.create(clientProps("SCRAM-SHA-512", "alice", ALICE_TOKEN))) {
      assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains("orders", "other")
          .doesNotContain("eve-made");
      TopicPartition orders = new TopicPartition("orders", 0);
      assertThat(admin.listOffsets(Map.of(orders, OffsetSpec.latest())).partitionResult(orders)
          .get(30, TimeUnit.SECONDS).offset()).as("nothing produced to orders").isZero();
      assertThat(admin.describeTopics(List.of("orders")).allTopicNames().get(30, TimeUnit.SECONDS).get("orders")
          .partitions()).hasSize(1);
      ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, "orders");
      ConfigEntry retention = admin.describeConfigs(List.of(r)).all().get(30, TimeUnit.SECONDS).get(r)
          .get("retention.ms");
      assertThat(retention.value()).isNotEqualTo("1000");
      ConsumerGroupDescription billing = admin.describeConsumerGroups(List.of(GROUP)).all().get(30, TimeUnit.SECONDS)
          .get(GROUP);
      assertThat(billing.members()).as("nobody joined billing").isEmpty();
      assertThat(admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS))
          .as("billing's offsets, neither deleted nor rewritten").containsOnlyKeys(orders)
          .hasEntrySatisfying(orders, om -> assertThat(om.metadata()).isEqualTo("alice"));
    }
  }

  /** Before authentication no frame over 512 KiB is read into memory and decoded: the connection closes on it. */
  @Test
  void aLargeFrameBeforeAuthenticationClosesTheConnectionUnread() throws Exception {
    double unauthenticated = metric("brook_kafka_refused_connections_total{reason=\"unauthenticated\"}");
    double malformed = metric("brook_kafka_refused_connections_total{reason=\"malformed\"}");
    byte[] frame = new byte[4 + 600 * 1024]; // garbage after the length: unread, it cannot be found malformed
    java.nio.ByteBuffer.wrap(frame).putInt(frame.length - 4);
    try (Conn c = new Conn()) {
      c.wire.write(frame);
      assertThat(c.closedByBroker()).isTrue();
    }
    assertThat(metric("brook_kafka_refused_connections_total{reason=\"unauthenticated\"}"))
        .isEqualTo(unauthenticated + 1);
    assertThat(metric("brook_kafka_refused_connections_total{reason=\"malformed\"}")).isEqualTo(malformed);
  }

  /** A topic id is not secret, its name is: a refusal by id does not say it, in no field. */
  @Test
  void deleteTopicsByIdRefusedToEveNamesNoTopic() throws Exception {
    Uuid id;
    try (Admin alice = Admin.create(clientProps("PLAIN", "alice", ALICE_TOKEN))) {
      id = alice.describeTopics(List.of("orders")).allTopicNames().get(30, TimeUnit.SECONDS).get("orders").topicId();
    }
    try (Conn c = new Conn()) {
      assertThat(c.plain("eve", EVE_TOKEN)).isEqualTo(Errors.NONE);
      c.send(ApiKeys.DELETE_TOPICS, (short) 6, new DeleteTopicsRequestData().setTimeoutMs(30_000).setTopics(List.of(
          new DeleteTopicsRequestData.DeleteTopicState().setTopicId(id))));
      DeleteTopicsResponseData answer = new DeleteTopicsResponseData(new ByteBufferAccessor(
          c.answer(ApiKeys.DELETE_TOPICS, (short) 6)), (short) 6);
      assertThat(answer.responses()).singleElement().satisfies(r -> {
        assertThat(r.errorCode()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
        assertThat(r.name()).isNull();
        assertThat(r.errorMessage()).doesNotContain("orders");
      });
    }
  }

  /** D66: a group's config needs admin on the group to alter, any permission to describe. */
  @Test
  void groupConfigsNeedAPermissionOnTheGroup() throws Exception {
    ConfigResource shared = new ConfigResource(ConfigResource.Type.GROUP, "billing-share");
    Map<ConfigResource, java.util.Collection<org.apache.kafka.clients.admin.AlterConfigOp>> earliest = Map.of(shared,
        List.of(new org.apache.kafka.clients.admin.AlterConfigOp(new ConfigEntry("share.auto.offset.reset",
            "earliest"), org.apache.kafka.clients.admin.AlterConfigOp.OpType.SET)));
    try (Admin eve = Admin.create(clientProps("PLAIN", "eve", EVE_TOKEN));
        Admin alice = Admin.create(clientProps("PLAIN", "alice", ALICE_TOKEN))) {
      assertThatThrownBy(() -> eve.incrementalAlterConfigs(earliest).all().get(30, TimeUnit.SECONDS))
          .hasCauseInstanceOf(org.apache.kafka.common.errors.GroupAuthorizationException.class);
      assertThatThrownBy(() -> eve.describeConfigs(List.of(shared)).all().get(30, TimeUnit.SECONDS))
          .hasCauseInstanceOf(org.apache.kafka.common.errors.GroupAuthorizationException.class);
      alice.incrementalAlterConfigs(earliest).all().get(30, TimeUnit.SECONDS);
      assertThat(alice.describeConfigs(List.of(shared)).all().get(30, TimeUnit.SECONDS).get(shared)
          .get("share.auto.offset.reset").value()).isEqualTo("earliest");
    }
  }

  @Test
  void groupsAreListedOnlyToPrincipalsWithAPermissionOnThem() throws Exception {
    try (Admin eve = Admin.create(clientProps("PLAIN", "eve", EVE_TOKEN));
        Admin alice = Admin.create(clientProps("PLAIN", "alice", ALICE_TOKEN))) {
      assertThat(alice.listConsumerGroups().all().get(30, TimeUnit.SECONDS)).extracting(g -> g.groupId())
          .contains(GROUP);
      assertThat(eve.listConsumerGroups().all().get(30, TimeUnit.SECONDS)).extracting(g -> g.groupId())
          .doesNotContain(GROUP);
    }
  }

  @Test
  void beforeAuthenticationOnlyApiVersionsAndSaslAreAnswered() throws Exception {
    try (Conn c = new Conn()) {
      c.wire.write(KafkaWire.apiVersions((short) 3, 7));
      assertThat(c.wire.readApiVersions((short) 3).data().errorCode()).isEqualTo(Errors.NONE.code());
      // SaslAuthenticate before a handshake: ILLEGAL_SASL_STATE, and the connection stays.
      assertThat(c.authenticate(plainBytes("alice", ALICE_TOKEN)).errorCode())
          .isEqualTo(Errors.ILLEGAL_SASL_STATE.code());
      c.send(ApiKeys.SASL_HANDSHAKE, (short) 1, new SaslHandshakeRequestData().setMechanism("GSSAPI"));
      SaslHandshakeResponseData h = new SaslHandshakeResponseData(new ByteBufferAccessor(
          c.answer(ApiKeys.SASL_HANDSHAKE, (short) 1)), (short) 1);
      assertThat(h.errorCode()).isEqualTo(Errors.UNSUPPORTED_SASL_MECHANISM.code());
      assertThat(h.mechanisms()).containsExactly("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512");
      // The exchange began (and ended): no second handshake, nothing else.
      assertThat(c.handshake("PLAIN")).isEqualTo(Errors.ILLEGAL_SASL_STATE.code());
      c.send(ApiKeys.METADATA, (short) 12, new MetadataRequestData().setTopics(null));
      assertThat(c.closedByBroker()).isTrue();
    }
  }

  @Test
  void anUnknownUserAndAWrongPasswordGetTheSameAnswer() throws Exception {
    for (String mechanism : List.of("SCRAM-SHA-256", "SCRAM-SHA-512", "PLAIN")) {
      List<SaslAuthenticateResponseData> answers = new ArrayList<>();
      for (String user : List.of("alice", "mallory")) {
        try (Conn c = new Conn()) {
          assertThat(c.handshake(mechanism)).isEqualTo(Errors.NONE.code());
          if (mechanism.equals("PLAIN")) {
            answers.add(c.authenticate(plainBytes(user, "wrong")));
          } else {
            ScramSaslClient client = scramClient(mechanism, user, "wrong");
            SaslAuthenticateResponseData first = c.authenticate(client.evaluateChallenge(new byte[0]));
            assertThat(first.errorCode()).as(mechanism + " " + user + ": refused at the proof, not the name")
                .isZero();
            answers.add(c.authenticate(client.evaluateChallenge(first.authBytes())));
          }
        }
      }
      assertThat(answers).extracting(SaslAuthenticateResponseData::errorCode)
          .containsOnly(Errors.SASL_AUTHENTICATION_FAILED.code());
      assertThat(answers.get(0).errorMessage()).isEqualTo(answers.get(1).errorMessage())
          .doesNotContain("alice", "mallory", "wrong");
    }
    assertThat(broker.currentStartLog()).doesNotContain(ALICE_TOKEN, EVE_TOKEN);
  }

  @Test
  void aRequestPipelinedBehindSaslAuthenticateSeesItsOutcome() throws Exception {
    try (Conn c = new Conn()) { // handshake, authenticate and Metadata in one write
      c.send(ApiKeys.SASL_HANDSHAKE, (short) 1, new SaslHandshakeRequestData().setMechanism("PLAIN"));
      c.send(ApiKeys.SASL_AUTHENTICATE, (short) 2, new SaslAuthenticateRequestData().setAuthBytes(
          plainBytes("eve", EVE_TOKEN)));
      c.send(ApiKeys.METADATA, (short) 12, new MetadataRequestData().setTopics(null));
      c.answer(ApiKeys.SASL_HANDSHAKE, (short) 1);
      c.answer(ApiKeys.SASL_AUTHENTICATE, (short) 2);
      MetadataResponseData m = new MetadataResponseData(new ByteBufferAccessor(
          c.answer(ApiKeys.METADATA, (short) 12)), (short) 12);
      List<String> names = new ArrayList<>();
      m.topics().forEach(t -> names.add(t.name()));
      assertThat(names).as("eve sees only the topic she has a permission on").containsExactly("other");
    }
    try (Conn c = new Conn()) { // the same with a wrong password: the failure is answered, then the close
      c.send(ApiKeys.SASL_HANDSHAKE, (short) 1, new SaslHandshakeRequestData().setMechanism("PLAIN"));
      c.send(ApiKeys.SASL_AUTHENTICATE, (short) 2, new SaslAuthenticateRequestData().setAuthBytes(
          plainBytes("eve", "wrong")));
      c.send(ApiKeys.METADATA, (short) 12, new MetadataRequestData().setTopics(null));
      c.answer(ApiKeys.SASL_HANDSHAKE, (short) 1);
      assertThat(new SaslAuthenticateResponseData(new ByteBufferAccessor(c.answer(ApiKeys.SASL_AUTHENTICATE,
          (short) 2)), (short) 2).errorCode()).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED.code());
      assertThat(c.closedByBroker()).isTrue();
    }
  }

  @Test
  void kafkaClientsProduceAndConsumeOverSaslSslWithScramAndPlain() throws Exception {
    for (String mechanism : List.of("SCRAM-SHA-256", "SCRAM-SHA-512", "PLAIN")) {
      String topic = "sasl-" + mechanism.toLowerCase();
      Properties p = clientProps(mechanism, "alice", ALICE_TOKEN);
      p.put("key.serializer", StringSerializer.class.getName());
      p.put("value.serializer", StringSerializer.class.getName());
      p.put("enable.idempotence", "true"); // InitProducerId with alice as the owner of the id
      try (Admin admin = Admin.create(clientProps(mechanism, "alice", ALICE_TOKEN))) {
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
      }
      try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
        for (int i = 0; i < 10; i++) {
          producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
        }
      }
      Properties cp = clientProps(mechanism, "alice", ALICE_TOKEN);
      cp.put("key.deserializer", StringDeserializer.class.getName());
      cp.put("value.deserializer", StringDeserializer.class.getName());
      cp.put("auto.offset.reset", "earliest");
      List<String> values = new ArrayList<>();
      try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp)) {
        consumer.assign(List.of(new TopicPartition(topic, 0)));
        consumer.seekToBeginning(List.of(new TopicPartition(topic, 0)));
        for (int polls = 0; polls < 60 && values.size() < 10; polls++) {
          for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
            values.add(r.value());
          }
        }
      }
      assertThat(values).as(mechanism).containsExactly("v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9");
    }
  }

  @Test
  void kafkaClientsWithAWrongPasswordOrWithoutPermissionFailWithKafkasExceptions() throws Exception {
    try (Admin admin = Admin.create(clientProps("SCRAM-SHA-256", "alice", "wrong"))) {
      Throwable t = catchCause(() -> admin.listTopics().names().get(30, TimeUnit.SECONDS));
      assertThat(t).isInstanceOf(SaslAuthenticationException.class);
    }
    Properties p = clientProps("SCRAM-SHA-256", "eve", EVE_TOKEN);
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    p.put("enable.idempotence", "false");
    p.put("max.block.ms", "20000");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      Throwable t = catchCause(() -> producer.send(new ProducerRecord<>("other", "k", "v")).get(30,
          TimeUnit.SECONDS));
      assertThat(t).isInstanceOf(TopicAuthorizationException.class);
    }
  }

  @Test
  void aClientCertificateAloneAuthenticatesItsCommonName() throws Exception {
    TestCerts.Pair carol = certs.client("carol");
    Properties p = new Properties();
    p.put("bootstrap.servers", broker.kafkaAddress());
    p.put("security.protocol", "SSL");
    p.put("ssl.truststore.type", "PEM");
    p.put("ssl.truststore.location", certs.caCert.toString());
    p.put("ssl.keystore.type", "PEM");
    p.put("ssl.keystore.certificate.chain", Files.readString(carol.cert()));
    p.put("ssl.keystore.key", Files.readString(carol.key()));
    try (Admin admin = Admin.create(p)) {
      assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).containsExactly("orders");
      Throwable t = catchCause(() -> admin.createTopics(List.of(new NewTopic("carol-made", 1, (short) 1))).all()
          .get(30, TimeUnit.SECONDS));
      assertThat(t).isInstanceOf(TopicAuthorizationException.class);
    }
  }

  private interface Call {
    void run() throws Exception;
  }

  private static Throwable catchCause(Call call) {
    try {
      call.run();
    } catch (java.util.concurrent.ExecutionException e) {
      return e.getCause();
    } catch (Exception e) {
      return e;
    }
    throw new AssertionError("expected a failure");
  }
}
