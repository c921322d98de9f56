import { DEFAULT_SETTINGS } from '../realms/settings.js';
import { INVALIDATION_CHANNEL, type Invalidatable } from './cache.js';
import type { Db } from './db.js';

/**
 * One JWT access token (`jti`), or every JWT access token of a grant (`grant`), of a deleted
 * person (`person`), or of an ended session (`session`, by the `sid` the token carries).
 */
export type DenialKind = 'jti' | 'grant' | 'person' | 'session';

export interface Denial {
  realm: string;
  kind: DenialKind;
  id: string;
  expiresAt: Date;
}

export interface DenialRow {
  realm: string;
  kind: DenialKind;
  id: string;
  expires_at: Date;
}

const NAME = 'revoked_jwts';

/** How often expired entries are swept from memory (cleanup deletes their rows). */
const SWEEP_MS = 60_000;

/**
 * The end of a statement whose CTE `denied` is an `INSERT … RETURNING` into revoked_jwts:
 * it notifies every instance (on the invalidation channel, under this list's name) when the
 * statement's transaction commits, and returns the rows for this instance to remember at once.
 */
const NOTIFY_DENIED = `
  SELECT realm, kind, id, expires_at,
         pg_notify('${INVALIDATION_CHANNEL}', '${NAME}|' || json_build_object('realm', realm, 'kind', kind, 'id', id,
                   'exp', floor(extract(epoch FROM expires_at) * 1000))::text)::text AS notified
    FROM denied`;

const ON_CONFLICT = `ON CONFLICT (realm, kind, id) DO UPDATE SET expires_at = greatest(revoked_jwts.expires_at, EXCLUDED.expires_at)
  RETURNING realm, kind, id, expires_at`;

/** The access token lifetime of the realm `r`, in seconds: how long a grant denial must last. */
export const ACCESS_TOKEN_LIFETIME_SQL = `coalesce((r.settings->>'access_token_lifetime')::int, ${Number(DEFAULT_SETTINGS.access_token_lifetime)})`;

/**
 * One statement that denies the JWT access tokens of grants: `ctes` are the statement's
 * leading CTEs (`WITH` excluded) and must define `grants(realm, id)`. Each grant is denied
 * for its realm's access token lifetime from now, the longest one of its tokens may still
 * live; the statement returns the denials (see `RevokedJwts.remember`).
 */
export function denyGrantsStatement(ctes: string): string {
  return `
  WITH ${ctes},
  denied AS (
    INSERT INTO revoked_jwts (realm, kind, id, expires_at)
    SELECT DISTINCT g.realm, 'grant', g.id::text, now() + make_interval(secs => ${ACCESS_TOKEN_LIFETIME_SQL})
      FROM grants g JOIN realms r ON r.name = g.realm
    ${ON_CONFLICT})
  ${NOTIFY_DENIED}`;
}

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

const toDenial = (row: DenialRow): Denial => ({ realm: row.realm, kind: row.kind, id: row.id, expiresAt: row.expires_at });

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
  /** Expiry (epoch ms) by "realm|kind|id". */
  private readonly denied = new Map<string, number>();
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

  /** Whether the token, its grant, or its person is denied. */
  async isDenied(
    realm: string,
    token: { jti: string; grantId: string | undefined; userId: string | undefined; sid?: string | undefined },
  ): Promise<boolean> {
    const { jti, grantId, userId, sid } = token;
    if (this.db.listening && this.loaded) {
      return (
        this.has(realm, 'jti', jti) ||
        (grantId !== undefined && this.has(realm, 'grant', grantId)) ||
        (userId !== undefined && this.has(realm, 'person', userId)) ||
        (sid !== undefined && this.has(realm, 'session', sid))
      );
    }
    this.reload();
    const result = await this.db.query(
      `SELECT 1 FROM revoked_jwts
        WHERE realm = $1 AND expires_at > now()
          AND ((kind = 'jti' AND id = $2) OR (kind = 'grant' AND id = $3) OR (kind = 'person' AND id = $4) OR (kind = 'session' AND id = $5))`,
      [realm, jti, grantId ?? null, userId ?? null, sid ?? null],
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
      const { realm, kind, id, exp } = JSON.parse(payload) as { realm: string; kind: DenialKind; id: string; exp: number };
      this.add({ realm, kind, id, expiresAt: new Date(exp) });
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
      .query<DenialRow>('SELECT realm, kind, id, expires_at FROM revoked_jwts WHERE expires_at > now()')
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
    this.denied.set(key, Math.max(expires, this.denied.get(key) ?? 0));
    if (now - this.lastSweep > SWEEP_MS) this.sweep(now);
  }

  private has(realm: string, kind: DenialKind, id: string): boolean {
    const key = keyOf(realm, kind, id);
    const expires = this.denied.get(key);
    if (expires === undefined) return false;
    if (expires > Date.now()) return true;
    this.denied.delete(key);
    return false;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, expires] of this.denied) if (expires <= now) this.denied.delete(key);
  }

  /** Entries in memory (for tests and metrics). */
  get size(): number {
    return this.denied.size;
  }
}
