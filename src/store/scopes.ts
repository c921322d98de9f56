import { type SharedCache, writeThrough } from './cache.js';
import type { Db, Queryable } from './db.js';

export interface Scope {
  readonly name: string;
  readonly description: string;
}

/**
 * A realm's scopes, cached per instance as "{realm}/all" (descriptions by name, in name order):
 * the consent page, discovery and client checks read them on every request, and an admin
 * changes them rarely. A change invalidates them on every instance as it commits; so does
 * the realm's creation or deletion (src/store/realms.ts).
 */
export type ScopeCache = SharedCache<ReadonlyMap<string, string>>;

export class ScopeStore {
  constructor(
    private readonly db: Db,
    private readonly cache: ScopeCache,
  ) {}

  private async all(realm: string): Promise<ReadonlyMap<string, string>> {
    const scopes = await this.cache.get(`${realm}/all`, async () => {
      const result = await this.db.query<Scope>('SELECT name, description FROM scopes WHERE realm = $1 ORDER BY name', [realm]);
      return new Map(result.rows.map((scope) => [scope.name, scope.description]));
    });
    return scopes ?? new Map();
  }

  async list(realm: string): Promise<Scope[]> {
    return [...(await this.all(realm))].map(([name, description]) => ({ name, description }));
  }

  async get(realm: string, name: string): Promise<Scope | undefined> {
    const description = (await this.all(realm)).get(name);
    return description === undefined ? undefined : { name, description };
  }

  /** Each of `names`, in their order, with its description (empty when the realm has none). */
  async described(realm: string, names: readonly string[]): Promise<Scope[]> {
    const descriptions = await this.all(realm);
    return names.map((name) => ({ name, description: descriptions.get(name) ?? '' }));
  }

  /** Names among `names` that the realm does not define. */
  async missing(realm: string, names: readonly string[]): Promise<string[]> {
    if (names.length === 0) return [];
    const known = await this.all(realm);
    return names.filter((name) => !known.has(name));
  }

  /** Creates or updates the scope; `created` tells which. */
  put(realm: string, name: string, description: string): Promise<{ scope: Scope; created: boolean }> {
    return writeThrough(this.db, [[this.cache, `${realm}/`]], (tx) => putScope(tx, realm, name, description));
  }

  delete(realm: string, name: string): Promise<boolean> {
    return writeThrough(this.db, [[this.cache, `${realm}/`]], async (tx) => {
      const result = await tx.query('DELETE FROM scopes WHERE realm = $1 AND name = $2', [realm, name]);
      return result.rowCount > 0;
    });
  }
}

/** Creates or updates a scope, within a transaction of the caller's (which invalidates the cache, or runs before any). */
export async function putScope(tx: Queryable, realm: string, name: string, description: string): Promise<{ scope: Scope; created: boolean }> {
  const result = await tx.query<Scope & { created: boolean }>(
    `INSERT INTO scopes (realm, name, description) VALUES ($1, $2, $3)
     ON CONFLICT (realm, name) DO UPDATE SET description = excluded.description
     RETURNING name, description, (xmax = 0) AS created`,
    [realm, name, description],
  );
  const row = result.rows[0]!;
  return { scope: { name: row.name, description: row.description }, created: row.created };
}
