import { setFlagsFromString } from 'node:v8';

/**
 * Starts the server process (`npm start`, `realmgate start`). Its signal handlers are
 * installed before the application's modules load (which takes a moment) and stay for the
 * life of the process: a SIGTERM or SIGINT during start-up stops it cleanly (exit 0) rather
 * than killing it, and none is lost in a handover.
 */
export async function start(): Promise<void> {
  // No allocation-site pretenuring (a V8 flag, read when the collector runs: set before the
  // application loads, it is in time). V8 allocates a literal's objects straight in the old
  // generation once most of them have survived a scavenge. While the caches fill (a start under
  // load), requests wait on the database and outlive scavenges: the literals of request-scoped
  // objects were so marked for good, and from then on every request's garbage went to the old
  // generation. Over 10,000 realms the server peaked at 390-510 MB instead of about 250 MB; on
  // one realm it served about 4 % fewer tokens per second (bench/scale/README.md). What does
  // live long here, the caches' entries, is allocated once.
  setFlagsFromString('--no-allocation-site-pretenuring');
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
