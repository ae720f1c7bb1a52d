package io.brook.broker.it.crash;

import java.util.concurrent.atomic.AtomicLong;

/** Counters for the run's report. */
final class CrashStats {
  final AtomicLong resentBatches = new AtomicLong();
  final AtomicLong recordsChecked = new AtomicLong();
  final AtomicLong dumpRecordsCompared = new AtomicLong();
  final AtomicLong commitsAnswered = new AtomicLong();
  final AtomicLong commitChecks = new AtomicLong();
  final AtomicLong acksAnswered = new AtomicLong();
  final AtomicLong nacksSent = new AtomicLong();
  final AtomicLong deliveries = new AtomicLong();
  final AtomicLong redeliveries = new AtomicLong();
  final AtomicLong ackChecks = new AtomicLong();
  final AtomicLong tornTails = new AtomicLong();
  final AtomicLong leftoverTails = new AtomicLong();
}
