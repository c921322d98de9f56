import { type RealmSettings, type RealmSettingsPatch, resolveSettings } from '../realms/settings.js';
import { BUILTIN_SCOPES } from '../oauth/scope.js';
import type { NewSigningKey } from '../tokens/signing-keys.js';
import { type Invalidatable, type Invalidation, type SharedCache, writeThrough } from './cache.js';
import { deleteTokensOfClients } from './clients.js';
import type { Db, Queryable } from './db.js';
import { insertSigningKey } from './signing-keys.js';

export interface Realm {
  readonly name: string;
  /** What an admin set, with the defaults for the rest. */
  readonly settings: RealmSettings;
  readonly createdAt: Date;
}

interface RealmRow {
  name: string;
  settings: RealmSettingsPatch;
  created_at: Date;
}

const toRealm = (row: RealmRow): Realm =>
  Object.freeze({ name: row.name, settings: resolveSettings(row.settings), createdAt: row.created_at });

export class RealmStore {
  constructor(
    private readonly db: Db,
    private readonly cache: SharedCache<Realm>,
    /**
     * The caches of what a realm owns (clients, signing keys, trusted issuers), keyed
     * "{realm}/…": creating or deleting a realm drops their entries of it.
     */
    private readonly ownedCaches: readonly Invalidatable[],
  ) {}

  /** The invalidations of a realm's creation or deletion. */
  private everythingOf(name: string): Invalidation[] {
    return [[this.cache, name], ...this.ownedCaches.map((cache): Invalidation => [cache, `${name}/`])];
  }

  get(name: string): Promise<Realm | undefined> {
    return this.cache.get(name, async () => {
      const result = await this.db.query<RealmRow>('SELECT name, settings, created_at FROM realms WHERE name = $1', [name]);
      return result.rows[0] && toRealm(result.rows[0]);
    });
  }

  async list(): Promise<Realm[]> {
    const result = await this.db.query<RealmRow>('SELECT name, settings, created_at FROM realms ORDER BY name');
    return result.rows.map(toRealm);
  }

  /** Creates the realm with its built-in scopes and signing keys; undefined when the name is taken. */
  create(name: string, settings: RealmSettingsPatch, keys: readonly NewSigningKey[]): Promise<Realm | undefined> {
    return writeThrough(this.db, this.everythingOf(name), (tx) => insertRealm(tx, name, settings, keys));
  }

  /** Merges `patch` into the stored settings: only the keys sent change. */
  async updateSettings(name: string, patch: RealmSettingsPatch): Promise<Realm | undefined> {
    return writeThrough(this.db, [[this.cache, name]], async (tx) => {
      const result = await tx.query<RealmRow>(
        `UPDATE realms SET settings = settings || $2::jsonb, updated_at = now()
          WHERE name = $1 RETURNING name, settings, created_at`,
        [name, JSON.stringify(patch)],
      );
      return result.rows[0] && toRealm(result.rows[0]);
    });
  }

  /** Deletes the realm and everything it owns. */
  async delete(name: string): Promise<boolean> {
    return writeThrough(this.db, this.everythingOf(name), async (tx) => {
      await deleteTokensOfClients(tx, name);
      const result = await tx.query('DELETE FROM realms WHERE name = $1', [name]);
      return result.rowCount > 0;
    });
  }
}

export async function insertRealm(
  tx: Queryable,
  name: string,
  settings: RealmSettingsPatch,
  keys: readonly NewSigningKey[],
): Promise<Realm | undefined> {
  const inserted = await tx.query<RealmRow>(
    `INSERT INTO realms (name, settings) VALUES ($1, $2::jsonb)
     ON CONFLICT (name) DO NOTHING RETURNING name, settings, created_at`,
    [name, JSON.stringify(settings)],
  );
  const row = inserted.rows[0];
  if (!row) return undefined;
  for (const scope of BUILTIN_SCOPES) {
    await tx.query('INSERT INTO scopes (realm, name, description) VALUES ($1, $2, $3)', [name, scope.name, scope.description]);
  }
  for (const key of keys) await insertSigningKey(tx, name, key);
  return toRealm(row);
}
