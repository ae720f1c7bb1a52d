package io.brook.broker.archfixture.core;

import io.grpc.Status;

/** Breaks coreIsProtocolNeutral (and noProtocolTypeBelowTheAdapters): a gRPC type in the core. */
public class ServiceReturningAStatus {
  Status status() {
    return Status.OK;
  }
}
