import type { JWK } from 'jose';
import type { NewSigningKey } from '../records/signing-key.js';
import { type SharedCache, writeThrough } from './cache.js';
import { type Db, type Queryable, ownedBytes } from './db.js';

export interface StoredSigningKey {
  kid: string;
  alg: string;
  publicJwk: JWK;
  privateJwkEncrypted: Buffer;
  /** Undefined for the current key of its algorithm. */
  retiredAt: Date | undefined;
}

interface KeyRow {
  kid: string;
  alg: string;
  public_jwk: JWK;
  private_jwk_encrypted: Uint8Array;
  retired_at: Date | null;
}

const toKey = (row: KeyRow): StoredSigningKey => ({
  kid: row.kid,
  alg: row.alg,
  publicJwk: row.public_jwk,
  privateJwkEncrypted: ownedBytes(row.private_jwk_encrypted),
  retiredAt: row.retired_at ?? undefined,
});

const COLUMNS = 'kid, alg, public_jwk, private_jwk_encrypted, retired_at';

export async function insertSigningKey(tx: Queryable, realm: string, key: NewSigningKey): Promise<void> {
  await tx.query(
    'INSERT INTO signing_keys (realm, kid, alg, public_jwk, private_jwk_encrypted) VALUES ($1, $2, $3, $4::jsonb, $5)',
    [realm, key.kid, key.alg, JSON.stringify(key.publicJwk), key.privateJwkEncrypted],
  );
}

/**
 * A realm's keys, cached per instance as "{realm}/current" and "{realm}/published": signing
 * and verifying JWTs read them on every token. A rotation invalidates them on every instance
 * as it commits; the short time to live bounds what a deleted and re-created realm sees.
 */
export type SigningKeyCache = SharedCache<StoredSigningKey[]>;

export class SigningKeyStore {
  constructor(
    private readonly db: Db,
    private readonly cache: SigningKeyCache,
  ) {}

  /** The current key of each algorithm. */
  current(realm: string): Promise<StoredSigningKey[]> {
    return this.cached(`${realm}/current`, async () => {
      const result = await this.db.query<KeyRow>(
        `SELECT ${COLUMNS} FROM signing_keys WHERE realm = $1 AND retired_at IS NULL ORDER BY alg`,
        [realm],
      );
      return result.rows.map(toKey);
    });
  }

  /** The keys a verifier may still meet: current ones and retired ones not yet expired. */
  published(realm: string): Promise<StoredSigningKey[]> {
    return this.cached(`${realm}/published`, async () => {
      const result = await this.db.query<KeyRow>(
        `SELECT ${COLUMNS} FROM signing_keys
          WHERE realm = $1 AND (expires_at IS NULL OR expires_at > now())
          ORDER BY retired_at DESC NULLS FIRST, alg`,
        [realm],
      );
      return result.rows.map(toKey);
    });
  }

  /** An empty answer (no such realm yet) is not kept. */
  private async cached(key: string, load: () => Promise<StoredSigningKey[]>): Promise<StoredSigningKey[]> {
    return (await this.cache.get(key, async () => {
      const keys = await load();
      return keys.length > 0 ? keys : undefined;
    })) ?? [];
  }

  /**
   * Makes `keys` current. The keys they replace stay published for `keepSeconds`,
   * the longest that a token they signed may live.
   */
  async rotate(realm: string, keys: readonly NewSigningKey[], keepSeconds: number): Promise<void> {
    await writeThrough(this.db, [[this.cache, `${realm}/`]], async (tx) => {
      // Rotations of one realm take turns, so that each retires the key the previous made current.
      await tx.query('SELECT 1 FROM realms WHERE name = $1 FOR UPDATE', [realm]);
      for (const key of keys) {
        await tx.query(
          `UPDATE signing_keys SET retired_at = now(), expires_at = now() + make_interval(secs => $3)
            WHERE realm = $1 AND alg = $2 AND retired_at IS NULL`,
          [realm, key.alg, keepSeconds],
        );
        await insertSigningKey(tx, realm, key);
      }
    });
  }
}
