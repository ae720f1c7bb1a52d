package io.brook.client.internal;

import io.brook.client.errors.ConfigException;
import io.brook.client.internal.channel.Channels;
import java.util.ArrayList;
import java.util.List;

/** Collects every invalid option of one client's config, so that one exception names them all. */
public final class Problems {
  private final String client;
  private final List<String> problems = new ArrayList<>();

  public Problems(String client) {
    this.client = client;
  }

  public Problems check(boolean ok, String option, String rule, Object value) {
    if (!ok) {
      problems.add(option + " " + rule + " (got " + value + ")");
    }
    return this;
  }

  public Problems atLeast(String option, long value, long min) {
    return check(value >= min, option, "must be >= " + min, value);
  }

  public Problems between(String option, long value, long min, long max) {
    return check(value >= min && value <= max, option, "must be in [" + min + ", " + max + "]", value);
  }

  /** For durations, checked in milliseconds. */
  public Problems betweenMs(String option, long ms, long min, long max) {
    return check(ms >= min && ms <= max, option, "must be in [" + min + ", " + max + "] ms",
        ms < 0 ? "nothing or negative" : ms + " ms");
  }

  /** The broker's address, unless a shared channel stands in for it. */
  public Problems broker(String address, Object sharedChannel) {
    if (sharedChannel == null) {
      String bad = Channels.checkAddress(address);
      check(bad == null, "broker", bad, address);
    }
    return this;
  }

  /** Security is set up on a channel of the client's own; a shared channel has its own. */
  public Problems security(Object security, Object sharedChannel) {
    return check(security == null || sharedChannel == null, "security",
        "cannot be combined with a shared channel (build that one with Security.newChannel)", security);
  }

  public Problems present(String option, Object value) {
    return check(value != null, option, "is required", "nothing");
  }

  public void throwIfAny() {
    if (!problems.isEmpty()) {
      throw new ConfigException("INVALID_CONFIG", "invalid " + client + " config: " + String.join("; ", problems));
    }
  }
}
