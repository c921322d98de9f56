import { type Db, bytes, isUuid } from './db.js';

/** A WebAuthn credential (a passkey) a person registered. */
export interface Passkey {
  readonly credentialId: Buffer;
  readonly realm: string;
  readonly userId: string;
  /** The COSE public key, as the authenticator gave it at registration. */
  readonly publicKey: Buffer;
  /** The authenticator's signature counter (WebAuthn L3 §6.1.1); 0 for those that keep none. */
  readonly counter: number;
  readonly transports: readonly string[];
  /** The BS flag the last time the authenticator answered: the credential is synced to other devices. */
  readonly backedUp: boolean;
  readonly name: string;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | undefined;
}

export type NewPasskey = Omit<Passkey, 'createdAt' | 'lastUsedAt'>;

/** What a deletion did: deleted the passkey, found no such passkey of the person, or kept it as their only way to sign in. */
export type PasskeyDeletion = 'deleted' | 'not_found' | 'only_way';

interface PasskeyRow {
  credential_id: Uint8Array;
  realm: string;
  user_id: string;
  public_key: Uint8Array;
  counter: number;
  transports: string[];
  backed_up: boolean;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

// The counter is a bigint column holding an unsigned 32-bit value: read as float8, exact in a double.
const COLUMNS = 'credential_id, realm, user_id, public_key, counter::float8 AS counter, transports, backed_up, name, created_at, last_used_at';

const toPasskey = (row: PasskeyRow): Passkey => ({
  credentialId: bytes(row.credential_id),
  realm: row.realm,
  userId: row.user_id,
  publicKey: bytes(row.public_key),
  counter: Number(row.counter),
  transports: row.transports,
  backedUp: row.backed_up,
  name: row.name,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at ?? undefined,
});

/** Passkeys by credential id, which is unique across every realm and person. */
export class PasskeyStore {
  constructor(private readonly db: Db) {}

  /**
   * Registers a passkey; false when its credential id is registered already, to anyone
   * (WebAuthn L3 §7.1 step 26), or when the person has `limit` passkeys.
   */
  async create(passkey: NewPasskey, limit: number): Promise<boolean> {
    const result = await this.db.query(
      `INSERT INTO passkeys (credential_id, realm, user_id, public_key, counter, transports, backed_up, name)
       SELECT $1::bytea, $2::text, $3::uuid, $4::bytea, $5::bigint, $6::text[], $7::boolean, $8::text
        WHERE (SELECT count(*) FROM passkeys WHERE realm = $2::text AND user_id = $3::uuid) < $9::int
       ON CONFLICT (credential_id) DO NOTHING`,
      [
        passkey.credentialId,
        passkey.realm,
        passkey.userId,
        passkey.publicKey,
        passkey.counter,
        passkey.transports,
        passkey.backedUp,
        passkey.name,
        limit,
      ],
    );
    return result.rowCount === 1;
  }

  /** A person's passkeys, oldest first. */
  async listForUser(realm: string, userId: string): Promise<Passkey[]> {
    if (!isUuid(userId)) return [];
    const result = await this.db.query<PasskeyRow>(
      `SELECT ${COLUMNS} FROM passkeys WHERE realm = $1 AND user_id = $2::uuid ORDER BY created_at, credential_id`,
      [realm, userId],
    );
    return result.rows.map(toPasskey);
  }

  /** The passkey of this realm with this credential id. */
  async find(realm: string, credentialId: Buffer): Promise<Passkey | undefined> {
    const result = await this.db.query<PasskeyRow>(`SELECT ${COLUMNS} FROM passkeys WHERE credential_id = $1 AND realm = $2`, [
      credentialId,
      realm,
    ]);
    return result.rows[0] && toPasskey(result.rows[0]);
  }

  /**
   * Records a verified use. The counter must still be below the new one (or both zero, for
   * authenticators that keep no counter): of two assertions carrying the same counter, a
   * sign of a cloned authenticator (WebAuthn L3 §6.1.1), only one is accepted. False when
   * the passkey is gone or the counter did not increase.
   */
  async recordUse(realm: string, credentialId: Buffer, use: { counter: number; backedUp: boolean }): Promise<boolean> {
    const result = await this.db.query(
      `UPDATE passkeys SET counter = $3::bigint, backed_up = $4, last_used_at = now()
        WHERE credential_id = $1 AND realm = $2 AND (counter < $3::bigint OR (counter = 0 AND $3::bigint = 0))`,
      [credentialId, realm, use.counter, use.backedUp],
    );
    return result.rowCount === 1;
  }

  /** Deletes one of the person's passkeys; false when they have none with that id. */
  /**
   * Deletes the person's passkey unless it is their only way to sign in (no password, no other
   * passkey, no linked upstream account). The person's row is locked first, as an unlink locks
   * it, so that a passkey deleted and an account unlinked at once cannot each leave the other
   * as the last way and then remove it.
   */
  async delete(realm: string, userId: string, credentialId: Buffer): Promise<PasskeyDeletion> {
    if (!isUuid(userId)) return 'not_found';
    return this.db.transaction(async (tx) => {
      const person = await tx.query<{ has_password: boolean }>(
        'SELECT password_hash IS NOT NULL AS has_password FROM users WHERE realm = $1 AND id = $2::uuid FOR NO KEY UPDATE',
        [realm, userId],
      );
      if (!person.rows[0]) return 'not_found';
      const ways = await tx.query<{ found: boolean; others: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM passkeys WHERE credential_id = $3 AND realm = $1 AND user_id = $2::uuid) AS found,
                EXISTS (SELECT 1 FROM passkeys WHERE realm = $1 AND user_id = $2::uuid AND credential_id <> $3)
                  OR EXISTS (SELECT 1 FROM user_identities WHERE realm = $1 AND user_id = $2::uuid) AS others`,
        [realm, userId, credentialId],
      );
      const { found, others } = ways.rows[0]!;
      if (!found) return 'not_found';
      if (!person.rows[0].has_password && !others) return 'only_way';
      await tx.query('DELETE FROM passkeys WHERE credential_id = $1 AND realm = $2 AND user_id = $3::uuid', [credentialId, realm, userId]);
      return 'deleted';
    });
  }
}
