import type { Db } from '../../src/store/db.js';
import { sha256 } from '../../src/secrets.js';

/**
 * Holding a token's row locked from a transaction of the test's (PostgreSQL), to interleave a
 * server's writes with it without waiting on a clock.
 */

/** Backends waiting for a lock that `pid` holds, directly or behind one that waits for it. */
const WAITING = `
  SELECT count(*)::int AS n FROM pg_stat_activity a
   WHERE a.wait_event_type = 'Lock'
     AND (pg_blocking_pids(a.pid) && ARRAY[$1::int]
          OR pg_blocking_pids(a.pid) && ARRAY(SELECT b.pid FROM pg_stat_activity b WHERE pg_blocking_pids(b.pid) && ARRAY[$1::int]))`;

/** Resolves once `count` statements wait for the locks of backend `pid`. */
export async function waitingFor(db: Db, pid: number, count: number): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if ((await db.query<{ n: number }>(WAITING, [pid])).rows[0]!.n >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${count} statements never waited for the test's lock`);
}

/** Locks the token's row (FOR UPDATE) in a transaction of the test's until `release`. */
export async function lockToken(db: Db, token: string): Promise<{ pid: number; release(): Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: (pid: number) => void;
  const lockedPid = new Promise<number>((resolve) => (locked = resolve));
  const held = db.transaction(async (tx) => {
    const { pid } = (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!;
    await tx.query('SELECT 1 FROM tokens WHERE token_hash = $1 FOR UPDATE', [sha256(token)]);
    locked(pid);
    await released;
  });
  const pid = await Promise.race([lockedPid, held.then(() => Promise.reject(new Error('the lock was not taken')))]);
  return {
    pid,
    async release() {
      release();
      await held;
    },
  };
}
