package io.brook.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Random;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/**
 * The shared vector file is computed by kafka-clients' own murmur2, and our partitioner must agree
 * with every vector. Regenerate with {@code -Dbrook.regenerateVectors=true} (the file is then
 * rewritten from kafka-clients; the Go and Java clients test against the same file).
 */
class PartitionerVectorsTest {
  static final Path VECTORS = Path.of("testdata/partitioner-vectors.json");

  @Test
  void vectorFileMatchesKafkaAndOurs() throws IOException {
    if (Boolean.getBoolean("brook.regenerateVectors")) {
      Files.writeString(VECTORS, generate());
    }
    assertThat(VECTORS).as("the shared vector file (regenerate with -Dbrook.regenerateVectors=true)").exists();
    JsonObject root = new Gson().fromJson(Files.readString(VECTORS), JsonObject.class);
    JsonArray vectors = root.getAsJsonArray("vectors");
    assertThat(vectors.size()).isGreaterThan(500);
    for (var element : vectors) {
      JsonObject v = element.getAsJsonObject();
      byte[] key = Base64.getDecoder().decode(v.get("key_base64").getAsString());
      int partitions = v.get("partitions").getAsInt();
      int expected = v.get("partition").getAsInt();
      assertThat(Utils.toPositive(Utils.murmur2(key)) % partitions)
          .as("kafka-clients on vector %s", v)
          .isEqualTo(expected);
      assertThat(Partitioner.partitionForKey(key, partitions)).as("brook on vector %s", v).isEqualTo(expected);
      assertThat(Partitioner.murmur2(key)).isEqualTo(Utils.murmur2(key));
    }
  }

  @Test
  void randomKeysAgreeWithKafka() {
    Random random = new Random(42);
    for (int i = 0; i < 100_000; i++) {
      byte[] key = new byte[random.nextInt(64)];
      random.nextBytes(key);
      int partitions = 1 + random.nextInt(1000);
      assertThat(Partitioner.partitionForKey(key, partitions))
          .isEqualTo(Utils.toPositive(Utils.murmur2(key)) % partitions);
    }
  }

  /** Vectors cover every tail length, empty keys, text keys and high-bit bytes. */
  private static String generate() {
    Random random = new Random(20261122);
    JsonArray vectors = new JsonArray();
    int[] partitionCounts = {1, 2, 3, 7, 10, 12, 64, 100, 1000};
    String[] textKeys = {"", "a", "ab", "abc", "abcd", "orders", "customer-42", "user:1", "\u00e9t\u00e9", "21"};
    for (String text : textKeys) {
      for (int partitions : partitionCounts) {
        vectors.add(vector(text.getBytes(StandardCharsets.UTF_8), partitions));
      }
    }
    for (int i = 0; i < 600; i++) {
      byte[] key = new byte[i % 40];
      random.nextBytes(key);
      vectors.add(vector(key, partitionCounts[i % partitionCounts.length]));
    }
    JsonObject root = new JsonObject();
    root.addProperty("description",
        "Kafka default partitioner vectors: partition = toPositive(murmur2(key)) % partitions,"
            + " computed by org.apache.kafka.common.utils.Utils (kafka-clients). Keys are base64.");
    root.add("vectors", vectors);
    Gson gson = new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create();
    return gson.toJson(root) + "\n";
  }

  private static JsonObject vector(byte[] key, int partitions) {
    JsonObject v = new JsonObject();
    v.addProperty("key_base64", Base64.getEncoder().encodeToString(key));
    v.addProperty("partitions", partitions);
    v.addProperty("partition", Utils.toPositive(Utils.murmur2(key)) % partitions);
    return v;
  }
}
