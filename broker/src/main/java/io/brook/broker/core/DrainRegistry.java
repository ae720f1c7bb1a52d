package io.brook.broker.core;

/**
 * Where calls that would outlive a shutdown's grace register what ends them early (a waiting fetch
 * answers with what is there). Each action runs at most once: whoever removes it runs it.
 */
public interface DrainRegistry {
  /** Registers a drain action; when the broker already drains, runs it now. */
  void add(Runnable drain);

  void remove(Runnable drain);
}
