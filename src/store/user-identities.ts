import { type Db, type Queryable, isUuid } from './db.js';
import { type Claims, type User, USER_COLUMNS, type UserRow, toUser } from './users.js';

/** An upstream account linked to a person (CONTRACT.md §10). */
export interface UserIdentity {
  /** The provider's alias. */
  readonly provider: string;
  /** The upstream's `sub`. */
  readonly subject: string;
}

export interface LinkedIdentity extends UserIdentity {
  readonly userId: string;
}

/** A link as the person's account page shows it. */
export interface PersonLink extends UserIdentity {
  readonly linkedAt: Date;
}

/** What an unlink did: removed the link, found no such link of the person, or kept it as their only way to sign in. */
export type UnlinkOutcome = 'unlinked' | 'not_linked' | 'only_way';

/** How many usernames a new person is tried with before one with a random suffix. */
const NUMBERED_SUFFIXES = 20;

const withUser = (columns: readonly string[]) => columns.map((column) => `u.${column}`).join(', ');

/**
 * The links from upstream accounts, (provider, subject), to the realm's people. A link is
 * unique per upstream account; the database decides between two first sign-ins of one
 * account at once.
 */
export class UserIdentityStore {
  constructor(private readonly db: Db) {}

  /** The person linked to the upstream account, if any. */
  async personOf(realm: string, provider: string, subject: string): Promise<User | undefined> {
    const result = await this.db.query<UserRow>(
      `SELECT ${withUser(USER_COLUMNS)} FROM user_identities i JOIN users u ON u.realm = i.realm AND u.id = i.user_id
        WHERE i.realm = $1 AND i.provider = $2 AND i.subject = $3`,
      [realm, provider, subject],
    );
    return result.rows[0] && toUser(result.rows[0]);
  }

  /** The person's links, oldest first. */
  async ofPerson(realm: string, userId: string): Promise<UserIdentity[]> {
    if (!isUuid(userId)) return [];
    const result = await this.db.query<UserIdentity>(
      'SELECT provider, subject FROM user_identities WHERE realm = $1 AND user_id = $2::uuid ORDER BY created_at, provider, subject',
      [realm, userId],
    );
    return result.rows.map(({ provider, subject }) => ({ provider, subject }));
  }

  /** Every link of the realm's people, each person's oldest first (a realm's export). */
  async ofRealm(realm: string): Promise<LinkedIdentity[]> {
    const result = await this.db.query<{ provider: string; subject: string; user_id: string }>(
      'SELECT provider, subject, user_id FROM user_identities WHERE realm = $1 ORDER BY user_id, created_at, provider, subject',
      [realm],
    );
    return result.rows.map((row) => ({ provider: row.provider, subject: row.subject, userId: row.user_id }));
  }

  /** The person's links with when each was made, oldest first. */
  async linksOf(realm: string, userId: string): Promise<PersonLink[]> {
    if (!isUuid(userId)) return [];
    const result = await this.db.query<{ provider: string; subject: string; created_at: Date }>(
      'SELECT provider, subject, created_at FROM user_identities WHERE realm = $1 AND user_id = $2::uuid ORDER BY created_at, provider, subject',
      [realm, userId],
    );
    return result.rows.map((row) => ({ provider: row.provider, subject: row.subject, linkedAt: new Date(row.created_at) }));
  }

