import { LRUCache } from 'lru-cache';
import type { Db, Queryable } from './db.js';
import { DENY_PERSON, type DenialRow, type RevokedJwts } from './revoked-jwts.js';

export type Claims = Record<string, unknown>;

export interface User {
  readonly realm: string;
  /** Stable subject identifier (`sub`). */
  readonly id: string;
  readonly username: string;
  readonly passwordHash: string | undefined;
  readonly claims: Claims;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export interface UserRow {
  realm: string;
  id: string;
  username: string;
  password_hash: string | null;
  claims: Claims;
  created_at: Date;
  updated_at: Date;
}

export const USER_COLUMNS = ['realm', 'id', 'username', 'password_hash', 'claims', 'created_at', 'updated_at'] as const;
const COLUMNS = USER_COLUMNS.join(', ');

export const toUser = (row: UserRow): User => ({
  realm: row.realm,
  id: row.id,
  username: row.username,
  passwordHash: row.password_hash ?? undefined,
  claims: row.claims,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** Usernames are unique within a realm regardless of case, and never change. */
export class UserStore {
  /**
   * Usernames by "{realm}/{id}", for introspection. Kept per instance without invalidation:
   * a username never changes and an id is never reused; a deleted user's tokens go with them.
   */
  private readonly usernames = new LRUCache<string, string>({ max: 100_000 });

  constructor(
    private readonly db: Db,
    private readonly revokedJwts: RevokedJwts,
  ) {}

  async usernameOf(realm: string, id: string): Promise<string | undefined> {
    const key = `${realm}/${id}`;
    const cached = this.usernames.get(key);
    if (cached !== undefined) return cached;
    const username = (await this.getById(realm, id))?.username;
    if (username !== undefined) this.usernames.set(key, username);
    return username;
  }

  async get(realm: string, username: string): Promise<User | undefined> {
    const result = await this.db.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE realm = $1 AND lower(username) = lower($2)`, [
      realm,
      username,
    ]);
    return result.rows[0] && toUser(result.rows[0]);
  }

  async getById(realm: string, id: string, within: Queryable = this.db): Promise<User | undefined> {
    const result = await within.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE realm = $1 AND id = $2::uuid`, [realm, id]);
    return result.rows[0] && toUser(result.rows[0]);
  }

  /**
   * The one user whose `email` claim is `email`, ignoring case; undefined when none is, or
   * when several are (claims are not unique, so an email may not name one person).
   */
  async getByEmail(realm: string, email: string): Promise<User | undefined> {
    const result = await this.db.query<UserRow>(
      `SELECT ${COLUMNS} FROM users WHERE realm = $1 AND lower(claims->>'email') = lower($2) LIMIT 2`,
      [realm, email],
    );
    return result.rows.length === 1 ? toUser(result.rows[0]!) : undefined;
  }

  /** Undefined when the username is taken. */
  async create(realm: string, username: string, passwordHash: string, claims: Claims): Promise<User | undefined> {
    const result = await this.db.query<UserRow>(
      `INSERT INTO users (realm, username, password_hash, claims) VALUES ($1, $2, $3, $4::jsonb)
       ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
      [realm, username, passwordHash, JSON.stringify(claims)],
    );
    return result.rows[0] && toUser(result.rows[0]);
  }

  /**
   * Changes what is given: a new password hash, and claims merged into the stored ones
   * (a claim set to null is removed, as in JSON Merge Patch).
   */
  async update(realm: string, username: string, change: { passwordHash?: string; claims?: Claims }): Promise<User | undefined> {
    // Only top-level nulls remove claims: a null inside a claim's value is part of that value.
    const sent = Object.entries(change.claims ?? {});
    const set = Object.fromEntries(sent.filter(([, value]) => value !== null));
    const removed = sent.filter(([, value]) => value === null).map(([name]) => name);
    const result = await this.db.query<UserRow>(
      `UPDATE users SET password_hash = coalesce($3, password_hash),
                        claims = (claims || $4::jsonb) - $5::text[], updated_at = now()
        WHERE realm = $1 AND lower(username) = lower($2) RETURNING ${COLUMNS}`,
      [realm, username, change.passwordHash ?? null, JSON.stringify(set), removed],
    );
    return result.rows[0] && toUser(result.rows[0]);
  }

  /** Deletes the user, their tokens (which have no foreign key to users), sessions, codes and consents. */
  async delete(realm: string, username: string): Promise<boolean> {
    const denied = await this.db.transaction(async (tx) => {
      const found = await tx.query<{ id: string }>('SELECT id FROM users WHERE realm = $1 AND lower(username) = lower($2) FOR UPDATE', [
        realm,
        username,
      ]);
      const id = found.rows[0]?.id;
      if (id === undefined) return undefined;
      // The person's JWT access tokens are not stored: they are denied by the person's id.
      const denials = await tx.query<DenialRow>(DENY_PERSON, [realm, id]);
      await tx.query('DELETE FROM users WHERE realm = $1 AND id = $2', [realm, id]);
      await tx.query('DELETE FROM tokens WHERE realm = $1 AND user_id = $2', [realm, id]);
      this.usernames.delete(`${realm}/${id}`);
      return denials.rows;
    });
    if (denied === undefined) return false;
    this.revokedJwts.remember(denied);
    return true;
  }
}
