package io.brook.client.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.client.Serdes;
import io.brook.client.errors.BrookException;
import io.brook.protocol.batch.BatchReader;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.DescribeTopicRequest;
import io.brook.protocol.v1.DescribeTopicResponse;
import io.brook.protocol.v1.ErrorCode;
import io.brook.protocol.v1.InitProducerRequest;
import io.brook.protocol.v1.InitProducerResponse;
import io.brook.protocol.v1.PartitionDescription;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceResponse;
import io.brook.protocol.v1.ProduceResult;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.ProduceStreamRequest;
import io.brook.protocol.v1.ProduceStreamResponse;
import io.brook.protocol.v1.TopicDescription;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A producer against a broker older than ProduceBatch.kafka_batch (D49), played by a gRPC server on
 * 127.0.0.1 that does what such a broker does: the field is unknown to it, so a batch that carries
 * only it is an empty batch, refused with INVALID_RECORD, in an answer without reads_kafka_batch.
 * (The previous broker release cannot be started from this build.)
 */
class OlderBrokerTest {
  private final List<String> log = new ArrayList<>();
  private Server server;

  @BeforeEach
  void start() throws Exception {
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(new OldProduce()).addService(new OldAdmin()).build().start();
  }

  @AfterEach
  void stop() throws Exception {
    server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
  }

  private BrookProducer<String, String> producer(CompressionType codec) {
    return new BrookProducer<>(ProducerConfig.builder().broker("127.0.0.1:" + server.getPort()).compression(codec)
        .build(), Serdes.stringSerializer(), Serdes.stringSerializer());
  }

  @Test
  void uncompressedBatchesGoAsEncodedRecordsAndAreWrittenOnceInOrder() throws Exception {
    List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
    try (BrookProducer<String, String> producer = producer(CompressionType.NONE)) {
      for (int i = 0; i < 30; i++) {
        futures.add(producer.send(new ProducerRecord<>("t", 0, null, "r" + i)));
      }
      producer.flush();
    }
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      assertThat(futures.get(i).get().offset()).isEqualTo(i);
      expected.add("r" + i);
    }
    synchronized (log) {
      assertThat(log).isEqualTo(expected);
    }
  }

  @Test
  void compressedBatchesFailSayingWhy() {
    CompletableFuture<RecordMetadata> f;
    try (BrookProducer<String, String> producer = producer(CompressionType.ZSTD)) {
      f = producer.send(new ProducerRecord<>("t", 0, null, "compressed"));
      producer.flush();
    }
    assertThatThrownBy(f::get).cause().isInstanceOf(BrookException.class)
        .hasMessageContaining("predates compressed batches")
        .satisfies(e -> assertThat(((BrookException) e).reason()).isEqualTo("UNSUPPORTED_COMPRESSION"));
    synchronized (log) {
      assertThat(log).isEmpty();
    }
  }

  private final class OldProduce extends ProduceServiceGrpc.ProduceServiceImplBase {
    @Override
    public void initProducer(InitProducerRequest request, StreamObserver<InitProducerResponse> out) {
      out.onNext(InitProducerResponse.newBuilder().setProducerId(1).setProducerEpoch(0).build());
      out.onCompleted();
    }

    @Override
    public StreamObserver<ProduceStreamRequest> produceStream(StreamObserver<ProduceStreamResponse> out) {
      return new StreamObserver<>() {
        @Override
        public void onNext(ProduceStreamRequest request) {
          ProduceResponse.Builder response = ProduceResponse.newBuilder(); // no reads_kafka_batch
          for (int i = 0; i < request.getRequest().getBatchesCount(); i++) {
            response.addResults(append(i, request.getRequest().getBatches(i)));
          }
          out.onNext(ProduceStreamResponse.newBuilder().setCorrelationId(request.getCorrelationId())
              .setResponse(response).build());
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onCompleted() {
          out.onCompleted();
        }
      };
    }

    /** What the older broker does with a batch: kafka_batch is an unknown field, so it is not there. */
    private ProduceResult append(int index, ProduceBatch b) {
      ProduceResult.Builder r = ProduceResult.newBuilder().setBatchIndex(index).setTopic(b.getTopic())
          .setPartition(b.getPartition());
      if (!b.hasEncodedRecords()) {
        return r.setErrorCode(ErrorCode.ERROR_CODE_INVALID_RECORD)
            .setErrorMessage("empty batch for " + b.getTopic() + ": a produce request needs at least one record").build();
      }
      byte[] section = b.getEncodedRecords().getRecords().toByteArray();
      BatchReader in = new BatchReader().wrapRecords(section, 0, section.length,
          b.getEncodedRecords().getRecordCount(), b.getEncodedRecords().getBaseTimestampMs());
      synchronized (log) {
        r.setBaseOffset(log.size()).setRecordCount(b.getEncodedRecords().getRecordCount());
        while (in.next()) {
          log.add(new String(in.copyValue(), StandardCharsets.UTF_8));
        }
      }
      return r.build();
    }
  }

  private static final class OldAdmin extends AdminServiceGrpc.AdminServiceImplBase {
    @Override
    public void describeTopic(DescribeTopicRequest request, StreamObserver<DescribeTopicResponse> out) {
      out.onNext(DescribeTopicResponse.newBuilder().setTopic(TopicDescription.newBuilder().setName(request.getName())
          .addPartitions(PartitionDescription.newBuilder().setPartition(0))).build());
      out.onCompleted();
    }
  }
}
