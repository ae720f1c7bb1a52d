package io.brook.broker.api;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import java.net.SocketAddress;

/** Puts the caller's address in the call's context, so group members can be shown with it. */
public final class ClientAddress implements ServerInterceptor {
  static final Context.Key<String> KEY = Context.key("brook-client-address");

  @Override
  public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
      ServerCallHandler<Q, A> next) {
    SocketAddress a = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
    String shown = a == null ? "" : a.toString().replaceFirst("^/", "");
    return Contexts.interceptCall(Context.current().withValue(KEY, shown), call, headers, next);
  }

  static String current() {
    String a = KEY.get();
    return a == null ? "" : a;
  }
}
