package io.brook.broker.cli;

import com.google.protobuf.ByteString;
import io.brook.protocol.Partitioner;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.DescribeTopicRequest;
import io.brook.protocol.v1.Durability;
import io.brook.protocol.v1.Header;
import io.brook.protocol.v1.InitProducerRequest;
import io.brook.protocol.v1.InitProducerResponse;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceResult;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.ProduceStreamRequest;
import io.brook.protocol.v1.ProduceStreamResponse;
import io.brook.protocol.v1.Record;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code brook produce TOPIC}: one record per line of stdin. Partitions like Kafka's producer
 * (murmur2 of the key; keyless lines stick to one partition per batch), batches per partition, and
 * pipelines up to {@code --max-in-flight} requests on one produce stream.
 */
@Command(name = "produce", mixinStandardHelpOptions = true,
    description = "Produce one record per line of standard input.")
final class ProduceCommand implements Callable<Integer> {
  @Mixin BrokerOption broker;
  @Parameters(index = "0", paramLabel = "TOPIC") String topic;
  @Option(names = {"-k", "--key-separator"}, paramLabel = "SEP",
      description = "Split each line at the first SEP into key and value (lines without it have no key).")
  String keySeparator;
  @Option(names = {"-H", "--header"}, paramLabel = "NAME=VALUE", description = "A header on every record. Repeatable.")
  Map<String, String> headers = new LinkedHashMap<>();
  @Option(names = {"-p", "--partition"}, description = "Write every record to this partition.")
  Integer partition;
  @Option(names = "--batch-size", description = "Records per batch (default ${DEFAULT-VALUE}).", defaultValue = "1000")
  int batchSize;
  @Option(names = "--max-in-flight", description = "Requests sent ahead of their answers (default ${DEFAULT-VALUE}).",
      defaultValue = "8")
  int maxInFlight;
  @Option(names = "--durability", description = "written (default) or synced (forced to disk before the answer).",
      defaultValue = "written")
  String durability;
  @Option(names = "--no-idempotence", description = "Send as a plain producer (by default the CLI is an idempotent "
      + "producer: the broker never writes a batch twice).")
  boolean noIdempotence;

  private static final int BATCH_BYTES = 512 * 1024;

