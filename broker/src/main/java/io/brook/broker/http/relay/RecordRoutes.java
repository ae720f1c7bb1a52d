package io.brook.broker.http.relay;

import io.brook.broker.core.FetchService;
import io.brook.broker.core.ProduceService;

/** The relay's produce and fetch routes (D69), on the core's ProduceService and FetchService. */
public final class RecordRoutes {
  private final ProduceService produce;
  private final FetchService fetch;

  public RecordRoutes(ProduceService produce, FetchService fetch) {
    this.produce = produce;
    this.fetch = fetch;
  }

  public void register(RelayRouter router) {
    // produce and fetch: next commit
  }
}
