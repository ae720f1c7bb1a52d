package io.brook.broker.kafka.apis;

import io.brook.broker.core.AnswerSize;
import io.brook.broker.core.FetchPosition;
import io.brook.broker.core.FetchQuery;
import io.brook.broker.core.FetchService;
import io.brook.broker.core.LongPoll;
import io.brook.broker.core.PartitionRead;
import io.brook.broker.kafka.AnswerMemory;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * One Fetch request on its connection, held to the broker's outbound memory as gRPC's fetch call is:
 * the answer is at most the connection's share (outbound.client.max.bytes; the first batch comes
 * whatever its size, as Kafka's own limits allow), memory for it is reserved before each read (what the request may receive at most) and set to
 * what was read; a fetch that must wait for memory waits its turn holding nothing (never failed: its
 * client is slowed). A long poll holds no memory while it waits for records; once woken it reads only
 * if memory is free at once, else it answers what its first read found (no records; the client
 * fetches again, and that fetch waits its turn), because by then later requests of its connection may
 * hold the memory it would wait for, and they are written only after its own answer. The connection
 * closing ends the fetch wherever it is: the long poll is cancelled, the wait for memory left.
 */
final class KafkaFetch {
  private final FetchService fetch;
  private final FetchQuery query;
  private final AnswerSize size;
  private final boolean mayWait;
  private final Function<List<PartitionRead>, ApiMessage> answer;
  private final AnswerMemory memory;
  /** What one read may bring at most, bar the first batch of a partition (KIP-74): the reservation. */
  private final long reservation;
  private final CompletableFuture<ApiMessage> done = new CompletableFuture<>();
  private final Runnable closed = this::end;
  /** Guarded by this: the connection closed; the long poll to cancel then. */
  private boolean over;
  private LongPoll poll;

  /**
   * @param mayWait whether a fetch that finds no records waits for some (min_bytes above 0)
   * @param answer the Kafka answer of a read
   */
  KafkaFetch(FetchService fetch, FetchQuery query, AnswerSize size, boolean mayWait,
      Function<List<PartitionRead>, ApiMessage> answer, AnswerMemory memory) {
    this.fetch = fetch;
    this.query = withinShare(query, memory.connection().memory().share());
    this.size = size;
    this.mayWait = mayWait;
    this.answer = answer;
    this.memory = memory;
    long partitions = 0;
    for (FetchPosition p : this.query.positions()) {
      partitions += p.maxBytes();
    }
    this.reservation = Math.min(this.query.maxBytes(), partitions);
  }

  /**
   * The query with its total limit cut to the connection's share of the outbound memory, so that one
   * answer never needs more than a connection may hold (Kafka clients take smaller answers than they
   * asked for, and fetch on from where it ends).
   */
  private static FetchQuery withinShare(FetchQuery query, long share) {
    if (query.maxBytes() <= share) {
      return query;
    }
    return new FetchQuery(query.positions(), query.maxRecords(), (int) share, query.form(), query.maxWaitMs());
  }

  CompletableFuture<ApiMessage> start() {
    memory.connection().onClose(closed);
    if (memory.reserve(reservation, this::firstRead)) {
      firstRead();
    }
    return done;
  }

  private synchronized boolean over() {
    return over;
  }

  private void firstRead() {
    if (over()) {
      memory.giveBack(); // granted after the connection closed
      return;
    }
    List<PartitionRead> first;
    LongPoll p;
    try {
      first = fetch.read(query, size);
      p = mayWait ? fetch.longPoll(query, first, () -> lastRead(first)) : null;
    } catch (RuntimeException e) {
      fail(e);
      return;
    }
    if (p == null) {
      finish(first);
      return;
    }
    memory.giveBack(); // a long poll holds no memory while it waits
    synchronized (this) {
      if (over) {
        return;
      }
      poll = p;
    }
    p.start();
  }

  /** The long poll ended (records came, or its wait is over): on the read pool. */
  private void lastRead(List<PartitionRead> first) {
    if (over()) {
      return;
    }
    if (!memory.tryReserve(reservation)) {
      finish(first); // no memory free now: the client asks again
      return;
    }
    try {
      finish(fetch.read(query, size));
    } catch (RuntimeException e) {
      fail(e);
    }
  }

  private void finish(List<PartitionRead> reads) {
    ApiMessage a;
    try {
      a = answer.apply(reads);
    } catch (RuntimeException e) {
      fail(e);
      return;
    }
    memory.resize(bytes(reads)); // what the answer really holds; the listener counts it as encoded
    memory.connection().removeOnClose(closed);
    done.complete(a);
  }

  private void fail(RuntimeException e) {
    memory.giveBack();
    memory.connection().removeOnClose(closed);
    done.completeExceptionally(e);
  }

  /** The connection closed: nothing of this fetch is held any more. */
  private void end() {
    LongPoll p;
    synchronized (this) {
      over = true;
      p = poll;
    }
    memory.giveBack();
    if (p != null) {
      p.cancel();
    }
  }

  private static long bytes(List<PartitionRead> reads) {
    long bytes = 0;
    for (PartitionRead r : reads) {
      for (byte[] b : r.batches()) {
        bytes += b.length;
      }
    }
    return bytes;
  }
}
