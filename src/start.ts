import { setFlagsFromString } from 'node:v8';
import { exitWhenIdle } from './exit-when-idle.js';

/**
 * Starts the server process (`npm start`, `realmgate start`). Its signal handlers are
 * installed before the application's modules load (which takes a moment) and stay for the
 * life of the process: a SIGTERM or SIGINT during start-up stops it cleanly (exit 0) rather
 * than killing it, and none is lost in a handover.
 */
export async function start(): Promise<void> {
  // No allocation-site pretenuring (bench/scale/README.md). V8 allocates a literal's objects
  // straight in the old generation once most have survived a scavenge. While the caches fill
  // under load, requests wait on the database and outlive scavenges: that marked the literals of
  // request-scoped objects for good, and every request's garbage then went to the old generation
  // (a server of 10,000 realms peaked at 350-510 MB of RSS rather than 230-260). V8 reads the
  // flag when it collects, so setting it before the application loads is in time.
  setFlagsFromString('--no-allocation-site-pretenuring');
  // A full collection again once the old generation has grown by half of what the last one left
  // live (bench/scale/README.md). V8 chooses that factor itself, between 1.1 and 4, from how
  // cheap collecting has looked: under steady load it settled near 1.5, but after a start-up
  // with little to do it was about 4, and the soak's server grew its heap from 35 MB live to
  // 135 MB (RSS 200 MB) before a collection brought it to 80 MB (RSS 147 MB) for good. V8 reads
  // the flag whenever it sets the next limit.
  setFlagsFromString('--heap-growing-percent=50');
  let stop: ((signal: string) => void) | undefined;
  let stoppedWhileLoading = false;
  const onSignal = (signal: NodeJS.Signals) => {
    // Before run() nothing is open, only modules loading (seconds on a busy machine): they are
    // not run, and the process ends when they have loaded.
    if (stop) stop(signal);
    else if (!stoppedWhileLoading) {
      stoppedWhileLoading = true;
      exitWhenIdle(0);
    }
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  const { run } = await import('./process.js');
  if (!stoppedWhileLoading) stop = run();
}
