package io.brook.broker.security;

import com.google.protobuf.Message;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;

/**
 * Authentication when a call starts (bearer token, else client certificate CN, else anonymous when
 * allowed), authorization of every incoming message against the method's rule ({@link
 * MethodRules}), and filtering of the list answers. Answers never echo a token.
 */
public final class AuthInterceptor implements ServerInterceptor {
  /** gRPC metadata {@code authorization: Bearer <token>}. */
  public static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final String BEARER = "Bearer ";

  private final Tokens tokens;
  private final boolean certificates;
  private final boolean anonymous;
  private final Principals principals;

  AuthInterceptor(Tokens tokens, Principals principals, boolean certificates, boolean anonymous) {
    this.tokens = tokens;
    this.principals = principals;
    this.certificates = certificates;
    this.anonymous = anonymous;
  }

  @Override
  public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
      ServerCallHandler<Q, A> next) {
    String name;
    String header = headers.get(AUTHORIZATION);
    if (header != null) {
      if (header.length() <= BEARER.length() || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
        return refuse(call, Status.UNAUTHENTICATED.withDescription(
            "the authorization header must be 'Bearer <token>'"));
      }
      name = tokens.principal(header.substring(BEARER.length()).strip());
      if (name == null) {
        return refuse(call, Status.UNAUTHENTICATED.withDescription("unknown bearer token"));
      }
    } else if (certificates && (name = certificateName(call)) != null) {
      // the client certificate's CN
    } else if (anonymous) {
      name = Principal.ANONYMOUS;
    } else {
      return refuse(call, Status.UNAUTHENTICATED.withDescription("no bearer token or client certificate"));
    }
    String method = call.getMethodDescriptor().getFullMethodName();
    MethodRules.Rule rule = MethodRules.of(method);
    if (rule == null) {
      return refuse(call, Status.PERMISSION_DENIED.withDescription(
          "method " + method + " has no access rule: refused to everyone"));
    }
    Principal principal = principals.of(name);
    GuardedCall<Q, A> guarded = new GuardedCall<>(call, rule, principal);
    // The service reads the principal from the context (Caller): ownership and what answers show.
    Context context = Context.current().withValue(Caller.KEY, principal);
    return new GuardedListener<>(Contexts.interceptCall(context, guarded, headers, next), guarded);
  }

  /** Whether an HTTP request with this Authorization header (or client certificate) is someone. */
  boolean authenticates(String header, boolean clientCertificate) {
    if (header != null) {
      return header.length() > BEARER.length() && header.regionMatches(true, 0, BEARER, 0, BEARER.length())
          && tokens.principal(header.substring(BEARER.length()).strip()) != null;
    }
    return (certificates && clientCertificate) || anonymous;
  }

  private static <Q> ServerCall.Listener<Q> refuse(ServerCall<Q, ?> call, Status status) {
    call.close(status, new Metadata());
    return new ServerCall.Listener<>() {};
  }

  /** The subject CN of a verified client certificate, or null. */
  private static String certificateName(ServerCall<?, ?> call) {
    return ClientCertificates.commonName(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
  }

  /**
   * The call as the service sees it: answers of list methods are filtered, and once a message was
   * refused the call is closed here and what the service still sends is dropped.
   */
  private static final class GuardedCall<Q, A> extends ForwardingServerCall.SimpleForwardingServerCall<Q, A> {
    final MethodRules.Rule rule;
    final Principal principal;
    private boolean denied; // guarded by this

    GuardedCall(ServerCall<Q, A> call, MethodRules.Rule rule, Principal principal) {
      super(call);
      this.rule = rule;
      this.principal = principal;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void sendMessage(A message) {
      A answer = rule.filter() == null ? message : (A) rule.filter().apply(principal.grants(), message);
      synchronized (this) {
        if (!denied) {
          super.sendMessage(answer);
        }
      }
    }

    @Override
    public synchronized void close(Status status, Metadata trailers) {
      if (!denied) {
        super.close(status, trailers);
      }
    }

    synchronized void deny(String missing) {
      if (!denied) {
        denied = true;
        super.close(Status.PERMISSION_DENIED.withDescription(
            "principal " + principal.name() + " lacks " + missing), new Metadata());
      }
    }

    synchronized boolean denied() {
      return denied;
    }
  }

  /** Checks each incoming message; after a refusal the service hears a cancel and nothing more. */
  private static final class GuardedListener<Q, A>
      extends ForwardingServerCallListener.SimpleForwardingServerCallListener<Q> {
    private final GuardedCall<Q, A> call;
    private boolean refused; // listener events come one at a time

    GuardedListener(ServerCall.Listener<Q> delegate, GuardedCall<Q, A> call) {
      super(delegate);
      this.call = call;
    }

    @Override
    public void onMessage(Q message) {
      if (refused) {
        return;
      }
      if (!(message instanceof Message)) {
        // bytes that did not parse (RequestGuard's marker): the guard answers INVALID_ARGUMENT
        super.onMessage(message);
        return;
      }
      String missing = call.rule.check().missing(call.principal.grants(), message);
      if (missing == null) {
        super.onMessage(message);
        return;
      }
      refused = true;
      call.deny(missing);
      super.onCancel(); // the service ends its side (a stream's session) as if the client went away
    }

    @Override
    public void onHalfClose() {
      if (!refused) {
        super.onHalfClose();
      }
    }

    @Override
    public void onCancel() {
      if (!refused) {
        super.onCancel();
      }
    }

    @Override
    public void onComplete() {
      if (!refused) {
        super.onComplete();
      }
    }

    @Override
    public void onReady() {
      if (!refused) {
        super.onReady();
      }
    }
  }
}
