import { readdirSync, writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import type pg from 'pg';
import { log } from '../processes.js';

/**
 * The nice value of the processes a measured run depends on: the bench (autocannon runs in
 * it), the servers under test and the PostgreSQL backends serving them. On a shared machine
 * they would otherwise get what is left by everything else (0.04 of a core at a load of 30);
 * favoured alike, the two setups compared are measured in the same conditions.
 */
export const FAVOURED_NICE = -10;

let refused = false;

/**
 * Every thread of `pid` (setpriority applies to one thread on Linux; threads started later
 * inherit the main thread's), and with `session`, its autogroup too: with the kernel's
 * autogroups on, each session competes for the cores as one, whatever its processes' nice,
 * so the bench's session and each server's (they start detached) are favoured as such. The
 * PostgreSQL backends share the postmaster's session with every other database's: those
 * are favoured among them only.
 */
function favourProcess(pid: number, session: boolean): void {
  if (session) {
    try {
      writeFileSync(`/proc/${pid}/autogroup`, String(FAVOURED_NICE));
    } catch {
      // no autogroups in this kernel, or the process is gone: the threads' nice is what counts
    }
  }
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return; // gone already
  }
  for (const thread of threads) {
    try {
      setPriority(Number(thread), FAVOURED_NICE);
    } catch (error) {
      if (!refused) log(`cannot raise the priority of the bench's processes (${(error as Error).message}): measured at the machine's default`);
      refused = true;
      return;
    }
  }
}

/** The bench itself, and each of `servers` (processes of the bench's own, each in its own session). */
export function favour(servers: readonly number[]): void {
  for (const pid of [process.pid, ...servers]) favourProcess(pid, true);
}

/**
 * The bench, the servers `servers`, and the backends connected to any of `databases` now (a
 * server's pool opens them as load comes, so this runs before each measured run).
 */
export async function favourWithBackends(watcher: pg.Client, databases: readonly string[], servers: readonly number[]): Promise<void> {
  favour(servers);
  for (const pid of await backendsOf(watcher, databases)) favourProcess(pid, false);
}

/** The PostgreSQL backends connected to any of `databases` now. */
export async function backendsOf(watcher: pg.Client, databases: readonly string[]): Promise<number[]> {
  const { rows } = await watcher.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = ANY($1::text[])', [databases]);
  return rows.map((row) => row.pid);
}
