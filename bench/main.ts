import { createThrowawayDatabase } from './postgres.js';
import { log, stopAll } from './processes.js';

/** A whole number from the environment, or the fallback when unset. */
export function wholeNumber(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name}: expected a whole number from ${min}, got ${raw}`);
  return value;
}

const cleanups: Array<() => Promise<void>> = [];

/** Runs `task` when the benchmark ends, however it ends (the last registered runs first). */
export function atExit(task: () => Promise<void>): void {
  cleanups.push(task);
}

/**
 * The store realmgate runs on: with DATABASE_URL, a throwaway database on that server
 * (dropped when the benchmark ends); else in-memory PGlite (no URL).
 */
export async function benchStore(): Promise<{ store: 'postgres' | 'pglite'; databaseUrl: string | undefined }> {
  const serverUrl = process.env.DATABASE_URL || undefined;
  if (!serverUrl) return { store: 'pglite', databaseUrl: undefined };
  const database = await createThrowawayDatabase(serverUrl);
  atExit(database.drop);
  log(`realmgate runs on the throwaway database ${new URL(database.url).pathname.slice(1)}`);
  return { store: 'postgres', databaseUrl: database.url };
}

/** Stops every server, then runs the exit tasks (dropping a throwaway database); safe to call twice. */
async function cleanup(): Promise<void> {
  await stopAll();
  for (let task = cleanups.pop(); task; task = cleanups.pop()) {
    await task().catch((error: unknown) => log(`cleanup failed: ${(error as Error).message}`));
  }
}

/**
 * Runs a benchmark's main function, cleaning up after it, after a failure, and on ctrl-c.
 * `on`, not `once`: ctrl-c reaches the whole process group, and tsx relays it once more;
 * a signal with no listener left would end the process before the cleanup is done.
 */
export function runBenchmark(main: () => Promise<void>): void {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      log(`${signal}: stopping`);
      void cleanup().finally(() => process.exit(130));
    });
  }
  main().then(
    () => cleanup().then(() => process.exit(process.exitCode ?? 0)),
    (error: unknown) => {
      if (stopping) return; // the signal handler is cleaning up; this is only the interrupted run
      log(`failed: ${(error as Error).stack ?? String(error)}`);
      void cleanup().finally(() => process.exit(1));
    },
  );
}
