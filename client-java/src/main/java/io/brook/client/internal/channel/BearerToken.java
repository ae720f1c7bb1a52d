package io.brook.client.internal.channel;

import io.grpc.CallCredentials;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.SecurityLevel;
import io.grpc.Status;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.Executor;

/**
 * Sends {@code authorization: Bearer <token>} with every call: over TLS, or over plaintext to a
 * loopback address only (development), so a token never crosses a network in the clear.
 */
final class BearerToken extends CallCredentials {
  static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final String header;

  BearerToken(String token) {
    this.header = "Bearer " + token;
  }

  @Override
  public void applyRequestMetadata(RequestInfo info, Executor executor, MetadataApplier applier) {
    if (info.getSecurityLevel() != SecurityLevel.PRIVACY_AND_INTEGRITY && !loopback(info)) {
      applier.fail(Status.UNAUTHENTICATED.withDescription("the client refuses to send its token to "
          + info.getAuthority() + " without TLS (plaintext tokens go to loopback addresses only)"));
      return;
    }
    Metadata headers = new Metadata();
    headers.put(AUTHORIZATION, header);
    applier.apply(headers);
  }

  /**
   * Whether the call goes to this machine: the address the transport is connected to when it says
   * (already resolved, nothing is looked up), else the authority as written.
   */
  private static boolean loopback(RequestInfo info) {
    SocketAddress remote = info.getTransportAttrs().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
    if (remote instanceof InetSocketAddress inet && inet.getAddress() != null) {
      return inet.getAddress().isLoopbackAddress();
    }
    return loopback(info.getAuthority());
  }

  /**
   * Whether an authority ({@code host[:port]}) names loopback without resolving anything: {@code
   * localhost}, a literal IPv4 address 127.x.y.z (four decimal octets), or {@code ::1}. A name
   * such as {@code 127.attacker.example} is not loopback.
   */
  static boolean loopback(String authority) {
    String host = authority;
    if (host.startsWith("[")) {
      int end = host.indexOf(']');
      if (end < 0) {
        return false;
      }
      host = host.substring(1, end);
    } else if (host.indexOf(':') == host.lastIndexOf(':') && host.indexOf(':') >= 0) {
      host = host.substring(0, host.indexOf(':'));
    }
    return host.equalsIgnoreCase("localhost") || loopbackIpv4(host) || loopbackIpv6(host);
  }

  private static boolean loopbackIpv4(String host) {
    String[] octets = host.split("\\.", -1);
    if (octets.length != 4) {
      return false;
    }
    for (String o : octets) {
      if (o.isEmpty() || o.length() > 3 || !o.chars().allMatch(c -> c >= '0' && c <= '9') || Integer.parseInt(o) > 255) {
        return false;
      }
    }
    return Integer.parseInt(octets[0]) == 127;
  }

  /** ::1 in any literal spelling (0:0:0:0:0:0:0:1, ::0001); only hex digits and colons are parsed. */
  private static boolean loopbackIpv6(String host) {
    if (host.isEmpty() || host.indexOf(':') < 0 || !host.chars().allMatch(c -> c == ':' || Character.digit(c, 16) >= 0)) {
      return false;
    }
    try {
      // bracketed, the JDK parses an IPv6 literal and never resolves it (invalid: UnknownHostException)
      byte[] a = InetAddress.getByName("[" + host + "]").getAddress();
      return a.length == 16 && InetAddress.getByAddress(a).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }
}
