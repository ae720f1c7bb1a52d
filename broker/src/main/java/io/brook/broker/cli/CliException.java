package io.brook.broker.cli;

/** A failure the CLI explains in one line, with the exit code to leave with. */
final class CliException extends RuntimeException {
  private final int exitCode;

  CliException(String message, int exitCode) {
    super(message, null, false, false);
    this.exitCode = exitCode;
  }

  int exitCode() {
    return exitCode;
  }
}
