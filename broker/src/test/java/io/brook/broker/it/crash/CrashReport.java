package io.brook.broker.it.crash;

import java.util.List;

/** The figures of a crash run, as printed at its end and kept in target/crash-report.txt. */
record CrashReport(CrashConfig config, int kills, int startupKills, long recordsAnswered, long batchesAnswered,
    long duplicateAnswers, long resentBatches, long recordsChecked, long dumpRecordsCompared, long lost,
    long duplicated, long commitsAnswered, long commitChecks, long acksAnswered, long nacksSent, long deliveries,
    long redeliveries, long ackChecks, long tornTails, long leftoverTails, long maxRestartMs, long elapsedMs,
    int violationCount, List<String> violations) {

  String text() {
    StringBuilder sb = new StringBuilder();
    sb.append("crash run: seed ").append(config.seed()).append(", ").append(config.cycles())
        .append(" cycles, load up to ").append(config.cycleMs()).append(" ms per cycle\n");
    sb.append("  kills (SIGKILL): ").append(kills).append(" under load + ").append(startupKills)
        .append(" during a restart\n");
    sb.append("  records produced and answered: ").append(recordsAnswered).append(" in ").append(batchesAnswered)
        .append(" batches; ").append(resentBatches).append(" batches re-sent after a kill, ").append(duplicateAnswers)
        .append(" answered as duplicates\n");
    sb.append("  records checked (fetched and compared after each restart): ").append(recordsChecked).append('\n');
    sb.append("  records compared between brook dump and fetch: ").append(dumpRecordsCompared)
        .append("; partition tails the dump found torn: ").append(tornTails).append(", with leftovers: ")
        .append(leftoverTails).append('\n');
    sb.append("  lost: ").append(lost).append(", duplicated: ").append(duplicated).append('\n');
    sb.append("  commits answered: ").append(commitsAnswered).append(", committed offsets checked: ")
        .append(commitChecks).append('\n');
    sb.append("  acks answered: ").append(acksAnswered).append(", nacks: ").append(nacksSent).append(", deliveries: ")
        .append(deliveries).append(" (").append(redeliveries).append(" redeliveries), ack states checked: ")
        .append(ackChecks).append('\n');
    sb.append("  slowest restart (start to ready, after a kill): ").append(maxRestartMs).append(" ms\n");
    sb.append("  time: ").append(String.format("%.1f s", elapsedMs / 1000.0)).append('\n');
    sb.append("  violations: ").append(violationCount).append('\n');
    violations.forEach(v -> sb.append("    ").append(v).append('\n'));
    sb.append("  replay: ").append(config.replay()).append('\n');
    return sb.toString();
  }
}
