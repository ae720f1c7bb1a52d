package io.brook.broker.archfixture.storage.dump;

/** The offline dump the cli may use. */
public class FixtureDump {}
