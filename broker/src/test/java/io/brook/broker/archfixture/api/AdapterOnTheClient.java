package io.brook.broker.archfixture.api;

import io.brook.client.Security;

/** Breaks javaClientOnlyInCli: the broker calls itself through its Java client. */
public class AdapterOnTheClient {
  Security security;
}
