package io.brook.broker.delivery;

import java.util.List;
import java.util.Set;

/**
 * A member of an ack group: the topics it receives from, how much it may hold (flow control), what
 * it holds now, and the stream records go out on (absent between streams of a member that keeps
 * its leases by client id).
 */
public final class AckMember {
  /** Where deliveries go: a member's stream. Called under the group's monitor, one call at a time. */
  public interface Sink {
    /**
     * Bytes of records the stream can take now (0: none, until it asks for a dispatch): what its
     * transport and the broker's outbound memory allow.
     */
    long sendableBytes();

    void deliver(List<Delivery> deliveries);

    /** A dispatch asked what the stream could take and gave it nothing: what it reserved goes back. */
    void unused();
  }

  private final String id;
  private final boolean keepsLeases;
  /** The principal that made it (null with auth off): only it may take over the stream or settle as it. */
  private final String owner;
  private Set<String> topics;
  private Sink sink;
  private String address = "";
  private long maxRecords;
  private long maxBytes;
  private long leasedRecords;
  private long leasedBytes;
  private long lastSeenMs;
  /** In the dispatch under way: whether the stream was asked, what it can still take, and whether it took any. */
  private boolean asked;
  private long sendable;
  private boolean tookAny;

  public AckMember(String id, boolean keepsLeases, String owner) {
    this.id = id;
    this.keepsLeases = keepsLeases;
    this.owner = owner;
  }

  public String id() {
    return id;
  }

  public String owner() {
    return owner;
  }

  /** True for a member named by the client (client_id): its leases outlive its stream. */
  public boolean keepsLeases() {
    return keepsLeases;
  }

  public Set<String> topics() {
    return topics;
  }

  public Sink sink() {
    return sink;
  }

  public String address() {
    return address;
  }

  public long leasedRecords() {
    return leasedRecords;
  }

  public long lastSeenMs() {
    return lastSeenMs;
  }

  public void connect(Sink s, Set<String> subscribed, String from, long nowMs) {
    sink = s;
    topics = Set.copyOf(subscribed);
    address = from;
    lastSeenMs = nowMs;
  }

  public void disconnect(long nowMs) {
    sink = null;
    lastSeenMs = nowMs;
  }

  public void flowControl(long records, long bytes) {
    maxRecords = records;
    maxBytes = bytes;
  }

  public void seen(long nowMs) {
    lastSeenMs = nowMs;
  }

  /** A dispatch begins; what the stream can take is asked only if the dispatch has records for it. */
  public void startDispatch() {
    asked = false;
    sendable = 0;
    tookAny = false;
  }

  /**
   * Whether the stream can take records now: asked once per dispatch, the first time the dispatch
   * has records for this member (the stream reserves memory for them then, so an idle member holds
   * none).
   */
  public boolean canSend() {
    if (!asked) {
      sendable = roomRecords() > 0 ? sink.sendableBytes() : 0;
      asked = true;
    }
    return sendable > 0;
  }

  /** The dispatch is over: a stream that reserved for records and got none gives it back. */
  public void endDispatch() {
    if (sink != null && asked && sendable > 0 && !tookAny) {
      sink.unused();
    }
  }

  /**
   * Records it may still take in this dispatch: 0 when it is full, has no stream, or its stream
   * cannot send.
   */
  public long roomRecords() {
    return sink == null || leasedBytes >= maxBytes || (asked && sendable <= 0) ? 0
        : Math.max(0, maxRecords - leasedRecords);
  }

  /** Bytes it may still take in this dispatch, once {@link #canSend()} (at least one record goes out). */
  public long roomBytes() {
    return Math.max(1, Math.min(maxBytes - leasedBytes, sendable));
  }

  void leased(int bytes) {
    leasedRecords++;
    leasedBytes += bytes;
    sendable -= Math.max(1, bytes);
    tookAny = true;
  }

  void released(int bytes) {
    leasedRecords--;
    leasedBytes -= bytes;
  }
}
