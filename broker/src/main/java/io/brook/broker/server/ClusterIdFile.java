package io.brook.broker.server;

import io.brook.broker.kafka.ClusterId;
import io.brook.broker.storage.StorageException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/** The data directory's cluster id (file cluster.id): read, or made and written once (D44). */
final class ClusterIdFile {
  static final String NAME = "cluster.id";

  private ClusterIdFile() {}

  static String load(Path dataDir) {
    Path file = dataDir.resolve(NAME);
    try {
      if (Files.exists(file)) {
        String id = Files.readString(file, StandardCharsets.UTF_8).strip();
        if (!ClusterId.valid(id)) {
          throw new StorageException(file + " does not hold a cluster id (a 22-character base64 UUID): '" + id
              + "'; restore it, or delete it to make a new one (Kafka clients then see another cluster)");
        }
        return id;
      }
      String id = ClusterId.random();
      Path tmp = dataDir.resolve(NAME + ".tmp");
      Files.writeString(tmp, id + "\n", StandardCharsets.UTF_8);
      try (FileChannel c = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        c.force(true); // on disk before it is the id: a crash leaves the old state or the whole new file
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
      return id;
    } catch (IOException e) {
      throw new StorageException("cannot read or write " + file + ": " + e.getMessage(), e);
    }
  }
}
