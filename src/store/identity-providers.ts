import type { IdentityProviderRecord } from '../records/identity-provider.js';
import { type SharedCache, writeThrough } from './cache.js';
import { type Db, ownedBytes } from './db.js';

export interface IdentityProvider extends IdentityProviderRecord {
  readonly realm: string;
  readonly alias: string;
  /** The client secret, encrypted (src/identity-providers/secret.ts). */
  readonly sealedSecret: Buffer;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

interface IdentityProviderRow {
  realm: string;
  alias: string;
  record: IdentityProviderRecord;
  client_secret: Uint8Array;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'realm, alias, record, client_secret, created_at, updated_at';

const toProvider = (row: IdentityProviderRow): IdentityProvider => ({
  ...row.record,
  realm: row.realm,
  alias: row.alias,
  sealedSecret: ownedBytes(row.client_secret),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** A realm's providers as the cache holds them (an object, so that an empty list is cached too). */
export interface RealmProviders {
  readonly providers: readonly IdentityProvider[];
}

/**
 * A realm's upstream OpenID providers (CONTRACT.md §10), by alias. The sign-in page lists
 * them on every password page, so each realm's list is cached on every instance (key
 * "{realm}/"); any change drops it everywhere.
 */
export class IdentityProviderStore {
  constructor(
    private readonly db: Db,
    private readonly cache: SharedCache<RealmProviders>,
  ) {}

  /** Undefined when the realm has a provider of this alias already. */
  create(realm: string, alias: string, record: IdentityProviderRecord, sealedSecret: Buffer): Promise<IdentityProvider | undefined> {
    return writeThrough(this.db, [[this.cache, `${realm}/`]], async (tx) => {
      const result = await tx.query<IdentityProviderRow>(
        `INSERT INTO identity_providers (realm, alias, record, client_secret) VALUES ($1, $2, $3::jsonb, $4)
         ON CONFLICT (realm, alias) DO NOTHING RETURNING ${COLUMNS}`,
        [realm, alias, JSON.stringify(record), sealedSecret],
      );
      return result.rows[0] && toProvider(result.rows[0]);
    });
  }

  /** The realm's providers, in the order they were added. */
  async list(realm: string): Promise<readonly IdentityProvider[]> {
    const cached = await this.cache.get(`${realm}/`, async () => {
      const result = await this.db.query<IdentityProviderRow>(
        `SELECT ${COLUMNS} FROM identity_providers WHERE realm = $1 ORDER BY created_at, alias`,
        [realm],
      );
      return { providers: result.rows.map(toProvider) };
    });
    return cached?.providers ?? [];
  }

  async get(realm: string, alias: string): Promise<IdentityProvider | undefined> {
    return (await this.list(realm)).find((provider) => provider.alias === alias);
  }

  /** Replaces the record, and the secret when one is given; undefined when there is no such provider. */
  update(realm: string, alias: string, record: IdentityProviderRecord, sealedSecret: Buffer | undefined): Promise<IdentityProvider | undefined> {
    return writeThrough(this.db, [[this.cache, `${realm}/`]], async (tx) => {
      const result = await tx.query<IdentityProviderRow>(
        `UPDATE identity_providers SET record = $3::jsonb, client_secret = coalesce($4, client_secret), updated_at = now()
          WHERE realm = $1 AND alias = $2 RETURNING ${COLUMNS}`,
        [realm, alias, JSON.stringify(record), sealedSecret ?? null],
      );
      return result.rows[0] && toProvider(result.rows[0]);
    });
  }

  /** Its links to people go with it. */
  delete(realm: string, alias: string): Promise<boolean> {
    return writeThrough(this.db, [[this.cache, `${realm}/`]], async (tx) => {
      const result = await tx.query('DELETE FROM identity_providers WHERE realm = $1 AND alias = $2', [realm, alias]);
      return result.rowCount > 0;
    });
  }
}
