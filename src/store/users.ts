import { LRUCache } from 'lru-cache';
import { type Db, type Queryable, isUuid } from './db.js';
import { endSessionsStatement } from './session-endings.js';
import {
  ACCESS_TOKEN_LIFETIME_SQL,
  DENY_PERSON,
  DENY_SESSION,
  type DenialMemory,
  type DenialRow,
  PERSON_ISSUED_UNTIL_NOW,
  denyGrantsStatement,
} from './revoked-jwts.js';
import { type Claims, type User, type UserRow, USER_COLUMNS, toUser } from './user-records.js';

export { type Claims, type User, type UserRow, USER_COLUMNS, isEmailTaken, toUser } from './user-records.js';

const COLUMNS = USER_COLUMNS.join(', ');

/**
 * Denies the JWT access tokens of a person's grants ($1 realm, $2 user id): the grants with
 * stored tokens, and those whose code was exchanged recently enough for a JWT access token of
 * it to live (such a grant may have nothing stored); and, by the person's id, every one of
 * their JWT access tokens issued up to now, whatever grant issued it.
 */
const DENY_PERSON_GRANTS = denyGrantsStatement(
  `
  grants AS (
    SELECT realm, grant_id AS id FROM tokens WHERE realm = $1 AND user_id = $2::uuid
    UNION
    SELECT c.realm, c.grant_id FROM authorization_codes c JOIN realms r ON r.name = c.realm
     WHERE c.realm = $1 AND c.user_id = $2::uuid AND c.used_at IS NOT NULL
       AND c.expires_at > now() - make_interval(secs => ${ACCESS_TOKEN_LIFETIME_SQL}))`,
  PERSON_ISSUED_UNTIL_NOW,
);

/**
 * Locks the rows through which tokens are issued to a person ($1 realm, $2 user id) before
 * their own row: the order in which issuance takes them (a device or CIBA request, or a code,
 * then the session, then the person: src/store/tokens.ts insertTokens), so that an end of the
 * person's grants waits for an issuance in progress rather than deadlocking with it.
 */
const ISSUING_ROWS_OF_PERSON = [
  'SELECT 1 FROM pending_authorizations WHERE realm = $1 AND user_id = $2::uuid FOR UPDATE',
  'SELECT 1 FROM authorization_codes WHERE realm = $1 AND user_id = $2::uuid FOR UPDATE',
  'SELECT 1 FROM sessions WHERE realm = $1 AND user_id = $2::uuid FOR UPDATE',
];

/** What `UserStore.update` changes: only what is given. */
export interface UserChange {
  passwordHash?: string;
  claims?: Claims;
  enabled?: boolean;
}

/** Usernames are unique within a realm regardless of case, and never change. */
export class UserStore {
  /**
   * Usernames by "{realm}/{id}", for introspection. Kept per instance without invalidation:
   * a username never changes and an id is never reused; a deleted user's tokens go with them.
   * Made at first use: the store of a transaction (src/store/index.ts) looks up none.
   */
  private usernames: LRUCache<string, string> | undefined;

  constructor(
    private readonly db: Db,
    private readonly revokedJwts: DenialMemory,
  ) {}

  async usernameOf(realm: string, id: string): Promise<string | undefined> {
    const key = `${realm}/${id}`;
    const usernames = (this.usernames ??= new LRUCache({ max: 100_000 }));
    const cached = usernames.get(key);
    if (cached !== undefined) return cached;
    const username = (await this.getById(realm, id))?.username;
    if (username !== undefined) usernames.set(key, username);
    return username;
  }

