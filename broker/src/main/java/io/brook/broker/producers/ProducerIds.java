package io.brook.broker.producers;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.errors.Ownership;
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
import java.util.Iterator;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Hands out producer ids and epochs, broker-wide, and knows which principal owns each id. Ids are
 * reserved on disk in blocks, so an id is never handed out twice, even after kill -9. With auth on,
 * each principal is handed ids from blocks of its own, and a block's owner is on disk before its
 * first id goes out: ownership survives a kill at the cost of one write per thousand ids, not one
 * per InitProducer. Epochs bumped by InitProducer are kept in the same file (bumps are rare: a
 * producer restarting). Blocks and bumped epochs are forgotten once none of their ids was used for
 * producer.id.expiration.ms; an id from before auth (or forgotten) has no owner until a principal
 * bumps it.
 *
 * <p>File (producer-ids.properties): {@code reserved.up.to=N}, {@code epoch.ID=EPOCH,USED_MS[,OWNER]},
 * {@code block.START=END,USED_MS,OWNER}. Files of earlier versions (no blocks, no owners) read as
 * ids without an owner.
 */
public final class ProducerIds {
  private static final long BLOCK = 1000;

  /** Ids [start, end) reserved for one principal; next is handed out next (this run only). */
  private static final class Block {
    final long start;
    final long end;
    final String owner;
    long next;
    long usedMs;

    Block(long start, long end, String owner, long usedMs) {
      this.start = start;
      this.end = end;
      this.owner = owner;
      this.next = end; // a block read from disk hands out nothing more: its ids may have gone out
      this.usedMs = usedMs;
    }
  }

  /** An id InitProducer bumped; owner is the principal that did (auth on), for ids outside a block. */
  private static final class Bumped {
    short epoch;
    String owner;
    long usedMs;

    Bumped(short epoch, String owner, long usedMs) {
      this.epoch = epoch;
      this.owner = owner;
      this.usedMs = usedMs;
    }
  }

