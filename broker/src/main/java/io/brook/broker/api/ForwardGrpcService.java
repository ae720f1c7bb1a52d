package io.brook.broker.api;

import io.brook.broker.core.ForwardControl;
import io.brook.broker.core.ForwardRouteStatus;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.security.Caller;
import io.brook.protocol.v1.DescribeForwardRouteRequest;
import io.brook.protocol.v1.DescribeForwardRouteResponse;
import io.brook.protocol.v1.ForwardCursor;
import io.brook.protocol.v1.ForwardRoute;
import io.brook.protocol.v1.ForwardRouteState;
import io.brook.protocol.v1.ForwardServiceGrpc;
import io.brook.protocol.v1.ListForwardRoutesRequest;
import io.brook.protocol.v1.ListForwardRoutesResponse;
import io.brook.protocol.v1.PauseForwardRouteRequest;
import io.brook.protocol.v1.PauseForwardRouteResponse;
import io.brook.protocol.v1.ResumeForwardRouteRequest;
import io.brook.protocol.v1.ResumeForwardRouteResponse;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.function.Function;

/**
 * brook.v1.ForwardService: the forward routes' status and pause/resume (D71). The method rules let
 * any principal in; what a route needs depends on its source, which only the route knows, so the
 * checks are here, through {@link Caller} (any permission on the source to see it, admin to pause).
 */
public final class ForwardGrpcService extends ForwardServiceGrpc.ForwardServiceImplBase {
  private final ForwardControl forward;

  public ForwardGrpcService(ForwardControl forward) {
    this.forward = forward;
  }

  @Override
  public void listForwardRoutes(ListForwardRoutesRequest request, StreamObserver<ListForwardRoutesResponse> out) {
    Unary.answer(out, () -> {
      ListForwardRoutesResponse.Builder b = ListForwardRoutesResponse.newBuilder();
      visible().forEach(r -> b.addRoutes(toWire(r, false)));
      return b.build();
    });
  }

  @Override
  public void describeForwardRoute(DescribeForwardRouteRequest request,
      StreamObserver<DescribeForwardRouteResponse> out) {
    Unary.answer(out, () -> DescribeForwardRouteResponse.newBuilder()
        .setRoute(toWire(checked(request.getRoute(), Caller::lacksSightOfSource), true)).build());
  }

  @Override
  public void pauseForwardRoute(PauseForwardRouteRequest request, StreamObserver<PauseForwardRouteResponse> out) {
    Unary.answer(out, () -> {
      checked(request.getRoute(), Caller::lacksAdminOfSource);
      return PauseForwardRouteResponse.newBuilder().setRoute(toWire(forward.pause(request.getRoute()), true)).build();
    });
  }

  @Override
  public void resumeForwardRoute(ResumeForwardRouteRequest request, StreamObserver<ResumeForwardRouteResponse> out) {
    Unary.answer(out, () -> {
      checked(request.getRoute(), Caller::lacksAdminOfSource);
      return ResumeForwardRouteResponse.newBuilder().setRoute(toWire(forward.resume(request.getRoute()), true))
          .build();
    });
  }

  private List<ForwardRouteStatus> visible() {
    return forward.routes().stream().filter(r -> Caller.lacksSightOfSource(r.source()) == null).toList();
  }

  /**
   * The route, once the caller holds what {@code lacks} asks on its source. An unknown route is
   * INVALID_REQUEST naming the routes the caller may see; a route it may not see or change is
   * PERMISSION_DENIED naming what it lacks, in the words of the method rules' refusals (as
   * DescribeTopic on a topic it holds nothing on).
   */
  private ForwardRouteStatus checked(String name, Function<String, String> lacks) {
    if (name.isEmpty()) {
      throw new BrokerException(BrokerError.INVALID_REQUEST, "route is required");
    }
    ForwardRouteStatus route = forward.routes().stream().filter(r -> r.name().equals(name)).findFirst()
        .orElse(null);
    if (route == null) {
      List<String> known = visible().stream().map(ForwardRouteStatus::name).toList();
      throw new BrokerException(BrokerError.INVALID_REQUEST, "no forward route '" + name + "'"
          + (known.isEmpty() ? " (no routes are configured" + (forward.routes().isEmpty() ? "" : " that you may see")
              + ")" : " (routes: " + String.join(", ", known) + ")"));
    }
    String missing = Caller.lacksSightOfSource(route.source());
    if (missing == null) {
      missing = lacks.apply(route.source());
    }
    if (missing != null) {
      throw new StatusRuntimeException(Status.PERMISSION_DENIED.withDescription(
          "principal " + Caller.principal() + " lacks " + missing + " (the source of forward route " + name + ")"));
    }
    return route;
  }

  static ForwardRoute toWire(ForwardRouteStatus r, boolean partitions) {
    ForwardRoute.Builder b = ForwardRoute.newBuilder()
        .setName(r.name())
        .setSource(r.source())
        .setTarget(r.target())
        .setBootstrapServers(r.bootstrap())
        .setState(state(r.state()))
        .setForwardedRecords(r.forwardedRecords())
        .setForwardedBytes(r.forwardedBytes())
        .setLagRecords(r.lagRecords())
        .setLagSeconds(r.lagSeconds())
        .setDroppedRecords(r.droppedRecords())
        .putAllErrors(r.errors())
        .setLastError(r.lastError() == null ? "" : r.lastError())
        .setLastErrorAtMs(r.lastErrorAtMs());
    if (partitions) {
      for (ForwardRouteStatus.Cursor c : r.partitions()) {
        b.addPartitions(ForwardCursor.newBuilder().setTopic(c.topic()).setPartition(c.partition())
            .setPosition(c.position()).setEndOffset(c.endOffset()));
      }
    }
    return b.build();
  }

  private static ForwardRouteState state(ForwardRouteStatus.State s) {
    return switch (s) {
      case STARTING -> ForwardRouteState.FORWARD_ROUTE_STATE_STARTING;
      case RUNNING -> ForwardRouteState.FORWARD_ROUTE_STATE_RUNNING;
      case PAUSED -> ForwardRouteState.FORWARD_ROUTE_STATE_PAUSED;
      case BACKING_OFF -> ForwardRouteState.FORWARD_ROUTE_STATE_BACKING_OFF;
      case STOPPED -> ForwardRouteState.FORWARD_ROUTE_STATE_STOPPED;
    };
  }
}
