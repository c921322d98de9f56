import type { Db } from './db.js';

/** At most `max` failures per `windowSeconds` for `key` (which names the realm, the action and whose attempts). */
export interface AttemptLimit {
  readonly key: string;
  readonly max: number;
  readonly windowSeconds: number;
}

/** One attempt counted against a limit before it is made: its count then, and the window it counts in. */
export interface Reservation {
  readonly key: string;
  /** As the database writes it, to the microsecond. */
  readonly windowEndsAt: string;
  readonly count: number;
}

/**
 * Attempts (failed sign-ins, requests) counted in fixed windows, in the database, so that every instance sees the
 * same counts and a limit cannot be dodged by landing on another instance.
 */
export class AttemptCounters {
  constructor(private readonly db: Db) {}

  /**
   * Reserves one attempt against each limit, before the attempt is made: all of them, or none
   * when a limit is reached (then the seconds until it opens). One conditional upsert takes
   * them all, so that concurrent attempts on any number of instances never pass a limit: each
   * row is locked while the condition is judged against its latest count, and the rows are
   * taken in the order of their keys, so that two attempts sharing keys wait rather than
   * deadlock. A reservation counts as a failure until it is given back (`release`).
   */
  async reserve(limits: readonly AttemptLimit[]): Promise<{ reserved: Reservation[] } | { wait: number }> {
    const result = await this.db.query<{ key: string; count: number; window: string }>(
      `INSERT INTO attempt_counters AS c (key, failures, window_ends_at)
       SELECT l.key, 1, now() + make_interval(secs => l.seconds)
         FROM unnest($1::text[], $2::int[]) AS l(key, seconds) ORDER BY l.key
       ON CONFLICT (key) DO UPDATE SET
         failures = CASE WHEN c.window_ends_at <= now() THEN 1 ELSE c.failures + 1 END,
         window_ends_at = CASE WHEN c.window_ends_at <= now() THEN excluded.window_ends_at ELSE c.window_ends_at END
       WHERE c.window_ends_at <= now()
          OR c.failures < (SELECT l.max FROM unnest($1::text[], $3::int[]) AS l(key, max) WHERE l.key = c.key)
       RETURNING c.key, c.failures AS count, c.window_ends_at::text AS window`,
      [limits.map((limit) => limit.key), limits.map((limit) => limit.windowSeconds), limits.map((limit) => limit.max)],
    );
    const reserved = new Map(result.rows.map((row) => [row.key, { key: row.key, windowEndsAt: row.window, count: row.count }]));
    const reached = limits.find((limit) => !reserved.has(limit.key));
    if (reached) {
      // Those taken of the other limits go back: this attempt is not made.
      await this.release([...reserved.values()]);
      return { wait: await this.secondsLeft(reached.key) };
    }
    return { reserved: limits.map((limit) => reserved.get(limit.key)!) };
  }

  /**
   * Gives reservations back, unless their window has ended (a new window's count is not theirs).
   * A count back at zero is removed, as if nothing had been attempted. One MERGE does both: a
   * row changed by a reservation made meanwhile is judged again as it stands once locked
   * (PostgreSQL re-evaluates MERGE's conditions on the latest version), so that the reservation
   * is neither lost nor removed.
   */
  async release(reservations: readonly Reservation[]): Promise<void> {
    if (reservations.length === 0) return;
    await this.db.query(
      `MERGE INTO attempt_counters AS c
       USING unnest($1::text[], $2::timestamptz[]) AS r(key, window_ends_at)
          ON c.key = r.key AND c.window_ends_at = r.window_ends_at
        WHEN MATCHED AND c.failures <= 1 THEN DELETE
        WHEN MATCHED THEN UPDATE SET failures = c.failures - 1`,
      [reservations.map((reservation) => reservation.key), reservations.map((reservation) => reservation.windowEndsAt)],
    );
  }

  private async secondsLeft(key: string): Promise<number> {
    const result = await this.db.query<{ wait: number }>(
      'SELECT ceil(extract(epoch FROM window_ends_at - now()))::int AS wait FROM attempt_counters WHERE key = $1',
      [key],
    );
    return Math.max(1, result.rows[0]?.wait ?? 1);
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
