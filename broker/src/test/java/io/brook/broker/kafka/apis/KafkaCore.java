package io.brook.broker.kafka.apis;

import io.brook.broker.config.BrokerConfig;
import io.brook.broker.core.BatchOutcome;
import io.brook.broker.core.BatchToAppend;
import io.brook.broker.core.DrainRegistry;
import io.brook.broker.core.FetchService;
import io.brook.broker.core.GroupService;
import io.brook.broker.core.OffsetTimes;
import io.brook.broker.core.ProduceCall;
import io.brook.broker.core.ProduceService;
import io.brook.broker.core.ShareGroupAdmin;
import io.brook.broker.core.TopicAdmin;
import io.brook.broker.disk.DiskGuard;
import io.brook.broker.disk.DiskLimits;
import io.brook.broker.durability.Flusher;
import io.brook.broker.groups.GroupContext;
import io.brook.broker.groups.GroupManager;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaApis;
import io.brook.broker.kafka.KafkaListenerInfo;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.producers.ProducerIds;
import io.brook.broker.records.IncomingBatch;
import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.ManualClock;
import io.brook.broker.storage.MemoryLog;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.topics.BatchValidator;
import io.brook.broker.topics.TopicConfig;
import io.brook.broker.topics.TopicManager;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;

/**
 * A real core (topics on MemoryLog, the disk guard on a free-space reading the test sets, producer
 * ids on disk) and the Kafka admin handlers on it, called as the listener calls them: the request
 * and the response each go through Kafka's codec at the version used, so a field a version lacks
 * fails the test as it would fail the listener.
 */
final class KafkaCore implements AutoCloseable {
  static final KafkaListenerInfo NODE = new KafkaListenerInfo(0, "127.0.0.1", 19092, "Yh4NQqSVRqyy8WQ3L1ERVg", false);
  static final int DISK_MIN_FREE = 1000;

  final AtomicLong free = new AtomicLong(1L << 40);
  final ManualClock clock = new ManualClock(1_000_000);
  final TopicManager topics;
  final DiskGuard disk;
  final TopicAdmin admin;
  final FetchService fetch;
  final OffsetTimes times;
  final ProduceService produce;
  final GroupManager groupManager;
  final GroupService groups;
  final ShareGroupAdmin shareGroups;
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  final KafkaApis apis;

  KafkaCore(Path dir, int maxTopics, int maxPartitions, boolean autoCreate) {
    topics = new TopicManager(dir, TopicConfig.defaults(-1, -1, SegmentRoll.HOUR, 1 << 20), 1, MemoryLog::open, clock);
    topics.limits(maxTopics, maxPartitions);
    topics.recover();
    disk = new DiskGuard(free::get, new DiskLimits(DISK_MIN_FREE, 0, 0, 60_000), () -> 0, (from, to, m) -> { },
        dir.toString());
    admin = new TopicAdmin(topics, disk);
    fetch = new FetchService(topics, 0, Runnable::run, timer, new DrainRegistry() {
      @Override
      public void add(Runnable drain) {}

      @Override
      public void remove(Runnable drain) {}
    });
    times = new OffsetTimes(topics);
    produce = new ProduceService(topics, new BatchValidator(1000), disk, new Flusher(false, Runnable::run),
        new ProducerIds(dir), clock);
    groupManager = new GroupManager(dir, new GroupContext(topics, clock, Runnable::run, 1000, 60_000, 3000, disk),
        MemoryLog::open, 1000);
    groupManager.recover();
    groups = new GroupService(groupManager, 1000, 60_000);
    shareGroups = new ShareGroupAdmin(groupManager);
    ConsumerOffsetsTopic offsetsTopic = new ConsumerOffsetsTopic(groups);
    apis = new KafkaApis(List.of( // as server.KafkaEndpoint registers them, through the registry's version checks
        new MetadataApi(admin, autoCreate, offsetsTopic),
        new DescribeClusterApi(),
        new CreateTopicsApi(admin),
        new DeleteTopicsApi(admin),
        new CreatePartitionsApi(admin),
        new DescribeConfigsApi(admin, BrokerSettings.of(BrokerConfig.defaults()), groups),
        new IncrementalAlterConfigsApi(admin, groups, BrokerSettings.of(BrokerConfig.defaults())),
        new ListOffsetsApi(fetch, times),
        new InitProducerIdApi(produce),
        new ProduceApi(produce, admin),
        new FetchApi(fetch, admin),
        new FindCoordinatorApi(offsetsTopic),
        new OffsetCommitApi(groups, admin),
        new OffsetFetchApi(groups, admin),
        new ListGroupsApi(groups),
        new DescribeGroupsApi(groups),
        new DeleteGroupsApi(groups),
        new OffsetDeleteApi(groups),
        new ShareGroupDescribeApi(shareGroups, admin),
        new DescribeShareGroupOffsetsApi(shareGroups, admin),
        new AlterShareGroupOffsetsApi(shareGroups, admin),
        new DeleteShareGroupOffsetsApi(shareGroups, admin)));
  }

  KafkaCore(Path dir) {
    this(dir, 1000, 2000, true);
  }

  /** Free space falls under the disk guard's threshold: new topics and partitions are refused. */
  void diskLow() {
    free.set(DISK_MIN_FREE - 1);
    disk.poll();
  }

  KafkaApi api(ApiKeys key) {
    KafkaApi api = apis.get(key.id);
    if (api == null) {
      throw new IllegalArgumentException(key + " is not served");
    }
    return api;
  }

  /** One request through the handler at {@code version}, both ways through Kafka's codec. */
  @SuppressWarnings("unchecked")
  <T extends ApiMessage> T call(ApiKeys key, short version, ApiMessage request) throws Exception {
    KafkaApi api = api(key);
    if (version < api.minVersion() || version > api.maxVersion()) {
      throw new IllegalArgumentException(key + " v" + version + " is not served");
    }
    ApiMessage decoded = roundTrip(request, key.messageType.newRequest(), version);
    ApiMessage response = api.handle(new KafkaRequest(version, 7, "test-client", decoded, NODE,
        new InetSocketAddress("127.0.0.1", 50000))).get();
    return (T) roundTrip(response, key.messageType.newResponse(), version);
  }

  private static ApiMessage roundTrip(ApiMessage message, ApiMessage empty, short version) {
    ByteBufferAccessor bytes = MessageUtil.toByteBufferAccessor(message, version);
    empty.read(bytes, version);
    return empty;
  }

  /** Appends records with these timestamps to partition 0 of {@code topic}, one batch each. */
  List<Long> append(String topic, long... timestamps) throws Exception {
    List<Long> offsets = new ArrayList<>();
    for (long ts : timestamps) {
      IncomingBatch batch = new IncomingBatch.Listed(List.of(LogRecord.of(null, ("at " + ts).getBytes(), ts,
          List.of())));
      List<BatchOutcome> out = produce.produce(new ProduceCall(null, List.of(BatchToAppend.of(topic, 0, null,
          () -> batch, 10)), false, null), e -> { }).get();
      if (out.get(0).error() != null) {
        throw new IllegalStateException(out.get(0).error() + ": " + out.get(0).errorMessage());
      }
      offsets.add(out.get(0).baseOffset());
    }
    return offsets;
  }

  @Override
  public void close() {
    timer.shutdownNow();
    groupManager.close();
    topics.close();
  }
}
