/**
 * Classes that break the package rules of BrokerLayering on purpose, one rule each, in packages
 * that mirror the broker's layers under this root. LayeringFixtureTest checks that every rule
 * reports its violation here. Never used by real code.
 */
package io.brook.broker.archfixture;
