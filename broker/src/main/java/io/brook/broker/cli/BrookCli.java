package io.brook.broker.cli;

public final class BrookCli {
  public static void main(String[] args) {}
}
