package io.brook.client.apifixture;

import io.brook.client.internal.Backoff;

/** A public class whose public method returns an internal type on purpose: PublicApiTest's rule must catch it. */
public final class LeaksInternalType {
  public Backoff backoff() {
    return new Backoff(1, 2);
  }
}
