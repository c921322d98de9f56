/**
 * Starts the server process (`npm start`, `realmgate start`). Its signal handlers are
 * installed before the application's modules load (which takes a moment) and stay for the
 * life of the process: a SIGTERM or SIGINT during start-up stops it cleanly (exit 0) rather
 * than killing it, and none is lost in a handover.
 */
export async function start(): Promise<void> {
  let stop: ((signal: string) => void) | undefined;
  let early: string | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stop) stop(signal);
    else early ??= signal;
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  const { run } = await import('./process.js');
  if (early !== undefined) process.exit(0); // nothing was opened yet
  stop = run();
}
