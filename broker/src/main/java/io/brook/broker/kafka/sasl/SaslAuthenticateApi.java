package io.brook.broker.kafka.sasl;

import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.kafka.access.KafkaCallers;
import io.brook.broker.security.KafkaAuthenticator;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import javax.security.sasl.SaslServer;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SaslAuthenticate: one round of the exchange SaslHandshake began. When the server completes, the
 * connection acts as the authenticated principal from its next request on. A refusal is
 * SASL_AUTHENTICATION_FAILED with one message whatever went wrong (unknown user, wrong password,
 * bad message), so an answer never tells whether a user exists; the connection stays open for the
 * client to read it and close, and takes nothing but ApiVersions from then on. No re-authentication
 * (session lifetime 0).
 */
public final class SaslAuthenticateApi implements KafkaApi {
  private static final Logger log = LoggerFactory.getLogger(SaslAuthenticateApi.class);
  private final KafkaAuthenticator auth;

  public SaslAuthenticateApi(Optional<KafkaAuthenticator> auth) {
    this.auth = auth.orElse(null);
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.SASL_AUTHENTICATE;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return ApiKeys.SASL_AUTHENTICATE.latestVersion();
  }

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    SaslAuthenticateResponseData answer = new SaslAuthenticateResponseData().setAuthBytes(new byte[0])
        .setSessionLifetimeMs(0);
    SaslSession session = request.connection().sasl();
    SaslServer server = session.server();
    if (auth == null || server == null || request.connection().isAuthenticated()) {
      return CompletableFuture.completedFuture(answer.setErrorCode(Errors.ILLEGAL_SASL_STATE.code())
          .setErrorMessage("SaslAuthenticate must follow a successful SaslHandshake, once per connection"));
    }
    String mechanism = server.getMechanismName();
    byte[] challenge;
    try {
      challenge = server.evaluateResponse(((SaslAuthenticateRequestData) request.body()).authBytes());
    } catch (Exception e) { // SaslException, Kafka's SaslAuthenticationException, a malformed message
      session.end();
      // The reason goes to the operator only (Kafka's servers never put a password in it); the client
      // hears the same message whatever it was.
      log.info("Kafka client {} ({}) failed {} authentication: {}", request.remote(), request.clientId(),
          mechanism, e.getMessage());
      return CompletableFuture.completedFuture(answer.setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code())
          .setErrorMessage("Authentication failed: invalid credentials with SASL mechanism "
              + mechanism));
    }
    if (server.isComplete()) {
      String principal = server.getAuthorizationID();
      session.end();
      request.connection().authenticated(KafkaCallers.of(auth, principal));
    }
    return CompletableFuture.completedFuture(answer.setErrorCode(Errors.NONE.code()).setErrorMessage(null)
        .setAuthBytes(challenge == null ? new byte[0] : challenge));
  }
}
