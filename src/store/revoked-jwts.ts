import { DEFAULT_SETTINGS } from '../records/realm-settings.js';
import { INVALIDATION_CHANNEL, type Invalidatable } from './cache.js';
import type { Db } from './db.js';

/**
 * One JWT access token (`jti`), or every JWT access token of a grant (`grant`), of a person
 * (`person`: all of a deleted one's, those issued up to a password change, reset or disable of
 * another), or of an ended session (`session`, by the `sid` the token carries).
 */
export type DenialKind = 'jti' | 'grant' | 'person' | 'session';

export interface Denial {
  realm: string;
  kind: DenialKind;
  id: string;
  expiresAt: Date;
  /** Epoch ms: the tokens issued up to it are denied (Infinity: all of them). */
  issuedUntil: number;
}

export interface DenialRow {
  realm: string;
  kind: DenialKind;
  id: string;
  expires_at: Date;
  /** `issued_until` in epoch ms; null for 'infinity'. */
  issued_until_ms: number | null;
}

/** `issued_until` as a DenialRow has it. */
const ISSUED_UNTIL_MS = `CASE WHEN isfinite(issued_until) THEN floor(extract(epoch FROM issued_until) * 1000)::float8 END AS issued_until_ms`;

const NAME = 'revoked_jwts';

/** How often expired entries are swept from memory (cleanup deletes their rows). */
const SWEEP_MS = 60_000;

/**
 * The end of a statement whose CTE `denied` is an `INSERT … RETURNING` into revoked_jwts:
 * it notifies every instance (on the invalidation channel, under this list's name) when the
 * statement's transaction commits, and returns the rows for this instance to remember at once.
 */
const NOTIFY_DENIED = `
  SELECT realm, kind, id, expires_at, issued_until_ms,
         pg_notify('${INVALIDATION_CHANNEL}', '${NAME}|' || json_build_object('realm', realm, 'kind', kind, 'id', id,
                   'exp', floor(extract(epoch FROM expires_at) * 1000), 'until', issued_until_ms)::text)::text AS notified
    FROM denied`;

const ON_CONFLICT = `ON CONFLICT (realm, kind, id) DO UPDATE SET expires_at = greatest(revoked_jwts.expires_at, EXCLUDED.expires_at),
                                                    issued_until = greatest(revoked_jwts.issued_until, EXCLUDED.issued_until)
  RETURNING realm, kind, id, expires_at, ${ISSUED_UNTIL_MS}`;

/** The access token lifetime of the realm `r`, in seconds: how long a grant denial must last. */
export const ACCESS_TOKEN_LIFETIME_SQL = `coalesce((r.settings->>'access_token_lifetime')::int, ${Number(DEFAULT_SETTINGS.access_token_lifetime)})`;

/**
 * One statement that denies the JWT access tokens of grants: `ctes` are the statement's
 * leading CTEs (`WITH` excluded) and must define `grants(realm, id)`. Each grant is denied
 * for its realm's access token lifetime from now, the longest one of its tokens may still
 * live; the statement returns the denials (see `RevokedJwts.remember`). `alsoDenied`, a
 * SELECT of (realm, kind, id, expires_at, issued_until), adds other denials to the statement.
 */
export function denyGrantsStatement(ctes: string, alsoDenied?: string): string {
  return `
  WITH ${ctes},
  denied AS (
    INSERT INTO revoked_jwts (realm, kind, id, expires_at, issued_until)
    SELECT DISTINCT g.realm, 'grant', g.id::text, now() + make_interval(secs => ${ACCESS_TOKEN_LIFETIME_SQL}), 'infinity'::timestamptz
      FROM grants g JOIN realms r ON r.name = g.realm
    ${alsoDenied === undefined ? '' : `UNION ALL ${alsoDenied}`}
    ${ON_CONFLICT})
  ${NOTIFY_DENIED}`;
}

/**
 * The denial of a person's JWT access tokens issued up to now ($1 realm, $2 user id), for
 * `denyGrantsStatement`'s `alsoDenied`: a password change, a reset or a disable (CONTRACT.md
 * §7). It reaches those of grants that wrote no row and carry no session's sid (a password
 * grant without a refresh token). The clock is read as the statement runs, late in the
 * change's transaction, and lasts the realm's access token lifetime from then.
 */
