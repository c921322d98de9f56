import type { Db } from './db.js';

/** At most `max` failures per `windowSeconds` for `key` (which names the realm, the action and whose attempts). */
export interface AttemptLimit {
  readonly key: string;
  readonly max: number;
  readonly windowSeconds: number;
}

/**
 * Attempts (failed sign-ins, requests) counted in fixed windows, in the database, so that every instance sees the
 * same counts and a limit cannot be dodged by landing on another instance.
 */
export class AttemptCounters {
  constructor(private readonly db: Db) {}

  /** Seconds until the attempts are allowed again, when a limit is reached; else undefined. */
  async blockedFor(limits: readonly AttemptLimit[]): Promise<number | undefined> {
    const result = await this.db.query<{ key: string; failures: number; wait: number }>(
      `SELECT key, failures, ceil(extract(epoch FROM window_ends_at - now()))::int AS wait
         FROM attempt_counters WHERE key = ANY($1::text[]) AND window_ends_at > now()`,
      [limits.map((limit) => limit.key)],
    );
    let wait: number | undefined;
    for (const row of result.rows) {
      const limit = limits.find((candidate) => candidate.key === row.key)!;
      if (row.failures >= limit.max) wait = Math.max(wait ?? 0, row.wait, 1);
    }
    return wait;
  }

  /**
   * Counts one failure against each limit, starting a new window where the last one ended;
   * returns the failures now counted for each, in order.
   */
  async recordFailure(limits: readonly AttemptLimit[]): Promise<number[]> {
    const counts: number[] = [];
    for (const limit of limits) counts.push((await this.countRequest(limit.key, limit.windowSeconds)).count);
    return counts;
  }

  /**
   * Counts one request for `key` in a window of `windowSeconds` (a new one starting where
   * the last ended); returns the count, and the seconds left in the window.
   */
  async countRequest(key: string, windowSeconds: number): Promise<{ count: number; secondsLeft: number }> {
    const result = await this.db.query<{ count: number; seconds_left: number }>(
      `INSERT INTO attempt_counters (key, failures, window_ends_at) VALUES ($1, 1, now() + make_interval(secs => $2))
       ON CONFLICT (key) DO UPDATE SET
         failures = CASE WHEN attempt_counters.window_ends_at <= now() THEN 1 ELSE attempt_counters.failures + 1 END,
         window_ends_at = CASE WHEN attempt_counters.window_ends_at <= now() THEN excluded.window_ends_at ELSE attempt_counters.window_ends_at END
       RETURNING failures AS count, ceil(extract(epoch FROM window_ends_at - now()))::int AS seconds_left`,
      [key, windowSeconds],
    );
    const row = result.rows[0]!;
    return { count: row.count, secondsLeft: Math.max(1, row.seconds_left) };
  }

  /** The failures counted for `key` in its current window. */
  async failures(key: string): Promise<number> {
    const result = await this.db.query<{ failures: number }>(
      'SELECT failures FROM attempt_counters WHERE key = $1 AND window_ends_at > now()',
      [key],
    );
    return result.rows[0]?.failures ?? 0;
  }
}
