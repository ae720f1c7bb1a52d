package io.brook.broker.kafka.apis;

import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaApis;
import io.brook.broker.kafka.KafkaRequest;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ApiVersions: the APIs served and their version ranges, read from the registry. A version this
 * broker does not know is answered by the listener at v0 with UNSUPPORTED_VERSION and the same
 * ranges ({@link #unsupported}), so that the client retries at a version listed (KIP-511).
 */
public final class ApiVersionsApi implements KafkaApi {
  private final KafkaApis apis;

  public ApiVersionsApi(KafkaApis apis) {
    this.apis = apis;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.API_VERSIONS;
  }

  @Override
  public short minVersion() {
    return ApiKeys.API_VERSIONS.oldestVersion();
  }

  @Override
  public short maxVersion() {
    return ApiKeys.API_VERSIONS.latestVersion();
  }

  /** Answered from what is in memory. */
  @Override
  public boolean quick() {
    return true;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    return CompletableFuture.completedFuture(answer(Errors.NONE));
  }

  /** The answer to an ApiVersions request at a version above {@link #maxVersion()}: send it at v0. */
  public ApiVersionsResponseData unsupported() {
    return answer(Errors.UNSUPPORTED_VERSION);
  }

  private ApiVersionsResponseData answer(Errors error) {
    ApiVersionCollection ranges = new ApiVersionCollection();
    for (KafkaApi api : apis.all()) {
      ranges.add(new ApiVersion().setApiKey(api.key().id).setMinVersion(api.advertisedMinVersion())
          .setMaxVersion(api.maxVersion()));
    }
    // No features (finalized epoch -1): Brook has none to negotiate.
    return new ApiVersionsResponseData().setErrorCode(error.code()).setApiKeys(ranges).setThrottleTimeMs(0)
        .setFinalizedFeaturesEpoch(-1);
  }
}