  async get(realm: string, username: string): Promise<User | undefined> {
    const result = await this.db.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE realm = $1 AND lower(username) = lower($2)`, [
      realm,
      username,
    ]);
    return result.rows[0] && toUser(result.rows[0]);
  }

  async getById(realm: string, id: string): Promise<User | undefined> {
    const result = await this.db.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE realm = $1 AND id = $2::uuid`, [realm, id]);
    return result.rows[0] && toUser(result.rows[0]);
  }

  /**
   * The person, locked (FOR KEY SHARE) until the transaction ends (this repository of a
   * `Store.transaction`'s): whatever ends their grants waits for the tokens written in it, and
   * so revokes them (src/store/tokens.ts insertTokens). Take it before the rows the issuance
   * uses, so that a later statement sees what an end that came first did to them. The row
   * answered is the one committed last, a disable's included: check `enabled`.
   */
  async hold(realm: string, id: string): Promise<User | undefined> {
    const result = await this.db.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE realm = $1 AND id = $2::uuid FOR KEY SHARE`, [realm, id]);
    return result.rows[0] && toUser(result.rows[0]);
  }

  /** The person whose `email` claim is `email`, ignoring case (an address is one person's: migrations/025). */
  async getByEmail(realm: string, email: string): Promise<User | undefined> {
    const result = await this.db.query<UserRow>(
      `SELECT ${COLUMNS} FROM users WHERE realm = $1 AND lower(claims->>'email') = lower($2) LIMIT 2`,
      [realm, email],
    );
    return result.rows.length === 1 ? toUser(result.rows[0]!) : undefined;
  }

  /**
   * A new person; `imported` keeps the id and the flag of a realm's document (src/admin/realm-data/).
   * Undefined when the username is taken, or the email address (another person's), or the id
   * when one is given (a realm's import keeps the `sub` of the person it brings). No password
   * hash: a person who signs in otherwise.
   */
  async create(realm: string, username: string, passwordHash: string | undefined, claims: Claims, imported: { id?: string; enabled?: boolean } = {}): Promise<User | undefined> {
    const result = await this.db.query<UserRow>(
      `INSERT INTO users (realm, id, username, password_hash, claims, enabled) VALUES ($1, coalesce($5::uuid, gen_random_uuid()), $2, $3, $4::jsonb, $6)
       ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
      [realm, username, passwordHash ?? null, JSON.stringify(claims), imported.id ?? null, imported.enabled ?? true],
    );
    return result.rows[0] && toUser(result.rows[0]);
  }

  /**
   * Whether the person's session of this sid is live, locking it (FOR KEY SHARE) until the
   * transaction ends (this repository of a `Store.transaction`'s): a sign-out waits for the
   * tokens written in it under the session, and so revokes them, or comes first, and then the
   * session is gone. Take it before `hold`.
   */
  async holdSession(realm: string, id: string, sid: string): Promise<boolean> {
    if (!isUuid(sid)) return false;
    const result = await this.db.query(
      'SELECT 1 FROM sessions WHERE realm = $1 AND user_id = $2::uuid AND sid = $3::uuid AND expires_at > now() FOR KEY SHARE',
      [realm, id, sid],
    );
    return result.rows.length > 0;
  }

  /**
   * Changes what is given: a new password hash, and claims merged into the stored ones
   * (a claim set to null is removed, as in JSON Merge Patch). A new password ends the
   * person's sessions and grants with it, in one transaction (`endGrants`, CONTRACT.md §7).
   */
  async update(realm: string, username: string, change: UserChange): Promise<User | undefined> {
    return (await this.change(realm, username, change))?.user;
  }

  /**
   * `update`, which may also disable or enable the person (CONTRACT.md §10), answering whether
   * they were enabled before. A disable ends their sessions and grants in the same transaction
   * as it clears the flag: the person's row is locked FOR UPDATE first (`endGrantsWithin`), so
   * that an issuance in progress, which holds it FOR KEY SHARE, commits first and is revoked
   * here, and one that comes later waits, then reads the flag cleared, and issues nothing
   * (src/store/token-statements.ts insertTokens, src/store/sessions.ts insertSession).
   */
  async change(realm: string, username: string, change: UserChange): Promise<{ user: User; wasEnabled: boolean } | undefined> {
    // Only top-level nulls remove claims: a null inside a claim's value is part of that value.
    const sent = Object.entries(change.claims ?? {});
    const set = Object.fromEntries(sent.filter(([, value]) => value !== null));
    const removed = sent.filter(([, value]) => value === null).map(([name]) => name);
    const write = async (q: Queryable, id: string | undefined) => {
      // The row as it was, locked as an UPDATE locks it, so that `was_enabled` is the value this change replaced.
      const result = await q.query<UserRow & { was_enabled: boolean }>(
        `UPDATE users u SET password_hash = coalesce($3, u.password_hash),
                            claims = (u.claims || $4::jsonb) - $5::text[], enabled = coalesce($7, u.enabled), updated_at = now()
           FROM (SELECT id, enabled FROM users
                  WHERE realm = $1 AND lower(username) = lower($2) AND ($6::uuid IS NULL OR id = $6::uuid) FOR NO KEY UPDATE) was
          WHERE u.realm = $1 AND u.id = was.id
          RETURNING ${USER_COLUMNS.map((column) => `u.${column}`).join(', ')}, was.enabled AS was_enabled`,
        [realm, username, change.passwordHash ?? null, JSON.stringify(set), removed, id ?? null, change.enabled ?? null],
      );
      const row = result.rows[0];
      return row && { user: toUser(row), wasEnabled: row.was_enabled };
    };
    const disabling = change.enabled === false;
    if (change.passwordHash === undefined && !disabling) return write(this.db, undefined);
    const updated = await this.db.transaction(async (tx) => {
      const id = await this.idOf(realm, username, tx);
      const denied = id === undefined ? undefined : await this.endGrantsWithin(tx, realm, id);
      const written = denied && (await write(tx, id));
      return written && { ...written, denied };
    });
    if (!updated) return undefined;
    this.revokedJwts.remember(updated.denied);
    return { user: updated.user, wasEnabled: updated.wasEnabled };
  }

  /**
   * A page of the realm's people in the order of their usernames (ignoring case), after the
   * username `after` (keyset paging: a page is found by the unique index on usernames, however
   * deep). `search` keeps those whose username, `email`, `name`, `given_name` or `family_name`
   * claim holds it, ignoring case.
   */
  async list(realm: string, page: { search: string | undefined; after: string | undefined; limit: number }): Promise<User[]> {
    const result = await this.db.query<UserRow>(
      `SELECT ${COLUMNS} FROM users
        WHERE realm = $1 AND ($2::text IS NULL OR lower(username) > lower($2))
          AND ($3::text IS NULL OR EXISTS (
                SELECT 1 FROM unnest(ARRAY[username, claims->>'email', claims->>'name', claims->>'given_name', claims->>'family_name']) AS f(value)
                 WHERE strpos(lower(f.value), lower($3)) > 0))
        ORDER BY lower(username) LIMIT $4`,
      [realm, page.after ?? null, page.search ?? null, page.limit],
    );
    return result.rows.map(toUser);
  }

  /**
   * Ends what the person's credentials gave (CONTRACT.md §7, §9, §10: a password change or
   * reset, a disabled account): their sessions; their grants' stored tokens, refresh and
   * access tokens alike; the JWT access tokens of those grants and of their sessions (denied
   * on every instance); codes not yet exchanged; and device or CIBA requests approved but not
   * yet collected. Tokens being issued meanwhile are revoked too, or not issued. False when
   * the person does not exist.
   */
  async endGrants(realm: string, userId: string): Promise<boolean> {
    const denied = await this.db.transaction((tx) => this.endGrantsWithin(tx, realm, userId));
    if (!denied) return false;
    this.revokedJwts.remember(denied);
    return true;
  }

  /**
   * `endGrants` in the transaction `tx`, which then holds the person's row (FOR UPDATE);
   * undefined when there is no such person. The rows issuance takes before the person's are
   * changed first, in its order (ISSUING_ROWS_OF_PERSON); the person's tokens are revoked once
   * their row is locked, so that no token being written is missed.
   */
  private async endGrantsWithin(tx: Queryable, realm: string, userId: string): Promise<DenialRow[] | undefined> {
    const params = [realm, userId];
    await tx.query(
      `UPDATE pending_authorizations SET status = 'denied' WHERE realm = $1 AND user_id = $2::uuid AND status = 'approved'`,
      params,
    );
    await tx.query('DELETE FROM authorization_codes WHERE realm = $1 AND user_id = $2::uuid AND used_at IS NULL', params);
    const ended = async () => (await tx.query<{ sid: string }>(endSessionsStatement('realm = $1 AND user_id = $2::uuid'), params)).rows;
    const sessions = await ended();
    // FOR UPDATE, not the weaker lock of an UPDATE of the row, which would not wait for issuance's FOR KEY SHARE.
    const locked = await tx.query('SELECT 1 FROM users WHERE realm = $1 AND id = $2::uuid FOR UPDATE', params);
    if (locked.rows.length === 0) return undefined;
    // Sessions begun while this waited for the person's row (a sign-in holds it FOR KEY SHARE,
    // and so committed first): a password change or a disable ends them too.
    sessions.push(...(await ended()));
    await tx.query('UPDATE tokens SET revoked_at = now() WHERE realm = $1 AND user_id = $2::uuid AND revoked_at IS NULL', params);
    const denied = (await tx.query<DenialRow>(DENY_PERSON_GRANTS, params)).rows;
    // JWT access tokens of grants with nothing stored carry their session's sid.
    if (sessions.length > 0) denied.push(...(await tx.query<DenialRow>(DENY_SESSION, [realm, sessions.map(({ sid }) => sid)])).rows);
    return denied;
  }

  private async idOf(realm: string, username: string, q: Queryable): Promise<string | undefined> {
    const result = await q.query<{ id: string }>('SELECT id FROM users WHERE realm = $1 AND lower(username) = lower($2)', [realm, username]);
    return result.rows[0]?.id;
  }

  /**
   * Deletes the user, their tokens (which have no foreign key to users), sessions (telling their
   * clients, src/store/session-endings.ts), codes and consents. Tokens being issued to them meanwhile are deleted too, or not issued: the rows
   * issuance takes are locked in its order, the person's last (src/store/tokens.ts insertTokens).
   */
  async delete(realm: string, username: string): Promise<boolean> {
    const denied = await this.db.transaction(async (tx) => {
      const unlocked = await this.idOf(realm, username, tx);
      if (unlocked === undefined) return undefined;
      for (const statement of ISSUING_ROWS_OF_PERSON) await tx.query(statement, [realm, unlocked]);
      const found = await tx.query<{ id: string }>('SELECT id FROM users WHERE realm = $1 AND id = $2::uuid FOR UPDATE', [realm, unlocked]);
      const id = found.rows[0]?.id;
      if (id === undefined) return undefined;
      // The person's JWT access tokens are not stored: they are denied by the person's id.
      const denials = await tx.query<DenialRow>(DENY_PERSON, [realm, [id]]);
      await tx.query(endSessionsStatement('realm = $1 AND user_id = $2::uuid'), [realm, id]);
      await tx.query('DELETE FROM users WHERE realm = $1 AND id = $2', [realm, id]);
      await tx.query('DELETE FROM tokens WHERE realm = $1 AND user_id = $2', [realm, id]);
      this.usernames?.delete(`${realm}/${id}`);
      return denials.rows;
    });
    if (denied === undefined) return false;
    this.revokedJwts.remember(denied);
    return true;
  }
}