  private final Path file;
  /** Ids handed out without an owner (auth off) come from [next, nextEnd). */
  private long next;
  private long nextEnd;
  private long reservedUpTo;
  private final TreeMap<Long, Block> blocks = new TreeMap<>();
  /** The block each principal is handed ids from now. */
  private final Map<String, Block> current = new HashMap<>();
  private final Map<Long, Bumped> bumped = new HashMap<>();
  /** A use moved a timestamp since the file was written: the next expiry pass writes it. */
  private boolean dirty;

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
    nextEnd = reservedUpTo;
    for (String key : p.stringPropertyNames()) {
      if (key.startsWith("epoch.")) {
        long id = Long.parseLong(key.substring("epoch.".length()));
        String[] v = p.getProperty(key).split(",", 3);
        bumped.put(id, new Bumped(Short.parseShort(v[0]), v.length > 2 ? v[2] : null, Long.parseLong(v[1])));
      } else if (key.startsWith("block.")) {
        long start = Long.parseLong(key.substring("block.".length()));
        String[] v = p.getProperty(key).split(",", 3);
        blocks.put(start, new Block(start, Long.parseLong(v[0]), v[2], Long.parseLong(v[1])));
      }
    }
  }

  /**
   * A new producer id, epoch 0.
   *
   * @param owner the principal asking (null with auth off: the id has no owner)
   */
  public synchronized long allocate(String owner, long nowMs) {
    if (owner == null) {
      if (next >= nextEnd) {
        reserve(null);
        next = reservedUpTo - BLOCK;
        nextEnd = reservedUpTo;
      }
      return next++;
    }
    Block b = current.get(owner);
    if (b == null || b.next >= b.end) {
      b = new Block(reservedUpTo, reservedUpTo + BLOCK, owner, nowMs);
      reserve(b); // the owner is on disk before the block's first id goes out
      b.next = b.start;
      current.put(owner, b);
    } else {
      b.usedMs = nowMs;
      dirty = true;
    }
    return b.next++;
  }

  /** Reserves the next block on disk (owned, or for ids without an owner); nothing changes if the write fails. */
  private void reserve(Block owned) {
    long before = reservedUpTo;
    reservedUpTo += BLOCK;
    if (owned != null) {
      blocks.put(owned.start, owned);
    }
    try {
      persist();
    } catch (RuntimeException e) {
      reservedUpTo = before;
      if (owned != null) {
        blocks.remove(owned.start);
      }
      throw e;
    }
  }

  /**
   * The next epoch of an existing producer id: older epochs are fenced from now on. A principal
   * bumping an id that has no owner becomes its owner.
   *
   * @throws BrokerException UNKNOWN_PRODUCER_ID, or NOT_OWNER for another principal's id
   */
  public synchronized short bump(long producerId, String caller, long nowMs) {
    checkKnown(producerId);
    checkOwner(producerId, caller);
    Bumped b = bumped.get(producerId);
    short current = b == null ? 0 : b.epoch;
    if (current == Short.MAX_VALUE) {
      throw new BrokerException(BrokerError.INVALID_REQUEST, "producer " + producerId
          + " has used every epoch: call InitProducer without an id for a new one");
    }
    moveTo(producerId, b, (short) (current + 1), caller, nowMs);
    return (short) (current + 1);
  }

  /**
   * Makes {@code epoch} the current one of {@code producerId} (its entry {@code b}, or none yet) and
   * writes it down; a failed write leaves the id as it was, so a retry is checked against what is on disk.
   */
  private void moveTo(long producerId, Bumped b, short epoch, String caller, long nowMs) {
    Bumped before = b == null ? null : new Bumped(b.epoch, b.owner, b.usedMs);
    Bumped now = b == null ? new Bumped(epoch, null, nowMs) : b;
    bumped.put(producerId, now);
    now.epoch = epoch;
    if (caller != null) {
      now.owner = caller; // the owner already, or the first principal to claim an id without one
    }
    touch(producerId, nowMs);
    try {
      persist();
    } catch (BrokerException e) {
      if (before == null) {
        bumped.remove(producerId);
      } else {
        bumped.put(producerId, before);
      }
      throw e;
    }
  }

  /**
   * Whether the caller may write under (or bump) this producer id.
   *
   * @throws BrokerException NOT_OWNER when another principal owns it
   */
  public synchronized void checkOwner(long producerId, String caller) {
    if (caller != null) {
      Ownership.check(owner(producerId), caller, "producer id " + producerId);
    }
  }

  /**
   * Checks a produce's identity: the caller may use the id, the id was handed out and the epoch is
   * the current one, or a later one at sequence 0. A later epoch at sequence 0 is the producer's own
   * bump (KIP-360: kafka-clients' idempotent producer moves to the next epoch itself, without
   * InitProducerId, when a sent batch expired with its outcome unknown, and restarts its sequences at
   * 0), taken as Kafka takes it: it becomes the current epoch, which fences the older ones here as an
   * InitProducer bump does. A produce keeps the id from expiring.
   *
   * @throws BrokerException NOT_OWNER, UNKNOWN_PRODUCER_ID or PRODUCER_FENCED
   */
  public synchronized void checkCurrent(long producerId, int epoch, int baseSequence, String caller, long nowMs) {
    checkKnown(producerId);
    checkOwner(producerId, caller);
    Bumped b = bumped.get(producerId);
    short current = b == null ? 0 : b.epoch;
    if (epoch < current) {
      throw new BrokerException(BrokerError.PRODUCER_FENCED, "producer " + producerId + " epoch " + epoch
          + " is fenced: the current epoch is " + current);
    }
    if (epoch > current) {
      if (baseSequence != 0) {
        throw new BrokerException(BrokerError.UNKNOWN_PRODUCER_ID, "producer " + producerId + " has no epoch "
            + epoch + " (the current one is " + current + "): use the epoch InitProducer returned, or start a"
            + " later epoch at sequence 0, not " + baseSequence);
      }
      moveTo(producerId, b, (short) epoch, null, nowMs); // as an InitProducer bump: fenced after a restart too
      return;
    }
    touch(producerId, nowMs);
  }

  private String owner(long producerId) {
    Bumped b = bumped.get(producerId);
    if (b != null && b.owner != null) {
      return b.owner;
    }
    Block block = blockOf(producerId);
    return block == null ? null : block.owner;
  }

  private Block blockOf(long producerId) {
    Map.Entry<Long, Block> e = blocks.floorEntry(producerId);
    return e != null && producerId < e.getValue().end ? e.getValue() : null;
  }

  /** The id was used now: its epoch and its block stay (in memory now, on disk at the next expiry pass). */
  private void touch(long producerId, long nowMs) {
    Bumped b = bumped.get(producerId);
    if (b != null) {
      b.usedMs = nowMs;
      dirty = true;
    }
    Block block = blockOf(producerId);
    if (block != null) {
      block.usedMs = nowMs;
      dirty = true;
    }
  }

  private void checkKnown(long producerId) {
    if (producerId <= 0 || producerId >= reservedUpTo) {
      throw new BrokerException(BrokerError.UNKNOWN_PRODUCER_ID, "unknown producer id " + producerId
          + ": call InitProducer for one");
    }
  }

  /**
   * Forgets epochs and owned blocks none of whose ids was used since {@code olderThanMs}, and
   * writes the times of later uses; returns how many entries went.
   */
  public synchronized int expire(long olderThanMs) {
    int before = bumped.size() + blocks.size();
    bumped.values().removeIf(b -> b.usedMs < olderThanMs);
    for (Iterator<Block> i = blocks.values().iterator(); i.hasNext(); ) {
      Block b = i.next();
      if (b.usedMs < olderThanMs) {
        i.remove();
        current.remove(b.owner, b);
      }
    }
    int expired = before - bumped.size() - blocks.size();
    if (expired > 0 || dirty) {
      persist();
    }
    return expired;
  }

  private void persist() {
    Properties p = new Properties();
    p.setProperty("reserved.up.to", Long.toString(reservedUpTo));
    bumped.forEach((id, b) -> p.setProperty("epoch." + id, b.epoch + "," + b.usedMs
        + (b.owner == null ? "" : "," + b.owner)));
    blocks.forEach((start, b) -> p.setProperty("block." + start, b.end + "," + b.usedMs + "," + b.owner));
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
      dirty = false;
    } catch (IOException e) {
      throw new BrokerException(BrokerError.STORAGE_ERROR, "cannot write " + file + ": " + e.getMessage());
    }
  }
}
