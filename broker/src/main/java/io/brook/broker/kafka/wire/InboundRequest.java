package io.brook.broker.kafka.wire;

import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaApis;
import io.brook.broker.kafka.apis.ApiVersionsApi;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;

/**
 * One request frame decoded with Kafka's generated classes: the header at the version its API
 * version implies, then the body.
 *
 * @param api the handler, or null for an ApiVersions request at a version above the served range
 *     (answered at v0 with UNSUPPORTED_VERSION, KIP-511)
 * @param body the request data; null when {@code api} is null
 */
record InboundRequest(ApiKeys key, short version, int correlationId, String clientId, KafkaApi api,
    ApiMessage body) {

  /** Decodes {@code frame} (the bytes after the length prefix), or refuses it with a reason for the log. */
  static InboundRequest decode(ByteBuffer frame, KafkaApis apis) throws RefusedRequest {
    if (frame.remaining() < 4) {
      throw new RefusedRequest("malformed", "a frame of " + frame.remaining()
          + " bytes is too short for a request header");
    }
    short keyId = frame.getShort(0);
    short version = frame.getShort(2);
    KafkaApi api = apis.get(keyId);
    if (api == null) {
      throw new RefusedRequest("unknown_api", ApiKeys.hasId(keyId)
          ? "API " + ApiKeys.forId(keyId).name + " (key " + keyId + ") is not served" : "unknown API key " + keyId);
    }
    ApiKeys key = api.key();
    boolean tooNewApiVersions = key == ApiKeys.API_VERSIONS && version > api.maxVersion();
    if (!tooNewApiVersions && (version < api.minVersion() || version > api.maxVersion())) {
      throw new RefusedRequest("unsupported_version", key.name + " version " + version + " is not served ("
          + api.minVersion() + ".." + api.maxVersion() + ")");
    }
    try {
      ByteBufferAccessor in = new ByteBufferAccessor(frame);
      // ApiMessageType knows every version's header, also ApiVersions versions newer than kafka-clients'.
      RequestHeaderData header = new RequestHeaderData(in, ApiMessageType.fromApiKey(keyId)
          .requestHeaderVersion(version));
      if (tooNewApiVersions) {
        return new InboundRequest(key, version, header.correlationId(), header.clientId(), null, null);
      }
      ApiMessage body = key.messageType.newRequest();
      body.read(in, version);
      return new InboundRequest(key, version, header.correlationId(), header.clientId(), api, body);
    } catch (RuntimeException e) { // Kafka's readers throw unchecked exceptions of several kinds on bad bytes
      throw new RefusedRequest("malformed", "malformed " + key.name + " v" + version + " request: " + e);
    }
  }

  /** Whether this is the ApiVersions request answered at v0 with UNSUPPORTED_VERSION. */
  boolean unsupportedApiVersions() {
    return api == null;
  }

  /** The answer of {@link #unsupportedApiVersions()}. */
  static ApiMessage unsupportedAnswer(KafkaApis apis) {
    return ((ApiVersionsApi) apis.get(ApiKeys.API_VERSIONS.id)).unsupported();
  }
}