export const PERSON_ISSUED_UNTIL_NOW = `
    SELECT r.name, 'person', $2::text, clock_timestamp() + make_interval(secs => ${ACCESS_TOKEN_LIFETIME_SQL}), clock_timestamp()
      FROM realms r WHERE r.name = $1`;

/**
 * Denies the grants begun under some of a person's sessions ($1 realm, $2 user id, $3 sids):
 * the grants with stored tokens, and those whose code was exchanged recently enough for a JWT
 * access token of it to live (such a grant may have nothing stored).
 */
export const DENY_SESSION_GRANTS = denyGrantsStatement(`
  grants AS (
    SELECT realm, grant_id AS id FROM tokens WHERE realm = $1 AND user_id = $2::uuid AND sid = ANY ($3::uuid[])
    UNION
    SELECT c.realm, c.grant_id FROM authorization_codes c JOIN realms r ON r.name = c.realm
     WHERE c.realm = $1 AND c.user_id = $2::uuid AND c.sid = ANY ($3::uuid[]) AND c.used_at IS NOT NULL
       AND c.expires_at > now() - make_interval(secs => ${ACCESS_TOKEN_LIFETIME_SQL}))`);

/**
 * Denies every JWT access token of deleted people ($1 realm, $2 user ids) for the realm's
 * access token lifetime: whatever grant issued them, stored or not (a user id is never reused).
 */
export const DENY_PERSON = denyByIdStatement('person');

/**
 * Denies every JWT access token carrying the `sid` of an ended session ($1 realm, $2 sids), whatever
 * grant issued it: those with no stored sibling (no refresh token) have no grant to deny.
 */
export const DENY_SESSION = denyByIdStatement('session');

function denyByIdStatement(kind: 'person' | 'session'): string {
  return `
  WITH denied AS (
    INSERT INTO revoked_jwts (realm, kind, id, expires_at)
    SELECT r.name, '${kind}', id, now() + make_interval(secs => ${ACCESS_TOKEN_LIFETIME_SQL})
      FROM realms r CROSS JOIN unnest($2::text[]) AS id WHERE r.name = $1
    ${ON_CONFLICT})
  ${NOTIFY_DENIED}`;
}

const DENY_JTI = `
  WITH denied AS (
    INSERT INTO revoked_jwts (realm, kind, id, expires_at) VALUES ($1, 'jti', $2, $3)
    ${ON_CONFLICT})
  ${NOTIFY_DENIED}`;

/** What the stores that deny tokens need of the list: to remember what their statements denied. */
export interface DenialMemory {
  remember(rows: readonly DenialRow[]): void;
}

/**
 * The memory of a transaction (src/store/index.ts Store.transaction): its denials are kept
 * for `RevokedJwts.remember` once it commits, as its notifications are sent then; a
 * transaction rolled back denies nothing, here as on the other instances.
 */
export function rememberOnCommit(kept: DenialRow[]): DenialMemory {
  return { remember: (rows) => kept.push(...rows) };
}

const toDenial = (row: DenialRow): Denial => ({
  realm: row.realm,
  kind: row.kind,
  id: row.id,
  expiresAt: row.expires_at,
  issuedUntil: row.issued_until_ms ?? Number.POSITIVE_INFINITY,
});

const keyOf = (realm: string, kind: DenialKind, id: string): string => `${realm}|${kind}|${id}`;

/**
 * The revoked JWT access tokens, denied until they would have expired (revoked_jwts).
 *
 * Every instance keeps the whole list in memory: loaded at start, and kept current by the
 * notification each denial sends on the invalidation channel when it commits (it arrives
 * within milliseconds), so that checking a JWT costs no query. While notifications cannot be
 * received, or the list is being (re)loaded, the check asks the database instead. Entries
 * leave memory once expired, as their rows leave the table (src/store/cleanup.ts).
 */
export class RevokedJwts implements Invalidatable, DenialMemory {
  readonly name = NAME;
  /** Expiry and `issued_until` (epoch ms) by "realm|kind|id". */
  private readonly denied = new Map<string, { expires: number; issuedUntil: number }>();
  private loaded = false;
  private loading: Promise<void> | undefined;
  /** Bumped when notifications may have been missed: a load that started before is not enough. */
  private generation = 0;
  private lastSweep = Date.now();

  constructor(private readonly db: Db) {}

  /** Loads the list; resolves once it is complete (or the attempt failed). */
  async load(): Promise<void> {
    this.reload();
    await this.loading;
  }

