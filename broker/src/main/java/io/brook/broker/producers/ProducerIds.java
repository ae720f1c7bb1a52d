package io.brook.broker.producers;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.storage.StorageException;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Hands out producer ids and epochs, broker-wide. Ids are reserved on disk in blocks, so an id is
 * never handed out twice, even after kill -9; epochs bumped by InitProducer for an existing id are
 * kept in the same file (bumps are rare: a producer restarting) until the producer expires.
 */
public final class ProducerIds {
  private static final long BLOCK = 1000;

  private final Path file;
  private long next;
  private long reservedUpTo;
  private final Map<Long, Short> epochs = new HashMap<>();
  private final Map<Long, Long> bumpedAt = new HashMap<>();

  public ProducerIds(Path dataDir) {
    this.file = dataDir.resolve("producer-ids.properties");
    Properties p = new Properties();
    if (Files.exists(file)) {
      try (Reader r = Files.newBufferedReader(file)) {
        p.load(r);
      } catch (IOException e) {
        throw new StorageException("cannot read " + file + ": " + e.getMessage(), e);
      }
    }
    reservedUpTo = Long.parseLong(p.getProperty("reserved.up.to", "1"));
    next = reservedUpTo; // ids below were possibly handed out before a crash: never reuse them
    for (String key : p.stringPropertyNames()) {
      if (key.startsWith("epoch.")) {
        long id = Long.parseLong(key.substring("epoch.".length()));
        String[] v = p.getProperty(key).split(",");
        epochs.put(id, Short.parseShort(v[0]));
        bumpedAt.put(id, Long.parseLong(v[1]));
      }
    }
  }

  /** A new producer id, epoch 0. */
  public synchronized long allocate() {
    if (next >= reservedUpTo) {
      reservedUpTo = next + BLOCK;
      persist();
    }
    return next++;
  }

  /** The next epoch of an existing producer id: older epochs are fenced from now on. */
  public synchronized short bump(long producerId, long nowMs) {
    checkKnown(producerId);
    short current = epochs.getOrDefault(producerId, (short) 0);
    if (current == Short.MAX_VALUE) {
      throw new BrokerException(BrokerError.INVALID_REQUEST, "producer " + producerId
          + " has used every epoch: call InitProducer without an id for a new one");
    }
    short bumped = (short) (current + 1);
    epochs.put(producerId, bumped);
    bumpedAt.put(producerId, nowMs);
    persist();
    return bumped;
  }

  /**
   * Checks a produce's identity: the id was handed out and the epoch is the current one.
   *
   * @throws BrokerException UNKNOWN_PRODUCER_ID or PRODUCER_FENCED
   */
  public synchronized void checkCurrent(long producerId, int epoch) {
    checkKnown(producerId);
    short current = epochs.getOrDefault(producerId, (short) 0);
    if (epoch < current) {
      throw new BrokerException(BrokerError.PRODUCER_FENCED, "producer " + producerId + " epoch " + epoch
          + " is fenced: the current epoch is " + current);
    }
    if (epoch > current) {
      throw new BrokerException(BrokerError.UNKNOWN_PRODUCER_ID, "producer " + producerId + " has no epoch "
          + epoch + " (the current one is " + current + "): use the epoch InitProducer returned");
    }
  }

  private void checkKnown(long producerId) {
    if (producerId <= 0 || producerId >= reservedUpTo) {
      throw new BrokerException(BrokerError.UNKNOWN_PRODUCER_ID, "unknown producer id " + producerId
          + ": call InitProducer for one");
    }
  }

  /** Forgets epochs of producers bumped before {@code olderThanMs}; returns how many. */
  public synchronized int expire(long olderThanMs) {
    int before = epochs.size();
    bumpedAt.entrySet().removeIf(e -> {
      boolean old = e.getValue() < olderThanMs;
      if (old) {
        epochs.remove(e.getKey());
      }
      return old;
    });
    if (epochs.size() != before) {
      persist();
    }
    return before - epochs.size();
  }

  private void persist() {
    Properties p = new Properties();
    p.setProperty("reserved.up.to", Long.toString(reservedUpTo));
    epochs.forEach((id, epoch) -> p.setProperty("epoch." + id, epoch + "," + bumpedAt.get(id)));
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try {
      try (Writer w = Files.newBufferedWriter(tmp)) {
        p.store(w, "Brook producer ids: do not edit while the broker runs");
      }
      try (FileChannel c = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        c.force(true);
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      try (FileChannel d = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
        d.force(true);
      }
    } catch (IOException e) {
      throw new BrokerException(BrokerError.STORAGE_ERROR, "cannot write " + file + ": " + e.getMessage());
    }
  }
}
