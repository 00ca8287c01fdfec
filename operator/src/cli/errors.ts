/** A failure the CLI reports as one clear message on stderr (no stack trace), with its exit code. */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** Bad invocation (unknown flag, missing argument, bad value): exit code 2, like getopt-based tools. */
export class UsageError extends CliError {
  override name = 'UsageError';
  constructor(message: string) {
    super(message, 2);
  }
}
