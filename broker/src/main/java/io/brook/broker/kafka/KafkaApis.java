package io.brook.broker.kafka;

import io.brook.broker.kafka.apis.ApiVersionsApi;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The Kafka APIs this broker serves, by key: ApiVersions plus the handlers it is given. ApiVersions
 * advertises exactly these (and their version ranges), so a client never sends an API the listener
 * would refuse, and an API left out fails only the client operation that needs it.
 */
public final class KafkaApis {
  private final KafkaApi[] byKey = new KafkaApi[Short.MAX_VALUE + 1];
  private final List<KafkaApi> all = new ArrayList<>();

  /** @param handlers every API beside ApiVersions, at most one per key */
  public KafkaApis(List<KafkaApi> handlers) {
    add(new ApiVersionsApi(this));
    handlers.forEach(this::add);
  }

  private void add(KafkaApi api) {
    ApiKeys key = api.key();
    if (byKey[key.id] != null) {
      throw new IllegalArgumentException("two handlers for Kafka API " + key.name);
    }
    // A version the pinned kafka-clients cannot encode would fail every request at it.
    if (api.minVersion() < key.oldestVersion() || api.maxVersion() > key.latestVersion()
        || api.minVersion() > api.maxVersion()) {
      throw new IllegalArgumentException("Kafka API " + key.name + " versions " + api.minVersion() + ".."
          + api.maxVersion() + " are outside what kafka-clients knows (" + key.oldestVersion() + ".."
          + key.latestVersion() + ")");
    }
    byKey[key.id] = api;
    all.add(api);
  }

  /** The handler of an API key, or null when it is not served (or not a key at all). */
  public KafkaApi get(short key) {
    return key < 0 ? null : byKey[key];
  }

  /** Every API served, in the order added (ApiVersions first). */
  public List<KafkaApi> all() {
    return Collections.unmodifiableList(all);
  }
}