  /**
   * Whether the token, its grant, its session or its person is denied. `issuedAtMs` (epoch
   * ms): when it was issued, for a person's denial of the tokens issued up to a moment.
   */
  async isDenied(
    realm: string,
    token: { jti: string; grantId: string | undefined; userId: string | undefined; sid?: string | undefined; issuedAtMs: number },
  ): Promise<boolean> {
    const { jti, grantId, userId, sid, issuedAtMs } = token;
    if (this.db.listening && this.loaded) {
      return (
        this.has(realm, 'jti', jti) ||
        (grantId !== undefined && this.has(realm, 'grant', grantId)) ||
        (userId !== undefined && this.has(realm, 'person', userId, issuedAtMs)) ||
        (sid !== undefined && this.has(realm, 'session', sid))
      );
    }
    this.reload();
    const result = await this.db.query(
      `SELECT 1 FROM revoked_jwts
        WHERE realm = $1 AND expires_at > now()
          AND ((kind = 'jti' AND id = $2) OR (kind = 'grant' AND id = $3) OR (kind = 'session' AND id = $5)
               OR (kind = 'person' AND id = $4 AND issued_until >= to_timestamp($6::float8 / 1000)))`,
      [realm, jti, grantId ?? null, userId ?? null, sid ?? null, issuedAtMs],
    );
    return result.rows.length > 0;
  }

  /** Denies one token until it expires, on every instance. */
  async denyToken(realm: string, jti: string, expiresAt: Date): Promise<void> {
    const result = await this.db.query<DenialRow>(DENY_JTI, [realm, jti, expiresAt]);
    this.remember(result.rows);
  }

  /** Records what a statement of `denyGrantsStatement` denied, without waiting for its notification. */
  remember(rows: readonly DenialRow[]): void {
    for (const row of rows) this.add(toDenial(row));
  }

  /** A notification of a denial committed by any instance: "invalidates" the entry by adding it. */
  drop(payload: string): void {
    try {
      const { realm, kind, id, exp, until } = JSON.parse(payload) as { realm: string; kind: DenialKind; id: string; exp: number; until?: number | null };
      this.add({ realm, kind, id, expiresAt: new Date(exp), issuedUntil: until ?? Number.POSITIVE_INFINITY });
    } catch {
      // Not ours to understand: a reload will see the row if there is one.
      this.clear();
    }
  }

  /** Notifications may have been missed: ask the database until the list is loaded again. */
  clear(): void {
    this.generation++;
    this.loaded = false;
    this.reload();
  }

  private reload(): void {
    if (this.loading) return;
    const generation = this.generation;
    this.loading = this.db
      .query<DenialRow>(`SELECT realm, kind, id, expires_at, ${ISSUED_UNTIL_MS} FROM revoked_jwts WHERE expires_at > now()`)
      .then((result) => {
        this.remember(result.rows);
        if (generation === this.generation) this.loaded = true;
      })
      .catch(() => {
        // The database is unreachable: checks keep asking it (and fail as the request would).
      })
      .finally(() => {
        this.loading = undefined;
        if (generation !== this.generation) this.reload();
      });
  }

  private add(denial: Denial): void {
    const now = Date.now();
    const expires = denial.expiresAt.getTime();
    if (!(expires > now)) return;
    const key = keyOf(denial.realm, denial.kind, denial.id);
    const known = this.denied.get(key);
    this.denied.set(key, {
      expires: Math.max(expires, known?.expires ?? 0),
      issuedUntil: Math.max(denial.issuedUntil, known?.issuedUntil ?? Number.NEGATIVE_INFINITY),
    });
    if (now - this.lastSweep > SWEEP_MS) this.sweep(now);
  }

  /** Whether the entry denies a token issued at `issuedAtMs` (any, when not given). */
  private has(realm: string, kind: DenialKind, id: string, issuedAtMs?: number): boolean {
    const key = keyOf(realm, kind, id);
    const entry = this.denied.get(key);
    if (entry === undefined) return false;
    if (entry.expires <= Date.now()) {
      this.denied.delete(key);
      return false;
    }
    return issuedAtMs === undefined || issuedAtMs <= entry.issuedUntil;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, { expires }] of this.denied) if (expires <= now) this.denied.delete(key);
  }

  /** Entries in memory (for tests and metrics). */
  get size(): number {
    return this.denied.size;
  }
}
