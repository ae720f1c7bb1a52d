package io.brook.perf;

import com.google.protobuf.ByteString;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.CreateTopicRequest;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceResult;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.ProduceStreamRequest;
import io.brook.protocol.v1.ProduceStreamResponse;
import io.brook.protocol.v1.Record;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * End-to-end produce throughput: N records of S bytes over one produce stream, in batches of B
 * records, with up to F requests in flight, round robin over the topic's partitions. Prints one
 * line of figures. A warm-up pass of the same size runs first (JIT on both sides).
 *
 * <pre>java -cp perf/target/brook-perf.jar io.brook.perf.ProduceDriver HOST:PORT [records] [size] [batch] [inflight] [partitions]</pre>
 */
public final class ProduceDriver {
  public static void main(String[] args) throws Exception {
    String address = args.length > 0 ? args[0] : "127.0.0.1:7070";
    long records = args.length > 1 ? Long.parseLong(args[1]) : 1_000_000;
    int size = args.length > 2 ? Integer.parseInt(args[2]) : 100;
    int batch = args.length > 3 ? Integer.parseInt(args[3]) : 1000;
    int inFlight = args.length > 4 ? Integer.parseInt(args[4]) : 8;
    int partitions = args.length > 5 ? Integer.parseInt(args[5]) : 3;
    int colon = address.lastIndexOf(':');
    ManagedChannel channel = NettyChannelBuilder.forAddress(address.substring(0, colon),
        Integer.parseInt(address.substring(colon + 1))).usePlaintext().build();
    try {
      for (String topic : new String[] {"warmup", "bench"}) {
        try {
          AdminServiceGrpc.newBlockingStub(channel).createTopic(CreateTopicRequest.newBuilder().setName(topic)
              .setPartitions(partitions).build());
        } catch (StatusRuntimeException e) {
          if (e.getStatus().getCode() != io.grpc.Status.Code.ALREADY_EXISTS) {
            throw e;
          }
        }
      }
      run(channel, "warmup", records, size, batch, inFlight, partitions);
      double seconds = run(channel, "bench", records, size, batch, inFlight, partitions);
      System.out.printf("produce-driver: %d records x %d B, batch %d, in-flight %d, %d partitions: "
              + "%.2f s, %.0f records/s, %.1f MB/s%n", records, size, batch, inFlight, partitions, seconds,
          records / seconds, records * (double) size / seconds / 1e6);
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static double run(ManagedChannel channel, String topic, long records, int size, int batch, int inFlight,
      int partitions) throws Exception {
    byte[] payload = new byte[size];
    new Random(1).nextBytes(payload);
    Record record = Record.newBuilder().setValue(ByteString.copyFrom(payload)).build();
    List<ProduceStreamRequest> requests = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      ProduceBatch.Builder b = ProduceBatch.newBuilder().setTopic(topic).setPartition(p);
      for (int i = 0; i < batch; i++) {
        b.addRecords(record);
      }
      requests.add(ProduceStreamRequest.newBuilder().setRequest(ProduceRequest.newBuilder().addBatches(b)).build());
    }
    Semaphore window = new Semaphore(inFlight);
    CountDownLatch done = new CountDownLatch(1);
    AtomicLong acked = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    StreamObserver<ProduceStreamRequest> stream = ProduceServiceGrpc.newStub(channel).produceStream(
        new StreamObserver<>() {
          @Override
          public void onNext(ProduceStreamResponse r) {
            for (ProduceResult result : r.getResponse().getResultsList()) {
              if (result.getErrorCodeValue() != 0) {
                failure.compareAndSet(null, new IllegalStateException(result.getErrorMessage()));
              }
              acked.addAndGet(result.getRecordCount());
            }
            window.release();
          }

          @Override
          public void onError(Throwable t) {
            failure.set(t);
            window.release(inFlight);
            done.countDown();
          }

          @Override
          public void onCompleted() {
            done.countDown();
          }
        });
    long started = System.nanoTime();
    long sent = 0;
    for (int i = 0; sent < records && failure.get() == null; i++) {
      window.acquire();
      stream.onNext(requests.get(i % partitions));
      sent += batch;
    }
    window.acquire(inFlight);
    stream.onCompleted();
    done.await(60, TimeUnit.SECONDS);
    double seconds = (System.nanoTime() - started) / 1e9;
    if (failure.get() != null) {
      throw new IllegalStateException("produce failed", failure.get());
    }
    if (acked.get() < records) {
      throw new IllegalStateException("only " + acked.get() + " of " + records + " records acknowledged");
    }
    return seconds;
  }
}
