package io.brook.perf;

import com.google.protobuf.ByteString;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.CreateTopicRequest;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceStreamRequest;
import io.brook.protocol.v1.Record;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

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
    return PipelinedProduce.send(channel, requests, records, batch, inFlight, "produce");
  }
}
