import type { Db } from './db.js';
import { StatementBatcher } from './statement-batcher.js';

/** A share of a key's budget asked for, and what the statement found once it has run. */
interface Take {
  readonly key: string;
  readonly amount: number;
  readonly windowSeconds: number;
  /** The key's count in its window, this take included. */
  count?: number;
  /** Milliseconds left in that window. */
  msLeft?: number;
}

/**
 * Requests per key counted in fixed windows in `attempt_counters` (as the per-address limits
 * are), taken in shares: an instance adds `amount` at once and spends it from memory
 * (src/rate-limits/leases.ts). Takes of many keys that arrive together go in one statement
 * (src/store/statement-batcher.ts), in key order, so that two instances' statements lock
 * the rows they share in the same order and never deadlock. One instance asks for a key at
 * most once at a time, so no key appears twice in a statement.
 */
export class RequestBudgetStore {
  private readonly takes: StatementBatcher<Take>;

  constructor(private readonly db: Db) {
    this.takes = new StatementBatcher((takes) => this.takeMany(takes));
  }

  /** Adds `amount` to `key`'s count (a new window of `windowSeconds` when the last has ended). */
  async take(key: string, amount: number, windowSeconds: number): Promise<{ count: number; msLeft: number }> {
    const take: Take = { key, amount, windowSeconds };
    await this.takes.add(take);
    return { count: take.count!, msLeft: take.msLeft! };
  }

  /**
   * Committed without waiting for its WAL to reach the disk (`synchronous_commit` off for this
   * statement's transaction alone): the count is visible to every instance at once all the same,
   * and the writes of the requests it admits (a token, a pushed request) commit after it with
   * their own flush, which takes its record to the disk too, WAL being written in order. A crash
   * of PostgreSQL can lose only the takes of its last moments (well under a second) whose
   * requests have written nothing since: those shares would be counted again after it. The
   * flush was half of PostgreSQL's CPU per take (45 against 24 µs a key in statements of 8).
   */
  private async takeMany(takes: readonly Take[]): Promise<void> {
    const sorted = [...takes].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const result = await this.db.query<{ key: string; count: number; ms_left: number }>(
      `INSERT INTO attempt_counters AS c (key, failures, window_ends_at)
       SELECT key, amount, now() + make_interval(secs => seconds)
         FROM unnest($1::text[], $2::int[], $3::int[]) WITH ORDINALITY AS t(key, amount, seconds, n),
              (SELECT set_config('synchronous_commit', 'off', true)) AS flushed_with_what_it_admits
        ORDER BY n
       ON CONFLICT (key) DO UPDATE SET
         failures = CASE WHEN c.window_ends_at <= now() THEN excluded.failures ELSE c.failures + excluded.failures END,
         window_ends_at = CASE WHEN c.window_ends_at <= now() THEN excluded.window_ends_at ELSE c.window_ends_at END
       RETURNING c.key, c.failures AS count, (extract(epoch FROM c.window_ends_at - now()) * 1000)::float8 AS ms_left`,
      [sorted.map((take) => take.key), sorted.map((take) => take.amount), sorted.map((take) => take.windowSeconds)],
    );
    const found = new Map(result.rows.map((row) => [row.key, row]));
    for (const take of takes) {
      const row = found.get(take.key)!;
      take.count = row.count;
      take.msLeft = Math.max(0, row.ms_left);
    }
  }
}