  /**
   * Removes the person's link to the upstream account, unless nothing else would sign them in:
   * no password, no passkey, no other link. The person's row is locked first, so that two
   * unlinks at once are decided one after the other and cannot each leave the other's link
   * as the last and then remove it.
   */
  async unlink(realm: string, userId: string, identity: UserIdentity): Promise<UnlinkOutcome> {
    if (!isUuid(userId)) return 'not_linked';
    return this.db.transaction(async (tx) => {
      const person = await tx.query<{ has_password: boolean }>(
        'SELECT password_hash IS NOT NULL AS has_password FROM users WHERE realm = $1 AND id = $2::uuid FOR NO KEY UPDATE',
        [realm, userId],
      );
      if (!person.rows[0]) return 'not_linked';
      const ways = await tx.query<{ linked: boolean; others: boolean; has_passkey: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM user_identities WHERE realm = $1 AND user_id = $2::uuid AND provider = $3 AND subject = $4) AS linked,
                EXISTS (SELECT 1 FROM user_identities WHERE realm = $1 AND user_id = $2::uuid AND NOT (provider = $3 AND subject = $4)) AS others,
                EXISTS (SELECT 1 FROM passkeys WHERE realm = $1 AND user_id = $2::uuid) AS has_passkey`,
        [realm, userId, identity.provider, identity.subject],
      );
      const { linked, others, has_passkey: hasPasskey } = ways.rows[0]!;
      if (!linked) return 'not_linked';
      if (!person.rows[0].has_password && !hasPasskey && !others) return 'only_way';
      await tx.query('DELETE FROM user_identities WHERE realm = $1 AND user_id = $2::uuid AND provider = $3 AND subject = $4', [
        realm,
        userId,
        identity.provider,
        identity.subject,
      ]);
      return 'unlinked';
    });
  }

  /** Links the account to the person; false when it is linked already (to them or to another). */
  async link(realm: string, identity: LinkedIdentity): Promise<boolean> {
    return insertLink(this.db, realm, identity);
  }

  /**
   * A new person, made for an upstream account and linked to it in one transaction. The
   * username is the first free one of `username`, `username-2`, `username-3`… (usernames are
   * unique regardless of case). Undefined when the account was linked meanwhile (a first
   * sign-in of it at the same time): nobody is made.
   */
  async createLinked(realm: string, identity: UserIdentity, username: string, claims: Claims): Promise<User | undefined> {
    return this.db.transaction(async (tx) => {
      const user = await insertFreeUsername(tx, realm, username, claims);
      if (!(await insertLink(tx, realm, { ...identity, userId: user.id }))) throw new AlreadyLinked();
      return user;
    }).catch((error: unknown) => {
      if (error instanceof AlreadyLinked) return undefined;
      throw error;
    });
  }
}

class AlreadyLinked extends Error {}

async function insertLink(q: Queryable, realm: string, identity: LinkedIdentity): Promise<boolean> {
  const result = await q.query(
    `INSERT INTO user_identities (realm, provider, subject, user_id) VALUES ($1, $2, $3, $4::uuid)
     ON CONFLICT (realm, provider, subject) DO NOTHING`,
    [realm, identity.provider, identity.subject, identity.userId],
  );
  return result.rowCount > 0;
}

/**
 * A person without a password, under the first of the candidate usernames that is free. An
 * address that is another person's is not copied (migrations/025: an address is one
 * person's): the new person has no `email`; a clash with a registration made meanwhile is seen
 * by the next attempt, once that one has committed.
 */
async function insertFreeUsername(tx: Queryable, realm: string, username: string, claims: Claims): Promise<User> {
  const candidates = [username, ...Array.from({ length: NUMBERED_SUFFIXES - 1 }, (_, index) => withSuffix(username, String(index + 2)))];
  for (let attempt = 0; ; attempt++) {
    const candidate = candidates[attempt] ?? withSuffix(username, crypto.randomUUID().slice(0, 8));
    const result = await tx.query<UserRow>(
      `INSERT INTO users (realm, username, claims)
       SELECT $1, $2, CASE WHEN EXISTS (SELECT 1 FROM users WHERE realm = $1 AND lower(claims->>'email') = lower($3::jsonb->>'email'))
                           THEN $3::jsonb - 'email' - 'email_verified' ELSE $3::jsonb END
       ON CONFLICT DO NOTHING RETURNING ${USER_COLUMNS.join(', ')}`,
      [realm, candidate, JSON.stringify(claims)],
    );
    if (result.rows[0]) return toUser(result.rows[0]);
  }
}

/** Usernames are at most 255 characters (src/admin/users.ts): the suffix takes the place of the end. */
const withSuffix = (username: string, suffix: string) => `${[...username].slice(0, 254 - suffix.length).join('')}-${suffix}`;
