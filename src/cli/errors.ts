/** A failure the command reports in one line on stderr, with the exit code a shell expects. */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** The command line itself is wrong (exit 2, as commander's own usage errors). */
export class UsageError extends CliError {
  override name = 'UsageError';
  constructor(message: string) {
    super(message, 2);
  }
}