  @Override
  public Integer call() throws Exception {
    if (batchSize < 1 || maxInFlight < 1) {
      throw new CliException("--batch-size and --max-in-flight must be >= 1", BrookCli.EXIT_USAGE);
    }
    Durability level = switch (durability.toLowerCase(Locale.ROOT)) {
      case "written" -> Durability.DURABILITY_WRITTEN;
      case "synced" -> Durability.DURABILITY_SYNCED;
      default -> throw new CliException("--durability must be written or synced", BrookCli.EXIT_USAGE);
    };
    List<Header> recordHeaders = new ArrayList<>();
    headers.forEach((k, v) -> recordHeaders.add(Header.newBuilder().setKey(k).setValue(ByteString.copyFromUtf8(v)).build()));

    ManagedChannel channel = BrokerOption.channel();
    try {
      int partitions = AdminServiceGrpc.newBlockingStub(channel)
          .describeTopic(DescribeTopicRequest.newBuilder().setName(topic).build()).getTopic().getPartitionsCount();
      if (partition != null && (partition < 0 || partition >= partitions)) {
        throw new CliException("topic " + topic + " has no partition " + partition + " (it has " + partitions + ")",
            BrookCli.EXIT_USAGE);
      }
      InitProducerResponse identity = noIdempotence ? null
          : ProduceServiceGrpc.newBlockingStub(channel).initProducer(InitProducerRequest.getDefaultInstance());
      Sender sender = new Sender(channel, level, identity, partitions);
      List<List<Record>> pending = new ArrayList<>();
      int[] pendingBytes = new int[partitions];
      for (int i = 0; i < partitions; i++) {
        pending.add(new ArrayList<>());
      }
      int sticky = (int) Math.floorMod(System.nanoTime(), (long) partitions);
      long lines = 0;
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16);
      for (String line; (line = in.readLine()) != null; ) {
        Record.Builder r = Record.newBuilder().addAllHeaders(recordHeaders);
        int at = keySeparator == null ? -1 : line.indexOf(keySeparator);
        byte[] key = null;
        if (at >= 0) {
          key = line.substring(0, at).getBytes(StandardCharsets.UTF_8);
          r.setKey(ByteString.copyFrom(key)).setValue(ByteString.copyFromUtf8(line.substring(at + keySeparator.length())));
        } else {
          r.setValue(ByteString.copyFromUtf8(line));
        }
        int p = partition != null ? partition : key != null ? Partitioner.partitionForKey(key, partitions) : sticky;
        Record record = r.build();
        pending.get(p).add(record);
        pendingBytes[p] += record.getSerializedSize();
        lines++;
        if (pending.get(p).size() >= batchSize || pendingBytes[p] >= BATCH_BYTES) {
          sender.send(p, pending.get(p));
          pending.set(p, new ArrayList<>());
          pendingBytes[p] = 0;
          if (p == sticky) {
            sticky = (sticky + 1) % partitions; // keyless records move on after each batch, like Kafka's sticky partitioner
          }
        }
      }
      for (int p = 0; p < partitions; p++) {
        if (!pending.get(p).isEmpty()) {
          sender.send(p, pending.get(p));
        }
      }
      sender.finish();
      if (sender.failure.get() != null) {
        throw sender.failure.get();
      }
      if (sender.failedRecords.get() > 0) {
        System.err.println("brook: " + sender.failedRecords.get() + " of " + lines + " records were refused: "
            + sender.firstError.get());
        return BrookCli.EXIT_REFUSED;
      }
      System.err.println("Produced " + lines + (lines == 1 ? " record to " : " records to ") + topic);
      return 0;
    } finally {
      BrokerOption.close(channel);
    }
  }

  /** The stream with at most maxInFlight unanswered requests. */
  private final class Sender implements StreamObserver<ProduceStreamResponse> {
    final Semaphore inFlight = new Semaphore(maxInFlight);
    final CountDownLatch closed = new CountDownLatch(1);
    final AtomicReference<StatusRuntimeException> failure = new AtomicReference<>();
    final AtomicReference<String> firstError = new AtomicReference<>();
    final AtomicLong failedRecords = new AtomicLong();
    /** Record counts of the requests sent, oldest first: the stream answers in order. */
    final java.util.Queue<Integer> sentCounts = new java.util.concurrent.ConcurrentLinkedQueue<>();
    final StreamObserver<ProduceStreamRequest> requests;
    final Durability durability;
    final InitProducerResponse identity;
    /** The next sequence per partition, for the idempotent producer. */
    final int[] nextSequence;
    long nextId;

    Sender(ManagedChannel channel, Durability durability, InitProducerResponse identity, int partitions) {
      this.durability = durability;
      this.identity = identity;
      this.nextSequence = new int[partitions];
      this.requests = ProduceServiceGrpc.newStub(channel).produceStream(this);
    }

    void send(int partition, List<Record> records) throws InterruptedException {
      inFlight.acquire();
      if (failure.get() != null) {
        throw failure.get();
      }
      sentCounts.add(records.size());
      ProduceBatch.Builder batch = ProduceBatch.newBuilder().setTopic(topic).setPartition(partition)
          .addAllRecords(records);
      ProduceRequest.Builder request = ProduceRequest.newBuilder().setDurability(durability);
      if (identity != null) {
        request.setProducerId(identity.getProducerId()).setProducerEpoch(identity.getProducerEpoch());
        batch.setBaseSequence(nextSequence[partition]);
        nextSequence[partition] = (int) (((long) nextSequence[partition] + records.size()) % (1L << 31));
      }
      requests.onNext(ProduceStreamRequest.newBuilder().setCorrelationId(nextId++)
          .setRequest(request.addBatches(batch)).build());
    }

    void finish() throws InterruptedException {
      inFlight.acquire(maxInFlight); // every answer is in
      requests.onCompleted();
      closed.await();
    }

    @Override
    public void onNext(ProduceStreamResponse response) {
      Integer sent = sentCounts.poll();
      for (ProduceResult r : response.getResponse().getResultsList()) {
        if (r.getErrorCodeValue() != 0) {
          failedRecords.addAndGet(sent == null ? 0 : sent); // one batch per request
          firstError.compareAndSet(null, r.getErrorMessage() + " (" + r.getErrorCode() + ")");
        }
      }
      inFlight.release();
    }

    @Override
    public void onError(Throwable t) {
      failure.set(t instanceof StatusRuntimeException s ? s : io.grpc.Status.fromThrowable(t).asRuntimeException());
      inFlight.release(maxInFlight);
      closed.countDown();
    }

    @Override
    public void onCompleted() {
      closed.countDown();
    }
  }
}
