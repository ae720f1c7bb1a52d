package io.brook.broker.server;

import io.brook.broker.disk.DiskGuard;
import io.brook.broker.producers.ProducerIds;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.TopicManager;
import java.time.InstantSource;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every producer.maintenance.interval.ms: expires idle producers (producer.id.expiration.ms) and
 * snapshots each partition's producer state, so neither memory nor recovery grows (D13).
 */
final class ProducerUpkeep implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(ProducerUpkeep.class);

  private final TopicManager topics;
  private final ProducerIds producerIds;
  private final DiskGuard disk;
  private final InstantSource clock;
  private final long expirationMs;
  private final long intervalMs;

  ProducerUpkeep(BrokerContext ctx) {
    topics = ctx.topics;
    producerIds = ctx.producerIds;
    disk = ctx.disk;
    clock = ctx.clock;
    expirationMs = ctx.producerExpirationMs;
    intervalMs = ctx.producerMaintenanceMs;
  }

  void schedule(ScheduledExecutorService timer) {
    timer.scheduleWithFixedDelay(this, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
  }

  @Override
  public void run() {
    try {
      long cutoff = clock.millis() - expirationMs;
      int expired = producerIds.expire(cutoff);
      boolean snapshots = disk.metadataAllowed(); // the snapshot plus the log rebuild the state: it can wait
      for (Partition p : topics.allPartitions()) {
        expired += p.expireProducers(cutoff);
        if (snapshots) {
          p.snapshotProducers();
        }
      }
      if (expired > 0) {
        log.info("Expired {} idle producer entries (producer.id.expiration.ms={})", expired, expirationMs);
      }
    } catch (RuntimeException e) { // a scheduled task that throws is never run again
      log.warn("Producer maintenance failed: {}", e.toString());
    }
  }
}
