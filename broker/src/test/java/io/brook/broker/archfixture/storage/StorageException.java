package io.brook.broker.archfixture.storage;

/** Stands for storage's exception, which the cli may name. */
public class StorageException extends RuntimeException {}
