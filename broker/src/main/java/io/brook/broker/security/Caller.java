package io.brook.broker.security;

import static io.brook.broker.security.Permission.ADMIN;
import static io.brook.broker.security.Permission.CONSUME;
import static io.brook.broker.security.ResourceType.TOPIC;

import io.grpc.Context;
import java.util.function.Predicate;

/**
 * The principal of the gRPC call being served, for what a method's rule cannot decide from the
 * request alone: who owns a group member or a producer id, and which topics an answer may show.
 * {@link AuthInterceptor} puts it in the call's context, so it is read on the call's own callbacks
 * (a service keeps what it needs for later). With auth off there is none: nothing is owned and
 * everything is shown.
 */
public final class Caller {
  static final Context.Key<Principal> KEY = Context.key("brook-principal");
  private static final Predicate<String> ALL = t -> true;

  private Caller() {}

  /** The principal's name, or null with auth off. */
  public static String principal() {
    Principal p = KEY.get();
    return p == null ? null : p.name();
  }

  /**
   * The topics an answer may show this caller (a group's offsets, lag, a member's topics): those
   * it holds any permission on, as DescribeTopic and ListTopics.
   */
  public static Predicate<String> visibleTopics() {
    Principal p = KEY.get();
    return p == null ? ALL : t -> p.grants().allowsAny(TOPIC, t);
  }

  /** The topics this caller may consume: what its JoinGroup topic_pattern may match. */
  public static Predicate<String> consumableTopics() {
    Principal p = KEY.get();
    return p == null ? ALL : t -> p.grants().allows(CONSUME, TOPIC, t);
  }

  /** The topics whose group offsets this caller may move: consume or admin on them. */
  public static Predicate<String> resettableTopics() {
    Principal p = KEY.get();
    return p == null ? ALL : t -> p.grants().allows(CONSUME, TOPIC, t) || p.grants().allows(ADMIN, TOPIC, t);
  }

  /**
   * What this caller lacks to see a forward route of {@code source} (a topic, or a prefix ending in
   * {@code *}), as "any permission on topic orders", or null when it may: any permission on the
   * topic, or on the whole prefix (D71).
   */
  public static String lacksSightOfSource(String source) {
    Principal p = KEY.get();
    if (p == null) {
      return null;
    }
    boolean ok = isPrefix(source) ? p.grants().allowsAnyPrefix(TOPIC, prefixOf(source))
        : p.grants().allowsAny(TOPIC, source);
    return ok ? null : "any permission on " + resource(source);
  }

  /** What this caller lacks to pause or resume a forward route of {@code source}: admin on it, or null. */
  public static String lacksAdminOfSource(String source) {
    Principal p = KEY.get();
    if (p == null) {
      return null;
    }
    boolean ok = isPrefix(source) ? p.grants().allowsPrefix(ADMIN, TOPIC, prefixOf(source))
        : p.grants().allows(ADMIN, TOPIC, source);
    return ok ? null : "admin on " + resource(source);
  }

  private static boolean isPrefix(String source) {
    return source.endsWith("*");
  }

  private static String prefixOf(String source) {
    return source.substring(0, source.length() - 1);
  }

  private static String resource(String source) {
    return (isPrefix(source) ? "topic prefix " : "topic ") + source;
  }
}
