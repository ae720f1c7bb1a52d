package io.brook.broker.api;

import io.brook.broker.outbound.OutboundMemory;
import io.grpc.Attributes;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerTransportFilter;

/**
 * One {@link OutboundMemory.Account} per gRPC connection: opened when the HTTP/2 transport is ready,
 * closed when it ends, and put in each call's context so the services reserve what they send on the
 * account of the connection it goes out on.
 */
public final class OutboundAccounts extends ServerTransportFilter implements ServerInterceptor {
  private static final Attributes.Key<OutboundMemory.Account> ATTR = Attributes.Key.create("brook.outbound.account");
  private static final Context.Key<OutboundMemory.Account> KEY = Context.key("brook-outbound-account");

  private final OutboundMemory memory;

  public OutboundAccounts(OutboundMemory memory) {
    this.memory = memory;
  }

  @Override
  public Attributes transportReady(Attributes attributes) {
    return attributes.toBuilder().set(ATTR, memory.open()).build();
  }

  @Override
  public void transportTerminated(Attributes attributes) {
    OutboundMemory.Account a = attributes == null ? null : attributes.get(ATTR);
    if (a != null) {
      a.close();
    }
  }

  @Override
  public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
      ServerCallHandler<Q, A> next) {
    OutboundMemory.Account a = call.getAttributes().get(ATTR);
    if (a == null) {
      return next.startCall(call, headers);
    }
    return Contexts.interceptCall(Context.current().withValue(KEY, a), call, headers, next);
  }

  /** The account of the current call's connection; a fresh one (its own share) when there is none. */
  OutboundMemory.Account current() {
    OutboundMemory.Account a = KEY.get();
    return a != null ? a : memory.open();
  }
}
