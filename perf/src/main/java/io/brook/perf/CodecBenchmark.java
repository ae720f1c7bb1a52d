package io.brook.perf;

import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.AppendBatch;
import io.brook.broker.storage.BatchCodec;
import io.brook.broker.storage.ByteWriter;
import io.brook.broker.storage.StorageException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Brook's record codecs against Apache Kafka's record batch codec (kafka-clients 4.3.1, magic v2,
 * no compression), in memory, same records, same run: {@code batchSize} records of
 * {@code recordSize} random value bytes, no key, no headers, the same create timestamp.
 *
 * <ul>
 *   <li>{@code brookEncode}: the broker's storage codec ({@code BatchCodec.encode}, what
 *       {@code ChronicleLog.append} runs before the Chronicle write) of a prebuilt
 *       {@link AppendBatch} into a reused buffer, CRC32C of the records included.
 *   <li>{@code kafkaEncode}: {@code MemoryRecords.builder} over a reused heap buffer,
 *       {@code append(timestamp, null, value, EMPTY_HEADERS)} per record and {@code build()}, which
 *       writes the batch header and its CRC32C: what Kafka's producer does per batch. It is the peer of
 *       both Brook encodings: brookEncode and the Java client's {@code brookClientEncode}
 *       (io.brook.client.producer.ClientCodecBenchmark, client-java's own benchmark, same records and
 *       settings). Kafka's client sends that batch as is; its broker keeps it as is.
 *   <li>{@code brookDecode}: CRC32C check of a stored batch, then {@code BatchCodec.decode} of all its
 *       records into {@code LogRecord}s (key and value copied out), as {@code ChronicleLog.read} with
 *       checksums on, minus Chronicle.
 *   <li>{@code kafkaDecode}: {@code MemoryRecords.readableRecords(buffer).batches()},
 *       {@code ensureValid()} (CRC32C) per batch, then every record's offset, timestamp and value
 *       (a ByteBuffer slice of the batch: Kafka does not copy it).
 * </ul>
 *
 * <p>The primary score is calls (batches) per second; the secondary metric {@code records} (an
 * {@link AuxCounters} counter, {@code batchSize} per call) is records per second.
 */
@State(Scope.Thread)
public class CodecBenchmark extends MicroBenchmark {
  private static final long BASE_OFFSET = 1000;

  @Param({"100", "1024"})
  public int recordSize;

  @Param({"1", "100"})
  public int batchSize;

  private long timestamp;
  private byte[][] values;
  private AppendBatch batch;
  // The storage codec's reusable state, as ChronicleLog's append path and readers keep theirs.
  private final ByteWriter brookOut = new ByteWriter(64 * 1024);
  private final io.brook.protocol.batch.BatchReader brookIn = new io.brook.protocol.batch.BatchReader();
  private final CRC32C brookCrc = new CRC32C();
  private byte[] brookStored;
  private final List<LogRecord> decoded = new ArrayList<>();
  private ByteBuffer kafkaOut;
  private ByteBuffer kafkaStored;

  @Setup(Level.Trial)
  public void setUp() {
    SplittableRandom random = new SplittableRandom(42);
    timestamp = System.currentTimeMillis();
    values = new byte[batchSize][];
    List<LogRecord> records = new ArrayList<>(batchSize);
    for (int i = 0; i < batchSize; i++) {
      values[i] = new byte[recordSize];
      random.nextBytes(values[i]);
      records.add(LogRecord.of(null, values[i], timestamp, List.of()));
    }
    batch = AppendBatch.of(records, timestamp);

    // Each side decodes what it encoded, so a broken codec cannot produce a figure.
    int length = brookEncodeOnce();
    brookStored = Arrays.copyOf(brookOut.array(), length);
    brookDecodeInto(decoded);
    check(decoded.size() == batchSize, "Brook decoded " + decoded.size() + " records");
    for (int i = 0; i < batchSize; i++) {
      check(Arrays.equals(decoded.get(i).value(), values[i]) && decoded.get(i).offset() == BASE_OFFSET + i
          && decoded.get(i).timestamp() == timestamp, "Brook record " + i + " differs");
    }
    decoded.clear();

    // Kafka's builder grows its buffer when it is too small: size it for the batch once.
    kafkaOut = ByteBuffer.allocate(batchSize * (recordSize + 32) + 128);
    MemoryRecordsBuilder builder = kafkaAppend();
    check(builder.buffer() == kafkaOut, "Kafka's builder outgrew its buffer");
    MemoryRecords built = builder.build();
    kafkaStored = ByteBuffer.allocate(built.sizeInBytes());
    kafkaStored.put(built.buffer().duplicate()).flip();
    int n = 0;
    for (MutableRecordBatch b : MemoryRecords.readableRecords(kafkaStored.duplicate()).batches()) {
      b.ensureValid();
      for (Record r : b) {
        byte[] v = new byte[r.valueSize()];
        r.value().get(v);
        check(Arrays.equals(v, values[n]) && r.offset() == BASE_OFFSET + n && r.timestamp() == timestamp,
            "Kafka record " + n + " differs");
        n++;
      }
    }
    check(n == batchSize, "Kafka decoded " + n + " records");
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException(what);
    }
  }

  /** Encodes the batch (with its CRC32C) as ChronicleLog's append does; returns the stored length. */
  private int brookEncodeOnce() {
    return BatchCodec.encode(brookOut, batch, BASE_OFFSET, Long.MIN_VALUE, 0, brookCrc).storedLength();
  }

  /** Checks the stored batch's CRC32C and decodes all its records, as ChronicleLog's reads do with checksums on. */
  private int brookDecodeInto(List<LogRecord> records) {
    if (!BatchCodec.checksumMatches(brookStored, 0, brookStored.length, brookCrc)) {
      throw new StorageException("batch fails its checksum");
    }
    return BatchCodec.decode(brookStored, 0, brookStored.length, BASE_OFFSET, Integer.MAX_VALUE, Integer.MAX_VALUE,
        records, brookIn);
  }

  private MemoryRecordsBuilder kafkaAppend() {
    kafkaOut.clear();
    MemoryRecordsBuilder builder = MemoryRecords.builder(kafkaOut, RecordBatch.MAGIC_VALUE_V2, Compression.NONE,
        TimestampType.CREATE_TIME, BASE_OFFSET);
    for (byte[] v : values) {
      builder.append(timestamp, null, v, Record.EMPTY_HEADERS);
    }
    return builder;
  }

  @Benchmark
  public void brookEncode(RecordCounter counter, Blackhole bh) {
    bh.consume(brookEncodeOnce());
    counter.records += batchSize;
  }

  @Benchmark
  public void kafkaEncode(RecordCounter counter, Blackhole bh) {
    bh.consume(kafkaAppend().build());
    counter.records += batchSize;
  }

  @Benchmark
  public void brookDecode(RecordCounter counter, Blackhole bh) {
    List<LogRecord> out = decoded;
    out.clear();
    brookDecodeInto(out);
    for (int i = 0; i < out.size(); i++) {
      bh.consume(out.get(i));
    }
    counter.records += out.size();
  }

  @Benchmark
  public void kafkaDecode(RecordCounter counter, Blackhole bh) {
    int n = 0;
    for (MutableRecordBatch b : MemoryRecords.readableRecords(kafkaStored.duplicate()).batches()) {
      b.ensureValid();
      for (Record r : b) {
        bh.consume(r.offset());
        bh.consume(r.timestamp());
        bh.consume(r.value());
        n++;
      }
    }
    counter.records += n;
  }
}
