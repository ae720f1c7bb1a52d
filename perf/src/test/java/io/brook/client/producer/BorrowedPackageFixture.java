package io.brook.client.producer;

/** A perf class declared in the client's package, as ProduceEncodingAccess was: PerfPackagesTest's rules must catch it. */
public class BorrowedPackageFixture {}
