import pg from 'pg';
import { expect } from 'vitest';
import { INVALIDATION_CHANNEL } from '../../src/store/cache.js';
import type { Db } from '../../src/store/db.js';
import { testStoreKind } from './store.js';

/**
 * Waits for the cache invalidations (PostgreSQL NOTIFY, src/store/cache.ts) that the app's
 * listeners have yet to receive. A change commits, answers, and its notification reaches the
 * listening connection a moment later: a test that warms a cache and then measures (statement
 * counts) or expects another instance to see the change must first wait for it, or a late
 * notification empties the cache mid-measure. Deterministic, unlike a pause: PostgreSQL
 * delivers a session's notifications in commit order, so a marker sent now arrives after every
 * one committed before it, and a listener that has received the marker has handled them all.
 *
 * It watches every pg.Client of the process (the listeners connect before or after `watch()`;
 * the prototype is patched), and counts the listeners that received each marker. On PGlite,
 * one process, a notification is handled before the statement that sent it answers: nothing to wait for.
 */
export class Invalidations {
  private readonly received = new Map<string, Set<pg.Client>>();
  private readonly originalEmit = pg.Client.prototype.emit;

  private constructor() {}

  /** Starts watching; `stop()` in afterAll. */
  static watch(): Invalidations {
    const watch = new Invalidations();
    const { originalEmit, received } = watch;
    pg.Client.prototype.emit = function (this: pg.Client, event: string | symbol, ...args: unknown[]) {
      const handled = originalEmit.apply(this, [event, ...args]);
      // After the listener's own handler ran: a marker seen means the notifications before it were handled.
      if (event === 'notification') received.get((args[0] as pg.Notification).payload ?? '')?.add(this);
      return handled;
    } as typeof pg.Client.prototype.emit;
    return watch;
  }

  stop(): void {
    pg.Client.prototype.emit = this.originalEmit;
  }

  /** Resolves once `listeners` listening connections (one per app instance) have handled every invalidation committed so far. */
  async settled(db: Pick<Db, 'query'>, listeners = 1): Promise<void> {
    if (testStoreKind() !== 'postgres') return;
    const marker = `settled|${Math.random()}`;
    const seenBy = new Set<pg.Client>();
    this.received.set(marker, seenBy);
    try {
      await db.query('SELECT pg_notify($1, $2)', [INVALIDATION_CHANNEL, marker]);
      await expect.poll(() => seenBy.size, { interval: 5, timeout: 10_000 }).toBeGreaterThanOrEqual(listeners);
    } finally {
      this.received.delete(marker);
    }
  }
}
