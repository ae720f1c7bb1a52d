package io.brook.perf;

import com.google.protobuf.ByteString;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.CreateTopicRequest;
import io.brook.protocol.v1.DescribeTopicRequest;
import io.brook.protocol.v1.Durability;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.Record;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * SYNCED produce throughput: P producers (each its own channel and produce stream), each keeping up
 * to F requests of one 100 B record in flight to partition 0 (F=1: send, wait for the answer, send
 * again; F=5: pipelined like a Kafka producer's max 5 in-flight batches), for S seconds after a 2 s
 * warm-up. Prints records/s and the forces the broker made (DescribeTopic force_count).
 *
 * <pre>java -cp perf/target/brook-perf.jar io.brook.perf.SyncedDriver HOST:PORT [producers=16] [seconds=10]
 *     [synced|written] [inflight=1]</pre>
 */
public final class SyncedDriver {
  public static void main(String[] args) throws Exception {
    String address = args[0];
    int producers = args.length > 1 ? Integer.parseInt(args[1]) : 16;
    int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 10;
    Durability durability = args.length > 3 && args[3].equals("written") ? Durability.DURABILITY_WRITTEN
        : Durability.DURABILITY_SYNCED;
    int inFlight = args.length > 4 ? Integer.parseInt(args[4]) : 1;
    int colon = address.lastIndexOf(':');
    String host = address.substring(0, colon);
    int port = Integer.parseInt(address.substring(colon + 1));
    ManagedChannel admin = NettyChannelBuilder.forAddress(host, port).usePlaintext().build();
    AdminServiceGrpc.newBlockingStub(admin).createTopic(CreateTopicRequest.newBuilder().setName("synced")
        .setPartitions(1).build());
    ProduceRequest request = ProduceRequest.newBuilder().setDurability(durability)
        .addBatches(ProduceBatch.newBuilder().setTopic("synced").setPartition(0)
            .addRecords(Record.newBuilder().setValue(ByteString.copyFrom(new byte[100])))).build();
    AtomicLong counted = new AtomicLong();
    long warmupEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    long end = warmupEnd + TimeUnit.SECONDS.toNanos(seconds);
    List<Thread> threads = new ArrayList<>();
    List<ManagedChannel> channels = new ArrayList<>();
    long[] forcesAtStart = new long[1];
    for (int p = 0; p < producers; p++) {
      ManagedChannel channel = NettyChannelBuilder.forAddress(host, port).usePlaintext().build();
      channels.add(channel);
      Thread t = new Thread(() -> {
        java.util.concurrent.Semaphore window = new java.util.concurrent.Semaphore(inFlight);
        io.grpc.stub.StreamObserver<io.brook.protocol.v1.ProduceStreamRequest> stream = ProduceServiceGrpc
            .newStub(channel).produceStream(new io.grpc.stub.StreamObserver<>() {
              @Override
              public void onNext(io.brook.protocol.v1.ProduceStreamResponse r) {
                long now = System.nanoTime();
                if (now >= warmupEnd && now < end) {
                  counted.incrementAndGet();
                }
                window.release();
              }

              @Override
              public void onError(Throwable e) {
                window.release(inFlight);
              }

              @Override
              public void onCompleted() {}
            });
        io.brook.protocol.v1.ProduceStreamRequest message = io.brook.protocol.v1.ProduceStreamRequest.newBuilder()
            .setRequest(request).build();
        try {
          while (System.nanoTime() < end) {
            window.acquire();
            stream.onNext(message);
          }
          window.acquire(inFlight);
          stream.onCompleted();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      threads.add(t);
      t.start();
    }
    Thread.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(warmupEnd - System.nanoTime())));
    forcesAtStart[0] = forces(admin);
    for (Thread t : threads) {
      t.join();
    }
    long forced = forces(admin) - forcesAtStart[0];
    System.out.printf("synced-driver: %d producers x %d in flight, %s, %d s: %.0f records/s (%d requests, %d forces, %.1f requests per force)%n",
        producers, inFlight, durability == Durability.DURABILITY_SYNCED ? "SYNCED" : "WRITTEN", seconds,
        counted.get() / (double) seconds, counted.get(), forced,
        forced == 0 ? 0.0 : counted.get() / (double) forced);
    for (ManagedChannel c : channels) {
      c.shutdownNow();
    }
    admin.shutdownNow();
  }

  private static long forces(ManagedChannel admin) {
    return AdminServiceGrpc.newBlockingStub(admin).describeTopic(DescribeTopicRequest.newBuilder().setName("synced")
        .build()).getTopic().getPartitions(0).getForceCount();
  }
}
