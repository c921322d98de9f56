import type { Db } from './db.js';

/** At most `max` failures per `windowSeconds` for `key` (which names the realm, the action and whose attempts). */
export interface AttemptLimit {
  readonly key: string;
  readonly max: number;
  readonly windowSeconds: number;
  /**
   * Counts one person's attempts, however they are named: `key` is then a prefix, which the
   * reserving statement completes with `person:` and the id of the realm's user whose username
   * matches `username` by the users lookup's own `lower()` (src/store/users.ts get), or else with
   * `name:` and the hash of that `lower()`. Every spelling that reaches one person (or nobody)
   * counts as one, and the person is looked up in the statement that counts (no statement more).
   */
  readonly person?: { readonly realm: string; readonly username: string };
}

/** The key under which `AttemptLimit.person` counts a known person: `prefix` and their id. */
export const personKey = (prefix: string, userId: string): string => `${prefix}person:${userId}`;

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
    // One statement: the keys (a person's looked up), the conditional upsert, and for a limit
    // reached the seconds left in its window (as the statement's snapshot saw it).
    const result = await this.db.query<{ key: string; count: number | null; window: string | null; wait: number | null }>(
      `WITH l AS (
         SELECT CASE WHEN l.realm IS NULL THEN l.key ELSE l.key || coalesce(
                  'person:' || (SELECT u.id::text FROM users u WHERE u.realm = l.realm AND lower(u.username) = lower(l.username)),
                  'name:' || encode(sha256(convert_to(lower(l.username), 'UTF8')), 'base64'))
                END AS key, l.seconds, l.max, l.n
           FROM unnest($1::text[], $2::int[], $3::int[], $4::text[], $5::text[]) WITH ORDINALITY AS l(key, seconds, max, realm, username, n)
       ), taken AS (
         INSERT INTO attempt_counters AS c (key, failures, window_ends_at)
         SELECT l.key, 1, now() + make_interval(secs => l.seconds) FROM l ORDER BY l.key
         ON CONFLICT (key) DO UPDATE SET
           failures = CASE WHEN c.window_ends_at <= now() THEN 1 ELSE c.failures + 1 END,
           window_ends_at = CASE WHEN c.window_ends_at <= now() THEN excluded.window_ends_at ELSE c.window_ends_at END
         WHERE c.window_ends_at <= now() OR c.failures < (SELECT l.max FROM l WHERE l.key = c.key)
         RETURNING c.key, c.failures, c.window_ends_at
       )
       SELECT l.key, t.failures AS count, t.window_ends_at::text AS window,
              (SELECT ceil(extract(epoch FROM a.window_ends_at - now()))::int FROM attempt_counters a WHERE a.key = l.key) AS wait
         FROM l LEFT JOIN taken t ON t.key = l.key ORDER BY l.n`,
      [
        limits.map((limit) => limit.key),
        limits.map((limit) => limit.windowSeconds),
        limits.map((limit) => limit.max),
        limits.map((limit) => limit.person?.realm ?? null),
        limits.map((limit) => limit.person?.username ?? null),
      ],
    );
    const reserved = result.rows.flatMap((row) => (row.count === null ? [] : [{ key: row.key, windowEndsAt: row.window!, count: row.count }]));
    const reached = result.rows.find((row) => row.count === null);
    if (reached) {
      // Those taken of the other limits go back: this attempt is not made.
      await this.release(reserved);
      return { wait: Math.max(1, reached.wait ?? 1) };
    }
    return { reserved };
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
