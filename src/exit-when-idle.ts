/**
 * Ends the process with `code` as Node ends a script, once nothing is left to do, rather than by
 * process.exit(). process.exit() shuts the V8 platform down before the isolate, joining its
 * worker threads: a background compile job that is waiting at that moment for the main thread to
 * collect garbage waits forever, and so does the process (seen on Node 24 as a SIGTERM during
 * start-up that never ended, in about 1 of 30 tries on a busy machine). An ending script disposes
 * of the isolate first, which releases such a job. Whatever still keeps the event loop alive after
 * `graceMs` is cut short by process.exit() after all, and named on stderr.
 */
export function exitWhenIdle(code: number, graceMs = 5_000): void {
  process.exitCode = code;
  setTimeout(() => {
    process.stderr.write(`realmgate: still open ${graceMs} ms after stopping: ${process.getActiveResourcesInfo().join(', ')}\n`);
    process.exit(code);
  }, graceMs).unref();
}
