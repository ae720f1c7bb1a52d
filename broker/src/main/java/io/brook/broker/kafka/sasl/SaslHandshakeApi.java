package io.brook.broker.kafka.sasl;

import io.brook.broker.kafka.ConnectionScope;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.security.KafkaAuthenticator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import javax.security.sasl.SaslServer;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * SaslHandshake: the client names its mechanism and hears the ones served (PLAIN, SCRAM-SHA-256,
 * SCRAM-SHA-512; none with auth off). Version 1 only is served: version 0 is followed by raw SASL
 * tokens instead of SaslAuthenticate requests, which no client Brook supports sends (a v0 request
 * closes the connection, as any version out of range). Versions 0–1 are advertised, because
 * librdkafka (kcat) turns SASL off against a broker without SaslHandshake v0 (its feature map), and
 * then sends v1 with SaslAuthenticate. Once per connection: a second handshake, or one after the
 * connection authenticated, is ILLEGAL_SASL_STATE.
 */
public final class SaslHandshakeApi implements KafkaApi {
  private final KafkaSaslServers servers;
  private final List<String> mechanisms;

  /** @param auth empty with auth off: every mechanism is then UNSUPPORTED_SASL_MECHANISM */
  public SaslHandshakeApi(Optional<KafkaAuthenticator> auth) {
    this.servers = auth.map(KafkaSaslServers::new).orElse(null);
    this.mechanisms = auth.map(KafkaAuthenticator::mechanisms).orElse(List.of());
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.SASL_HANDSHAKE;
  }

  @Override
  public short minVersion() {
    return 1;
  }

  @Override
  public short advertisedMinVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 1;
  }

  /** Chooses a server object: nothing waits. */
  @Override
  public boolean quick() {
    return true;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    String mechanism = ((SaslHandshakeRequestData) request.body()).mechanism();
    SaslHandshakeResponseData answer = new SaslHandshakeResponseData().setMechanisms(mechanisms);
    ConnectionScope connection = request.connection();
    if (connection.isAuthenticated() || !connection.sasl().mayStart()) {
      return CompletableFuture.completedFuture(answer.setErrorCode(Errors.ILLEGAL_SASL_STATE.code()));
    }
    SaslServer server = servers == null ? null : servers.create(mechanism);
    connection.sasl().handshake(server);
    return CompletableFuture.completedFuture(answer.setErrorCode(server == null
        ? Errors.UNSUPPORTED_SASL_MECHANISM.code() : Errors.NONE.code()));
  }
}
